# One run of the host example (examples/host) under Xvfb, with the
# validation layer and synchronization validation on.
#   cmake -DEXAMPLE=vxr_example_host -DXVFB_RUN=xvfb-run -DSERVER=N -DWORK=dir
#         -DNAME=name -DARGS="SCENE|options" -DPICK=X,Y -P host_example.cmake
# ARGS separates arguments with '|'. The example renders 3 frames, picks
# pixel PICK in the last one, saves the last frame and compares it with the
# CPU-composited reference (--check). It must exit 0 with an empty stderr
# (no validation message), print the pick as a hit equal to the CPU's pick
# (--check holds it to it) and print that no pixel differs.
string(REPLACE "|" ";" args "${ARGS}")
file(MAKE_DIRECTORY ${WORK})
set(shot ${WORK}/${NAME}.png)
set(reference ${WORK}/${NAME}-reference.png)
file(REMOVE ${shot} ${reference})
execute_process(
    COMMAND ${XVFB_RUN} -n ${SERVER} -s "-screen 0 1280x1024x24" ${EXAMPLE} ${args} --frames 3
            --validate --check --pick ${PICK} --screenshot ${shot} --reference ${reference}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "vxr_example_host ${ARGS}: exit status ${rc}\n--- stdout:\n${out}--- stderr:\n${err}")
endif()
if(NOT out MATCHES "(^|\n)pick ${PICK}: instance [0-9]+ voxel [^\n]*\n")
    message(FATAL_ERROR "vxr_example_host: no pick line hitting a voxel at ${PICK}:\n${out}")
endif()
if(NOT out MATCHES "(^|\n)check: 0 of [0-9]+ pixels differ from the reference")
    message(FATAL_ERROR "vxr_example_host: no check line with 0 differing pixels:\n${out}")
endif()
if(NOT EXISTS ${shot} OR NOT EXISTS ${reference})
    message(FATAL_ERROR "vxr_example_host: ${shot} or ${reference} was not written")
endif()
message(STATUS "${out}")
