# Packaging fixture: builds the libraries alone (no tools, no tests) as
# KIND (shared or static) and installs them into WORK/KIND/prefix, as the
# README's "Using vxr as a library" says. The build directory
# (WORK/KIND/lib-build) is kept between runs, so a rerun only relinks;
# the prefix is made afresh. Variables: SOURCE, WORK, KIND, GENERATOR, CC,
# WERROR, LIBDIR (the project's CMAKE_INSTALL_LIBDIR, so that both
# installs have the same layout).
cmake_minimum_required(VERSION 3.25)
function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
    message(STATUS "${what}: ok")
endfunction()

if(KIND STREQUAL "shared")
    set(shared ON)
else()
    set(shared OFF)
endif()
set(build ${WORK}/${KIND}/lib-build)
set(prefix ${WORK}/${KIND}/prefix)
file(REMOVE_RECURSE ${prefix})
run("configure (${KIND} libraries)" ${CMAKE_COMMAND} -S ${SOURCE} -B ${build} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${CC} -DBUILD_SHARED_LIBS=${shared}
    -DVXR_BUILD_TOOLS=OFF -DVXR_BUILD_TESTS=OFF -DVXR_WERROR=${WERROR}
    -DCMAKE_INSTALL_LIBDIR=${LIBDIR})
run("build (${KIND} libraries)" ${CMAKE_COMMAND} --build ${build})
run("install (${KIND} libraries)" ${CMAKE_COMMAND} --install ${build} --prefix ${prefix})
# The package exports the libraries only: vxr_build_settings (warnings,
# sanitizers) stays in the build tree.
file(GLOB_RECURSE exported ${prefix}/*vxrTargets*.cmake)
if(NOT exported)
    message(FATAL_ERROR "no vxrTargets*.cmake installed under ${prefix}")
endif()
foreach(file ${exported})
    file(READ ${file} text)
    if(text MATCHES "build_settings")
        message(FATAL_ERROR "${file} exports vxr_build_settings, the build tree's own flags")
    endif()
endforeach()
