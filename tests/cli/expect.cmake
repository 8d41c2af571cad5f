# Runs the vxr command line once and checks what it did.
#   cmake -DVXR=path/to/vxr -DARGS="info|--json|FILE" [-DRC=0] [-DSTDOUT=regex]
#         [-DSTDERR=regex] [-DSTDERR_LINES=n] -P expect.cmake
# ARGS separates arguments with '|'. RC is the expected exit status (default
# 0); STDOUT and STDERR are regular expressions the outputs must match;
# STDERR_LINES is the exact number of lines on stderr.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${VXR} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT DEFINED RC)
    set(RC 0)
endif()
set(failed "")
if(NOT rc STREQUAL RC)
    string(APPEND failed "exit status ${rc}, expected ${RC}\n")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
    string(APPEND failed "stdout does not match '${STDOUT}'\n")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
    string(APPEND failed "stderr does not match '${STDERR}'\n")
endif()
if(DEFINED STDERR_LINES)
    string(REGEX MATCHALL "\n" newlines "${err}")
    list(LENGTH newlines lines)
    if(NOT lines EQUAL STDERR_LINES OR (lines GREATER 0 AND NOT err MATCHES "\n$"))
        string(APPEND failed "${lines} lines on stderr, expected ${STDERR_LINES}\n")
    endif()
endif()
if(failed)
    string(REPLACE ";" " " command "${args}")
    message(FATAL_ERROR "vxr ${command}\n${failed}--- stdout:\n${out}--- stderr:\n${err}")
endif()
