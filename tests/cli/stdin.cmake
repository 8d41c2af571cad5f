# A scene read from standard input, as `-` and as /dev/stdin, through a pipe
# and redirected from the file, and from a FIFO (read once, never opened
# twice), reports the same figures as the file itself (vxr info --json; the
# scene name and build time aside).
#   cmake -DVXR=path/to/vxr -DIN=FILE -DWORK=dir -P stdin.cmake
function(figures json out)
    string(REGEX REPLACE "^{\"scene\":\"[^\"]*\"," "" json "${json}")
    string(REGEX REPLACE ",\"build_s\":[^}]*}" "}" json "${json}")
    set(${out} "${json}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${VXR} info --json ${IN} RESULT_VARIABLE rc OUTPUT_VARIABLE json)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vxr info ${IN}: exit ${rc}")
endif()
figures("${json}" want)
foreach(name - /dev/stdin)
    execute_process(COMMAND ${CMAKE_COMMAND} -E cat ${IN}
                    COMMAND ${VXR} info --json ${name}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
    figures("${json}" got)
    if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
        message(FATAL_ERROR "cat ${IN} | vxr info --json ${name}: exit ${rc}\n"
                            "  ${got}\nexpected\n  ${want}\n${err}")
    endif()
    execute_process(COMMAND ${VXR} info --json ${name} INPUT_FILE ${IN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
    figures("${json}" got)
    if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
        message(FATAL_ERROR "vxr info --json ${name} < ${IN}: exit ${rc}\n"
                            "  ${got}\nexpected\n  ${want}\n${err}")
    endif()
endforeach()

# a FIFO: opened once; a second open would wait for a writer that is gone
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND sh -c "mkfifo \"$1\" && { cat \"$2\" > \"$1\" & } && exec \"$0\" info --json \"$1\""
                        ${VXR} ${WORK}/fifo ${IN}
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err TIMEOUT 20)
figures("${json}" got)
if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
    message(FATAL_ERROR "vxr info --json FIFO (from ${IN}): exit ${rc}\n  ${got}\nexpected\n  ${want}\n${err}")
endif()
file(REMOVE_RECURSE ${WORK})
