# `vxr edit` in bounded memory and bounded work (issue 26):
#   cmake -DVXR=vxr -DPEAK=peak_rss -DSCENE=scene -DWORK=dir -DCASE=name
#         [-DSANITIZED=ON] -P edit_limits.cmake
# stream:    a script of 6 million `undo` lines (30 MB, from a file and
#            from standard input with --ops -) is applied in under 64 MiB:
#            read as applied, not parsed up front.
# big_step:  one 256^3 box (16.7 million voxel changes, 470 MB of journal at
#            28 bytes each) with the default 64 MiB journal stays under
#            256 MiB, is applied without undo, says so, and undo after it
#            changes nothing.
# journal:   --journal 1048576 and a 64^3 box: applied without undo, one note.
# work:      --max-cells bounds the script's total work (cells visited):
#            the line that would pass it is refused, naming itself, and OUT
#            is not written; a larger --max-cells lets it through.
set(dir ${WORK}/edit_limits_${CASE})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

function(fail what)
    message(FATAL_ERROR "${CASE}: ${what}\n--- stdout:\n${out}--- stderr:\n${err}")
endfunction()

# run(MAX_MIB IN args...): vxr edit under peak_rss; sets rc, out, err
function(run max in)
    if(SANITIZED)
        set(max 1000000) # ASan's shadow memory: no bound to hold
    endif()
    execute_process(COMMAND ${PEAK} ${max} ${in} -- ${VXR} edit ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    foreach(v rc out err)
        set(${v} "${${v}}" PARENT_SCOPE)
    endforeach()
endfunction()

if(CASE STREQUAL "stream")
    set(ops ${dir}/undo.txt)
    string(REPEAT "undo\n" 1000 block)
    string(REPEAT "${block}" 100 chunk) # 500 KB
    file(WRITE ${ops} "box 0 0 0 0 2 2 2 5\n")
    foreach(i RANGE 59)
        file(APPEND ${ops} "${chunk}")
    endforeach()
    foreach(from file stdin)
        if(from STREQUAL "file")
            run(64 - ${SCENE} --ops ${ops} --out ${dir}/out.vxo --json)
        else()
            run(64 ${ops} ${SCENE} --ops - --out ${dir}/out.vxo --json)
        endif()
        if(NOT rc EQUAL 0 OR NOT out MATCHES "\"steps\":1,\"undone\":1,\"redone\":0,")
            fail("${from}: exit ${rc}, expected 0 and one step undone (over 64 MiB when 99)")
        endif()
    endforeach()
elseif(CASE STREQUAL "big_step")
    file(WRITE ${dir}/ops.txt "box 0 0 0 0 256 256 256 5\nundo\n")
    run(256 - ${SCENE} --ops ${dir}/ops.txt --out ${dir}/out.vl32)
    if(NOT rc EQUAL 0)
        fail("exit ${rc}, expected 0 (over 256 MiB when 99)")
    endif()
    if(NOT err MATCHES "^vxr: [^\n]*ops\\.txt:1: note: 16777216 voxels changed, more than the undo journal holds; applied without undo\n")
        fail("no note that the step was applied without undo")
    endif()
    if(NOT out MATCHES "1 steps \\(0 undone, 0 redone\\), 16777216 voxel changes")
        fail("the undo after it changed something")
    endif()
elseif(CASE STREQUAL "journal")
    file(WRITE ${dir}/ops.txt "box 0 0 0 0 64 64 64 5\n")
    run(1000 - ${SCENE} --ops ${dir}/ops.txt --out ${dir}/out.vxo --journal 1048576 --json)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "\"unjournaled\":1,\"work\":262144}")
        fail("exit ${rc}, expected 0 with one step unjournaled")
    endif()
    if(NOT err STREQUAL "" AND NOT err MATCHES "^peak RSS: [0-9]+ KiB\n$")
        fail("--json printed a note")
    endif()
elseif(CASE STREQUAL "work")
    file(WRITE ${dir}/ops.txt "box 0 0 0 0 64 64 64 5\n# a comment\nbox 0 0 0 64 64 64 128 7\n")
    run(1000 - ${SCENE} --ops ${dir}/ops.txt --out ${dir}/out.vxo --max-cells 300000)
    if(NOT rc EQUAL 1 OR EXISTS ${dir}/out.vxo OR NOT err MATCHES
       "^vxr: [^\n]*ops\\.txt:3: the script's work would pass 300000 cells \\(--max-cells N allows more\\)\n")
        fail("exit ${rc}, expected 1 naming line 3 and no OUT")
    endif()
    run(1000 - ${SCENE} --ops ${dir}/ops.txt --out ${dir}/out.vxo --max-cells 524288 --json)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "\"work\":524288}")
        fail("exit ${rc}, expected 0 with work 524288")
    endif()
else()
    message(FATAL_ERROR "unknown CASE ${CASE}")
endif()
