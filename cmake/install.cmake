# Install rules and the CMake package (DESIGN.md §6): engine developers use
# find_package(vxr) and link vxr::core and vxr::renderer.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(vxr_targets vxr_core vxr_build_settings)
if(TARGET vxr_renderer)
    list(APPEND vxr_targets vxr_renderer)
endif()
set_target_properties(vxr_core PROPERTIES EXPORT_NAME core)
set_target_properties(vxr_build_settings PROPERTIES EXPORT_NAME build_settings)
if(TARGET vxr_renderer)
    set_target_properties(vxr_renderer PROPERTIES EXPORT_NAME renderer)
endif()
# vxr_build_settings travels only as a link-only dependency of the static
# libraries: consumers get none of its warnings.
install(TARGETS ${vxr_targets} EXPORT vxrTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY core/include/vxr DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES shaders/vxr_layout.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
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
