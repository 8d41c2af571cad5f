# One `vxr view --frames` run under Xvfb, held against `vxr render`.
#   cmake -DVXR=vxr -DXVFB_RUN=xvfb-run -DSERVER=N -DWORK=dir -DNAME=name
#         -DARGS="SCENE|options" -DCURSOR=X,Y [-DGRID=N] [-DCULLED=1]
#         [-DCAMERA=file.json] [-DFRAMES=n] [-DMIN_SAMPLES=n] [-DEYE=x,y,z] -P view.cmake
# ARGS separates arguments with '|'. The viewer runs with validation on,
# moves its mouse to CURSOR, saves its last frame and prints (--json) its
# last pick and its camera. The last frame must equal, byte for byte, the
# PNG that `vxr render` writes for that scene and camera, the mouse's pick
# must hit and equal the record that render --hits writes for that pixel
# (at the viewer's grid), and stderr must be empty: no validation message.
# CULLED=1: the view distance must have culled some instances. CAMERA: the
# viewer runs with --camera CAMERA, and so does render. FRAMES: frames to
# run (default 9). MIN_SAMPLES: the last frame must hold at least that many
# accumulated samples (a light frame; denoised below 32). EYE: the last
# frame's eye, as the summary prints it.
string(REPLACE "|" ";" args "${ARGS}")
file(MAKE_DIRECTORY ${WORK})
set(shot ${WORK}/${NAME}-view.png)
file(REMOVE ${shot})
if(DEFINED CAMERA)
    list(APPEND args --camera ${CAMERA})
endif()
if(NOT DEFINED FRAMES)
    set(FRAMES 9)
endif()
execute_process(
    COMMAND ${XVFB_RUN} -n ${SERVER} -s "-screen 0 1280x1024x24" ${VXR} view ${args} --frames ${FRAMES}
            --cursor ${CURSOR} --json --validate --screenshot ${shot}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "vxr view ${ARGS}: exit status ${rc}\n--- stdout:\n${out}--- stderr:\n${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
list(LENGTH lines n)
if(NOT n EQUAL 2)
    message(FATAL_ERROR "vxr view: expected 2 lines (pick, summary), got:\n${out}")
endif()
list(GET lines 0 pick)
list(GET lines 1 summary)
foreach(key scene width height visible instances cull)
    string(JSON ${key} GET "${summary}" ${key})
endforeach()
foreach(key eye target)
    set(${key} "")
    foreach(i 0 1 2)
        string(JSON c GET "${summary}" ${key} ${i})
        list(APPEND ${key} ${c})
    endforeach()
    string(REPLACE ";" "," ${key} "${${key}}")
endforeach()
string(JSON fov GET "${summary}" fov)
if(DEFINED EYE)
    string(FIND "${summary}" "\"eye\":[${EYE}]" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "vxr view: the last frame's eye is not [${EYE}]: ${summary}")
    endif()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/light_args.cmake)
view_light_args("${summary}" light_args)
if(DEFINED MIN_SAMPLES)
    string(JSON samples GET "${summary}" samples)
    string(JSON denoised GET "${summary}" denoised)
    if(samples LESS MIN_SAMPLES OR (samples GREATER_EQUAL 32 AND denoised))
        message(FATAL_ERROR "vxr view: ${samples} samples (denoised ${denoised}), expected at least "
                            "${MIN_SAMPLES}, denoised only below 32: ${summary}")
    endif()
endif()
if(CULLED AND NOT visible LESS instances)
    message(FATAL_ERROR "vxr view: ${visible} of ${instances} instances visible, expected culling")
endif()
if(NOT DEFINED GRID)
    set(GRID 1)
endif()
if(DEFINED CAMERA)
    set(render ${VXR} render ${scene} --camera ${CAMERA} --size ${width}x${height} --validate)
else()
    set(render ${VXR} render ${scene} --eye ${eye} --target ${target} --fov ${fov}
               --size ${width}x${height} --validate)
endif()
if(NOT cull)
    list(APPEND render --no-cull)
endif()
execute_process(COMMAND ${render} ${light_args} --out ${WORK}/${NAME}-render.png
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vxr render: exit status ${rc}: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${shot} ${WORK}/${NAME}-render.png
                RESULT_VARIABLE differ)
if(differ)
    message(FATAL_ERROR "the viewer's frame ${shot} differs from vxr render's ${WORK}/${NAME}-render.png")
endif()
# the viewer's mouse picks are of voxels, whatever the frames' level of detail
execute_process(COMMAND ${render} --light flat --grid ${GRID} --lod 0 --out ${WORK}/${NAME}-grid.png
                        --hits ${WORK}/${NAME}-hits.txt RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vxr render --hits: exit status ${rc}: ${err}")
endif()
string(REPLACE "," ";" xy "${CURSOR}")
list(GET xy 0 x)
list(GET xy 1 y)
math(EXPR skip "${y} * ${width} + ${x}")
file(STRINGS ${WORK}/${NAME}-hits.txt records)
list(GET records ${skip} expected)
if(NOT pick MATCHES "^{\"hit\":true")
    message(FATAL_ERROR "vxr view: nothing under the mouse at ${CURSOR} (the case should pick): ${pick}")
endif()
if(NOT pick STREQUAL expected)
    message(FATAL_ERROR "the viewer's pick at ${CURSOR}:\n${pick}\nrender --hits there:\n${expected}")
endif()
message(STATUS "${scene}: ${width}x${height}, ${visible}/${instances} visible, frame and pick equal")
