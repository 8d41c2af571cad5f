# Packaging test: install vxr from BUILD into a fresh prefix, then build and
# run a consumer against it with find_package(vxr), and again with
# add_subdirectory(SOURCE). Variables: SOURCE, BUILD, WORK, GENERATOR.
file(REMOVE_RECURSE ${WORK})
function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
    message(STATUS "${what}: ok")
    set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(header vxr/core.h vxr/pick.h vxr/spheres.h vxr/renderer.h vxr_layout.h)
    if(NOT EXISTS ${WORK}/prefix/include/${header})
        message(FATAL_ERROR "install: include/${header} is missing")
    endif()
endforeach()

set(consumer ${SOURCE}/tests/packaging/consumer)
run("configure (find_package)" ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/pkg -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run("build (find_package)" ${CMAKE_COMMAND} --build ${WORK}/pkg)
run("run (find_package)" ${WORK}/pkg/consumer)
message(STATUS "${last_output}")

run("configure (add_subdirectory)" ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/sub -G ${GENERATOR}
    -DVXR_SOURCE_DIR=${SOURCE} -DCMAKE_BUILD_TYPE=Release)
run("build (add_subdirectory)" ${CMAKE_COMMAND} --build ${WORK}/sub)
run("run (add_subdirectory)" ${WORK}/sub/consumer)
message(STATUS "${last_output}")
