# Output paths and temporary files (issue 26, items 4, 11 and 12): two
# outputs naming one file are a usage error; temporary files go on SIGINT,
# SIGTERM and SIGHUP, and a killed writer's at the next write to the same
# destination; names up to NAME_MAX bytes work (outputs_guard.sh says what
# each case checks). Included from tests/cli/CMakeLists.txt.
find_program(VXR_BASH bash)
if(VXR_BASH)
    foreach(case same_file same_file_devnull input_is_output signal_INT signal_TERM signal_HUP
                 stale long_names)
        add_test(NAME cli_outputs_guard_${case}
                 COMMAND ${VXR_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/outputs_guard.sh
                         $<TARGET_FILE:vxr> ${case} ${cli_work}/outputs_guard_${case}
                         ${VXR_TEST_DATA})
        set_tests_properties(cli_outputs_guard_${case} PROPERTIES LABELS format TIMEOUT 30)
    endforeach()
    # the one case that renders
    set_tests_properties(cli_outputs_guard_same_file_devnull PROPERTIES LABELS gpu)
    if(VXR_LAVAPIPE_ICD)
        set_tests_properties(cli_outputs_guard_same_file_devnull PROPERTIES ENVIRONMENT
                             "${VXR_GPU_ENV}")
    endif()
endif()
