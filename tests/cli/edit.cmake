# `vxr edit` against tests/cli/edit_oracle.c (the same script applied
# without the editor).
#   cmake -DVXR=vxr -DORACLE=edit_oracle -DSCENE=scene -DOPS=ops.txt -DWORK=dir
#         -DNAME=prefix [-DOUTS=vxo;vox;vl32] [-DJSON=regex] [-DUNDO_ALL=1]
#         -P edit.cmake
# Runs `vxr edit SCENE --ops OPS --out OUT --json` for each OUT format (all
# three by default): exit 0, nothing on stderr, stdout one JSON line
# (matching JSON), and the oracle finds in each OUT the voxels it expects.
# UNDO_ALL: OPS followed by an undo per line of it, so that every step is
# undone; the .vxo must then be byte for byte what `vxr convert SCENE`
# writes, and every OUT hold SCENE's world voxels.
if(NOT DEFINED OUTS)
    set(OUTS vxo vox vl32)
endif()
file(MAKE_DIRECTORY ${WORK})
set(ops ${OPS})
if(UNDO_ALL)
    file(READ ${OPS} text)
    string(REGEX MATCHALL "\n" lines "${text}")
    list(LENGTH lines n)
    string(REPEAT "undo\n" ${n} undos)
    set(ops ${WORK}/${NAME}_undo_all.txt)
    file(WRITE ${ops} "${text}\n${undos}")
endif()

set(outs "")
foreach(ext ${OUTS})
    set(out ${WORK}/${NAME}.${ext})
    file(REMOVE ${out})
    execute_process(COMMAND ${VXR} edit ${SCENE} --ops ${ops} --out ${out} --json
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
    if(NOT rc EQUAL 0 OR NOT stderr STREQUAL "" OR NOT EXISTS ${out})
        message(FATAL_ERROR "vxr edit ${SCENE} --ops ${ops} --out ${out}: exit ${rc}\n${stderr}")
    endif()
    if(NOT stdout MATCHES "^{\"steps\":[0-9]+,[^\n]*}\n$")
        message(FATAL_ERROR "vxr edit --json printed\n${stdout}")
    endif()
    if(DEFINED JSON AND NOT stdout MATCHES "${JSON}")
        message(FATAL_ERROR "vxr edit --json printed\n${stdout}which does not match\n${JSON}")
    endif()
    list(APPEND outs ${out})
endforeach()

if(UNDO_ALL)
    set(orig ${WORK}/${NAME}_orig.vxo)
    execute_process(COMMAND ${VXR} convert ${SCENE} ${orig} RESULT_VARIABLE rc)
    file(SHA256 ${orig} want)
    file(SHA256 ${WORK}/${NAME}.vxo got)
    if(NOT rc EQUAL 0 OR NOT want STREQUAL got)
        message(FATAL_ERROR "${WORK}/${NAME}.vxo, every step undone, differs from ${orig}")
    endif()
    foreach(out ${outs})
        execute_process(COMMAND ${ORACLE} --same ${SCENE} ${out} RESULT_VARIABLE rc)
        if(NOT rc EQUAL 0)
            message(FATAL_ERROR "${out}, every step undone, holds other voxels than ${SCENE}")
        endif()
    endforeach()
endif()
execute_process(COMMAND ${ORACLE} ${SCENE} ${ops} ${outs} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "edit_oracle ${SCENE} ${ops}: the outputs differ from the expectation")
endif()
