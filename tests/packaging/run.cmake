# Packaging test: vxr used from outside, as shared and as static libraries,
# each three ways: find_package(vxr) from an install prefix,
# add_subdirectory(SOURCE), and pkg-config (a plain `cc ... $(pkg-config
# --cflags --libs vxr-renderer)`). One kind is the project's own build
# (BUILD, of kind KIND), installed here; the other (OTHER) is the
# libraries-only build that the packaging_libraries fixture installed into
# WORK/OTHER/prefix (build.cmake). Every consumer runs: a shared one finds
# the libraries through its RPATH. Variables: SOURCE, BUILD, KIND, OTHER,
# WORK, GENERATOR, CC, LIBDIR (CMAKE_INSTALL_LIBDIR), SOVERSION, OBJDUMP.
cmake_minimum_required(VERSION 3.25)
function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
    endif()
    message(STATUS "${what}: ok")
    set(last_output "${out}" PARENT_SCOPE)
endfunction()

find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config not found (Debian package pkg-config, tools/packages.txt)")
endif()

file(GLOB public_headers RELATIVE ${SOURCE}/core/include ${SOURCE}/core/include/vxr/*.h)
list(APPEND public_headers vxr/renderer.h vxr/target.h vxr/version.h vxr/vxr_layout.h)
set(consumer ${SOURCE}/tests/packaging/consumer)

# The install prefix of kind `kind`: what it holds and what it does not.
function(check_prefix kind prefix)
    foreach(header ${public_headers})
        if(NOT EXISTS ${prefix}/include/${header})
            message(FATAL_ERROR "${kind} install: include/${header} is missing")
        endif()
    endforeach()
    file(GLOB top LIST_DIRECTORIES false ${prefix}/include/*)
    if(top)
        message(FATAL_ERROR "${kind} install: files at the top of include/ (only vxr/): ${top}")
    endif()
    foreach(file cmake/vxr/vxrConfig.cmake pkgconfig/vxr-core.pc pkgconfig/vxr-renderer.pc)
        if(NOT EXISTS ${prefix}/${LIBDIR}/${file})
            message(FATAL_ERROR "${kind} install: ${LIBDIR}/${file} is missing")
        endif()
        file(READ ${prefix}/${LIBDIR}/${file} text)
        if(text MATCHES "cglm|CGLM")
            message(FATAL_ERROR "${kind} install: ${LIBDIR}/${file} names cglm, which vxr does not use")
        endif()
    endforeach()
    if(kind STREQUAL "shared")
        set(libs libvxr_core.so libvxr_core.so.${SOVERSION} libvxr_renderer.so
                 libvxr_renderer.so.${SOVERSION})
    else()
        set(libs libvxr_core.a libvxr_renderer.a)
    endif()
    foreach(lib ${libs})
        if(NOT EXISTS ${prefix}/${LIBDIR}/${lib})
            message(FATAL_ERROR "${kind} install: ${LIBDIR}/${lib} is missing")
        endif()
    endforeach()
    message(STATUS "${kind} install: headers under include/vxr/, libraries, CMake and pkg-config files")
endfunction()

# The consumer at exe was linked with the kind of libraries it should be: a
# shared consumer needs libvxr_renderer.so.SOVERSION, a static one no vxr
# library; neither needs libvulkan.
function(linked_as kind way exe)
    execute_process(COMMAND ${OBJDUMP} -p ${exe} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${OBJDUMP} -p ${exe} failed")
    endif()
    string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${dyn}")
    if(needed MATCHES "libvulkan")
        message(FATAL_ERROR "${kind} (${way}): the consumer needs libvulkan: ${needed}")
    endif()
    if(kind STREQUAL "shared" AND NOT needed MATCHES "libvxr_renderer\\.so\\.${SOVERSION}")
        message(FATAL_ERROR "${kind} (${way}): the consumer is not linked with libvxr_renderer.so.${SOVERSION}: ${needed}")
    elseif(kind STREQUAL "static" AND needed MATCHES "libvxr")
        message(FATAL_ERROR "${kind} (${way}): the consumer is linked with a shared vxr: ${needed}")
    endif()
endfunction()

# Builds and runs the consumer against prefix the three ways.
function(consume kind prefix)
    if(kind STREQUAL "shared")
        set(shared ON)
    else()
        set(shared OFF)
    endif()
    set(dir ${WORK}/${kind})
    file(REMOVE_RECURSE ${dir}/find_package ${dir}/add_subdirectory ${dir}/pkg-config)

    run("${kind}: configure (find_package)" ${CMAKE_COMMAND} -S ${consumer} -B ${dir}/find_package
        -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release
        -DCMAKE_PREFIX_PATH=${prefix})
    run("${kind}: build (find_package)" ${CMAKE_COMMAND} --build ${dir}/find_package)
    run("${kind}: run (find_package)" ${dir}/find_package/consumer)
    message(STATUS "${last_output}")

    run("${kind}: configure (add_subdirectory)" ${CMAKE_COMMAND} -S ${consumer}
        -B ${dir}/add_subdirectory -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
        -DCMAKE_BUILD_TYPE=Release -DVXR_SOURCE_DIR=${SOURCE} -DBUILD_SHARED_LIBS=${shared})
    run("${kind}: build (add_subdirectory)" ${CMAKE_COMMAND} --build ${dir}/add_subdirectory)
    run("${kind}: run (add_subdirectory)" ${dir}/add_subdirectory/consumer)
    message(STATUS "${last_output}")

    # pkg-config: flags from the installed .pc files only; a static link
    # takes the private libraries too (-lm). Neither names libvulkan.
    set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
    set(static_flag "")
    set(rpath "")
    if(NOT shared)
        set(static_flag --static)
    else()
        set(rpath -Wl,-rpath,${prefix}/${LIBDIR})
    endif()
    run("${kind}: pkg-config --cflags" ${PKG_CONFIG} --cflags vxr-renderer)
    string(STRIP "${last_output}" cflags)
    run("${kind}: pkg-config --libs ${static_flag}" ${PKG_CONFIG} --libs ${static_flag} vxr-renderer)
    string(STRIP "${last_output}" libs)
    message(STATUS "${kind}: ${CC} -std=c11 ${cflags} main.c ${libs} ${rpath}")
    separate_arguments(cflags UNIX_COMMAND "${cflags}")
    separate_arguments(libs UNIX_COMMAND "${libs}")
    if("${libs}" MATCHES "-lvulkan" OR NOT "${libs}" MATCHES "-lvxr_renderer;.*-lvxr_core")
        message(FATAL_ERROR "${kind}: pkg-config --libs ${static_flag} vxr-renderer gave: ${libs}")
    endif()
    file(MAKE_DIRECTORY ${dir}/pkg-config)
    run("${kind}: build (pkg-config)" ${CC} -std=c11 -o ${dir}/pkg-config/consumer
        ${consumer}/main.c ${cflags} ${libs} ${rpath})
    run("${kind}: run (pkg-config)" ${dir}/pkg-config/consumer)
    message(STATUS "${last_output}")
    foreach(way find_package add_subdirectory pkg-config)
        linked_as(${kind} ${way} ${dir}/${way}/consumer)
    endforeach()
endfunction()

file(REMOVE_RECURSE ${WORK}/${KIND}/prefix)
run("install (${KIND}, the project's build)" ${CMAKE_COMMAND} --install ${BUILD}
    --prefix ${WORK}/${KIND}/prefix)
foreach(kind ${KIND} ${OTHER})
    check_prefix(${kind} ${WORK}/${kind}/prefix)
    consume(${kind} ${WORK}/${kind}/prefix)
endforeach()
