# Fails when a file of the libraries, the tools or the example is longer
# than 600 lines: a file is a concern, read whole (README "Layout").
#   cmake -DSOURCE=repo -P limits.cmake
cmake_minimum_required(VERSION 3.20)
set(limit 600)
set(over "")
set(count 0)
foreach(dir core renderer tools examples)
    file(GLOB_RECURSE files ${SOURCE}/${dir}/*.c ${SOURCE}/${dir}/*.h ${SOURCE}/${dir}/*.inc
         ${SOURCE}/${dir}/*.cpp)
    foreach(f ${files})
        file(READ ${f} text)
        string(REGEX MATCHALL "\n" newlines "${text}")
        list(LENGTH newlines n)
        math(EXPR count "${count} + 1")
        if(n GREATER limit)
            string(APPEND over "\n  ${f}: ${n} lines")
        endif()
    endforeach()
endforeach()
if(over)
    message(FATAL_ERROR "files over ${limit} lines:${over}")
endif()
message(STATUS "${count} files of core/, renderer/, tools/ and examples/, each within ${limit} lines")
