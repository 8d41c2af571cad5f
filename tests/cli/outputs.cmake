# Outputs land whole or not at all, keep an existing file's mode, and .vl32
# streams in bounded memory (issue 16).
#   cmake -DVXR=vxr -DCASE=name -DWORK=dir [-DSCENE=file] [-DBAD_SCENE=@spec] [-DFULL_VOX=exe]
#         [-DSHA256=hex] -P outputs.cmake
set(dir ${WORK}/outputs_${CASE})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    set(rc ${rc} PARENT_SCOPE)
    set(err "${err}" PARENT_SCOPE)
endfunction()

function(mode_of file var)
    execute_process(COMMAND stat -c %a ${file} OUTPUT_VARIABLE m OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(${var} ${m} PARENT_SCOPE)
endfunction()

# Nothing but the names expected in dir: no temporary files left behind.
function(expect_only)
    file(GLOB left RELATIVE ${dir} ${dir}/*)
    list(SORT left)
    set(want ${ARGN})
    list(SORT want)
    if(NOT "${left}" STREQUAL "${want}")
        message(FATAL_ERROR "${CASE}: files left: '${left}', expected '${want}'")
    endif()
endfunction()

if(CASE STREQUAL "render_bad_hits")
    # a --hits path that cannot be written: exit 1, and no PNG (nor depth)
    run(${VXR} render ${SCENE} --eye 90,-90,60 --target 0,0,0 --size 16x12 --out ${dir}/a.png
        --depth ${dir}/a.depth --hits ${dir}/no_such_dir/hits.jsonl)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "no_such_dir/hits\\.jsonl")
        message(FATAL_ERROR "exit status ${rc} (expected 1): ${err}")
    endif()
    expect_only()
    # the same with every path good writes all three
    run(${VXR} render ${SCENE} --eye 90,-90,60 --target 0,0,0 --size 16x12 --out ${dir}/a.png
        --depth ${dir}/a.depth --hits ${dir}/hits.jsonl)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "exit status ${rc}: ${err}")
    endif()
    expect_only(a.png a.depth hits.jsonl)
    file(SIZE ${dir}/a.depth depth_size)
    if(NOT depth_size EQUAL 768) # 16 x 12 floats
        message(FATAL_ERROR "depth file of ${depth_size} bytes")
    endif()
elseif(CASE STREQUAL "render_disk_full")
    # a disk that fills while the hits are written (a file size limit of
    # 32 KiB, its signal ignored, makes the writes fail with EFBIG): exit 1
    # naming the file, and none of the outputs left, whole or partial
    run(sh -c "trap '' XFSZ && ulimit -f 64 && exec \"$0\" \"$@\"" ${VXR} render ${SCENE}
        --eye 90,-90,60 --target 0,0,0 --size 128x96 --out ${dir}/a.png --depth ${dir}/a.depth
        --hits ${dir}/hits.jsonl)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "(a\\.png|a\\.depth|hits\\.jsonl): cannot write: File too large")
        message(FATAL_ERROR "exit status ${rc} (expected 1): ${err}")
    endif()
    expect_only()
elseif(CASE STREQUAL "convert_keeps_existing")
    # a failed convert leaves the file it would replace as it was, mode too
    set(out ${dir}/keep.vl32)
    file(WRITE ${out} "old contents")
    file(CHMOD ${out} PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ) # 640
    run(${VXR} convert ${BAD_SCENE} ${out}) # rotations .vl32 cannot hold
    if(NOT rc EQUAL 1)
        message(FATAL_ERROR "convert: exit status ${rc} (expected 1): ${err}")
    endif()
    file(READ ${out} contents)
    mode_of(${out} mode)
    if(NOT contents STREQUAL "old contents" OR NOT mode STREQUAL "640")
        message(FATAL_ERROR "after a failed convert: mode ${mode}, contents '${contents}'")
    endif()
    expect_only(keep.vl32)
    # a successful one replaces the contents and keeps the mode
    set(out ${dir}/keep.vxo)
    file(WRITE ${out} "old contents")
    file(CHMOD ${out} PERMISSIONS OWNER_READ OWNER_WRITE) # 600
    run(${VXR} convert ${SCENE} ${out})
    mode_of(${out} mode)
    file(SIZE ${out} size)
    if(NOT rc EQUAL 0 OR NOT mode STREQUAL "600" OR size LESS 100)
        message(FATAL_ERROR "convert: exit status ${rc}, mode ${mode}, ${size} bytes: ${err}")
    endif()
    expect_only(keep.vl32 keep.vxo)
elseif(CASE STREQUAL "vl32_same_bytes")
    # the streamed .vl32 is byte for byte what the in-memory saver wrote
    # before streaming (hash recorded from it)
    run(${VXR} convert ${SCENE} ${dir}/out.vl32)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "convert: exit status ${rc}: ${err}")
    endif()
    file(SHA256 ${dir}/out.vl32 got)
    if(NOT got STREQUAL SHA256)
        message(FATAL_ERROR "sha256 ${got}, expected ${SHA256}")
    endif()
elseif(CASE STREQUAL "vl32_bounded")
    # 500 instances of a full 32^3 model: 16384000 records, 262 MB of
    # .vl32, written in well under that much memory
    run(${FULL_VOX} 32 500 ${dir}/in.vox)
    set(out ${dir}/out.vl32)
    if(EXISTS /usr/bin/time)
        run(/usr/bin/time -f %M -o ${dir}/rss.txt ${VXR} convert ${dir}/in.vox ${out})
        file(READ ${dir}/rss.txt rss)
        string(STRIP "${rss}" rss)
        string(REGEX MATCH "[0-9]+$" rss "${rss}")
        file(REMOVE ${dir}/rss.txt)
    else()
        run(bash -c "ulimit -v 400000 && exec \"$0\" convert \"$1\" \"$2\"" ${VXR} ${dir}/in.vox
            ${out})
        set(rss 0)
    endif()
    file(SIZE ${out} size)
    file(REMOVE ${out})
    if(NOT rc EQUAL 0 OR NOT size EQUAL 262144000)
        message(FATAL_ERROR "convert: exit status ${rc}, ${size} bytes: ${err}")
    endif()
    if(rss GREATER 150000)
        message(FATAL_ERROR "convert: peak resident memory ${rss} KB, over 150000 KB")
    endif()
    message(STATUS "peak resident memory ${rss} KB")
    expect_only(in.vox)
elseif(CASE STREQUAL "vl32_over_limit")
    # 2048 instances of a full 128^3 model: 2^32 records, one over the
    # limit; refused up front with the sizes, nothing written
    run(${FULL_VOX} 128 2048 ${dir}/in.vox)
    run(${VXR} convert ${dir}/in.vox ${dir}/out.vl32)
    if(NOT rc EQUAL 1 OR NOT err MATCHES
       "out\\.vl32: the \\.vl32 would hold 4294967296 records \\(68719476736 bytes\\), over the limit of 4294967295 records")
        message(FATAL_ERROR "convert: exit status ${rc}: ${err}")
    endif()
    expect_only(in.vox)
else()
    message(FATAL_ERROR "unknown CASE ${CASE}")
endif()
file(REMOVE_RECURSE ${dir})
