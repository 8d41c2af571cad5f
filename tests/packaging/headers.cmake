# Header test: every public header compiles on its own, first as C11, then
# as C++17 with g++ (the C++ pass is skipped, with a message, where there is
# no g++), pedantic, every warning an error. The headers are those of the
# directories HEADER_DIRS (the source's include/vxr/ and the build tree's
# generated include/vxr/: version.h, vxr_layout.h), found through INCLUDES
# only, the directories of an install: not through shaders/.
# Variables: HEADER_DIRS, INCLUDES, CC, WORK.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(headers "")
foreach(dir ${HEADER_DIRS})
    file(GLOB found RELATIVE ${dir} ${dir}/*.h)
    foreach(name ${found})
        list(APPEND headers vxr/${name})
    endforeach()
endforeach()
list(REMOVE_DUPLICATES headers)
list(SORT headers)
list(LENGTH headers count)
if(count LESS 3)
    message(FATAL_ERROR "only ${count} public headers found in ${HEADER_DIRS}")
endif()
set(flags "")
foreach(dir ${INCLUDES})
    list(APPEND flags -I${dir})
endforeach()

# Compiles a file including header (twice: the include guard holds) with
# compiler and the language's options.
function(compile lang header compiler)
    string(MAKE_C_IDENTIFIER ${header} name)
    if(lang STREQUAL "C++")
        set(src ${WORK}/${name}.cpp)
        set(opts -x c++ -std=c++17)
    else()
        set(src ${WORK}/${name}.c)
        set(opts -x c -std=c11)
    endif()
    file(WRITE ${src} "#include <${header}>\n#include <${header}>\n")
    execute_process(COMMAND ${compiler} ${opts} -Wall -Wextra -pedantic -Werror -fsyntax-only
                            ${flags} ${src}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${header} does not compile as ${lang} (${compiler}):\n${out}")
    endif()
endfunction()

foreach(header ${headers})
    compile(C11 ${header} ${CC})
endforeach()
message(STATUS "C11 (${CC} -std=c11 -Wall -Wextra -pedantic -Werror): ${count} headers ok")

find_program(GXX g++)
if(NOT GXX)
    message("packaging_headers: SKIPPED the C++ pass: no g++ (Debian package g++)")
    return()
endif()
foreach(header ${headers})
    compile(C++ ${header} ${GXX})
endforeach()
message(STATUS "C++ (g++ -std=c++17 -Wall -Wextra -pedantic -Werror): ${count} headers ok: ${headers}")
