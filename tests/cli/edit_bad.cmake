# A hostile `vxr edit` script: exit 1, one line on stderr naming the ops
# file and the bad line, and no OUT.
#   cmake -DVXR=vxr -DSCENE=scene -DOPS=bad.txt -DWORK=dir -P edit_bad.cmake
# The first line of OPS says what to expect: "# expect LINE: REGEX" (the
# start of the message after "vxr: OPS:LINE: ").
file(STRINGS ${OPS} first LIMIT_COUNT 1)
if(NOT first MATCHES "^# expect ([0-9]+): (.*)$")
    message(FATAL_ERROR "${OPS}: first line is not '# expect LINE: REGEX'")
endif()
set(line ${CMAKE_MATCH_1})
set(regex "${CMAKE_MATCH_2}")
get_filename_component(name ${OPS} NAME_WE)
set(out ${WORK}/bad_${name}.vox)
file(MAKE_DIRECTORY ${WORK})
file(REMOVE ${out})
execute_process(COMMAND ${VXR} edit ${SCENE} --ops ${OPS} --out ${out}
                RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
string(REGEX MATCHALL "\n" newlines "${stderr}")
list(LENGTH newlines lines)
string(REPLACE "." "\\." ops_re "${OPS}")
set(failed "")
if(NOT rc EQUAL 1)
    string(APPEND failed "exit status ${rc}, expected 1\n")
endif()
if(NOT lines EQUAL 1 OR NOT stderr MATCHES "^vxr: ${ops_re}:${line}: ${regex}[^\n]*\n$")
    string(APPEND failed "stderr is not one line 'vxr: ${OPS}:${line}: ${regex}'\n")
endif()
if(EXISTS ${out})
    string(APPEND failed "${out} was written\n")
endif()
if(failed)
    message(FATAL_ERROR "vxr edit ${SCENE} --ops ${OPS}\n${failed}--- stdout:\n${stdout}--- stderr:\n${stderr}")
endif()
