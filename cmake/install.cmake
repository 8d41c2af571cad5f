# Install rules and the CMake package (DESIGN.md §6): engine developers use
# find_package(vxr) and link vxr::core and vxr::renderer.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(vxr_targets vxr_core)
if(TARGET vxr_renderer)
    list(APPEND vxr_targets vxr_renderer)
endif()
set_target_properties(vxr_core PROPERTIES EXPORT_NAME core)
if(TARGET vxr_renderer)
    set_target_properties(vxr_renderer PROPERTIES EXPORT_NAME renderer)
endif()
# vxr_build_settings (warnings, sanitizers) is the build tree's alone: the
# libraries link it through $<BUILD_INTERFACE:...>, so the package exports
# no such target and consumers get none of its flags.
install(TARGETS ${vxr_targets} EXPORT vxrTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Every public header under include/vxr/, the generated ones (version.h and
# the copy of shaders/vxr_layout.h) included.
install(DIRECTORY core/include/vxr ${VXR_GENERATED_INCLUDE}/vxr
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET vxr_renderer)
    install(DIRECTORY renderer/include/vxr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
if(TARGET vxr)
    install(TARGETS vxr RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(vxr_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/vxr)
install(EXPORT vxrTargets NAMESPACE vxr:: DESTINATION ${vxr_cmake_dir})
set(VXR_WITH_RENDERER 0)
if(TARGET vxr_renderer)
    set(VXR_WITH_RENDERER 1)
endif()
configure_package_config_file(cmake/vxrConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/vxrConfig.cmake
                              INSTALL_DESTINATION ${vxr_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/vxrConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/vxrConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/vxrConfigVersion.cmake
        DESTINATION ${vxr_cmake_dir})

# pkg-config files (vxr-core, vxr-renderer), relocatable: the prefix is
# found from the .pc file's own directory, so `cmake --install --prefix`
# anywhere gives correct paths.
set(vxr_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${vxr_pc_dir}")
    set(VXR_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
    file(RELATIVE_PATH vxr_pc_up /vxr-prefix/${vxr_pc_dir} /vxr-prefix)
    string(REGEX REPLACE "/$" "" vxr_pc_up "${vxr_pc_up}")
    set(VXR_PC_PREFIX "\${pcfiledir}/${vxr_pc_up}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set(VXR_PC_${dir} ${CMAKE_INSTALL_${dir}})
    else()
        set(VXR_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif()
endforeach()
configure_file(cmake/vxr-core.pc.in ${CMAKE_CURRENT_BINARY_DIR}/vxr-core.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/vxr-core.pc DESTINATION ${vxr_pc_dir})
if(TARGET vxr_renderer)
    set(VXR_PC_RENDERER_LIBS_PRIVATE "")
    foreach(lib ${CMAKE_DL_LIBS})
        string(APPEND VXR_PC_RENDERER_LIBS_PRIVATE " -l${lib}")
    endforeach()
    string(APPEND VXR_PC_RENDERER_LIBS_PRIVATE " -pthread")
    # The Vulkan headers' directories, as Vulkan::Headers has them.
    set(VXR_PC_VULKAN_CFLAGS "")
    foreach(dir ${Vulkan_INCLUDE_DIRS})
        if(NOT dir IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
            string(APPEND VXR_PC_VULKAN_CFLAGS " -I${dir}")
        endif()
    endforeach()
    configure_file(cmake/vxr-renderer.pc.in ${CMAKE_CURRENT_BINARY_DIR}/vxr-renderer.pc @ONLY)
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/vxr-renderer.pc DESTINATION ${vxr_pc_dir})
endif()
