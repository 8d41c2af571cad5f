# One scripted `vxr view --edit-script` run under Xvfb, its saved files held
# against `vxr render`.
#   cmake -DVXR=vxr -DXVFB_RUN=xvfb-run -DSERVER=N -DWORK=dir -DNAME=name
#         -DARGS="SCENE|options" -DSCRIPT=file.edits -DCURSOR=X,Y
#         -DSAVES="a.vox|b.vxo" [-DFRAMES=n] [-DUNDO=n -DREDO=n] [-DNO_OVERWRITE=1]
#         [-DCOPY=world]
#         -P edit.cmake
# ARGS and SAVES separate items with '|'. The viewer runs in WORK/NAME with
# validation on, in edit mode, applies SCRIPT (which saves SAVES there),
# saves its last frame and prints (--json) its last pick and its camera.
# The last frame must differ from `vxr render` of the scene with the
# viewer's camera (the edits show) and, for each saved file, `vxr render`
# of it must write a PNG equal, byte for byte, to the last frame, and its
# `vxr info` model_voxels must differ from the scene's (the edits did
# something). The mouse's pick (edit mode's CPU pick of the edited scene)
# must equal the record render --hits writes for that pixel of the last
# saved file, at the viewer's grid. stderr must be empty. UNDO, REDO: the
# editor's depths at the end. NO_OVERWRITE=1: a copy of the scene's file,
# opened and saved to its own name, must be refused (exit 1) and stay.
# COPY: a world, copied into WORK/NAME first (ARGS name the copy, which the
# script's `save` writes back into); the scene before the edits is COPY.
string(REPLACE "|" ";" args "${ARGS}")
string(REPLACE "|" ";" saves "${SAVES}")
if(NOT DEFINED FRAMES)
    set(FRAMES 12)
endif()
set(dir ${WORK}/${NAME})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
if(DEFINED COPY) # a world edited in place: a copy of it in dir
    file(COPY ${COPY} DESTINATION ${dir})
endif()
set(shot ${dir}/view.png)
execute_process(
    COMMAND ${XVFB_RUN} -n ${SERVER} -s "-screen 0 1280x1024x24" ${VXR} view ${args}
            --frames ${FRAMES} --cursor ${CURSOR} --json --validate --screenshot ${shot}
            --edit-script ${SCRIPT}
    WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
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
foreach(key scene width height grid cull edit undo redo fov)
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
if(NOT edit)
    message(FATAL_ERROR "vxr view: not in edit mode at the end: ${summary}")
endif()
foreach(key UNDO REDO)
    string(TOLOWER ${key} k)
    if(DEFINED ${key} AND NOT ${k} EQUAL ${key})
        message(FATAL_ERROR "vxr view: ${${k}} steps to ${k} at the end, expected ${${key}}")
    endif()
endforeach()

# model_voxels of `vxr info --json FILE` into var
function(model_voxels file var)
    execute_process(COMMAND ${VXR} info --json ${file} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "vxr info ${file}: exit status ${rc}: ${err}")
    endif()
    string(JSON v GET "${out}" model_voxels)
    set(${var} ${v} PARENT_SCOPE)
endfunction()
if(DEFINED COPY) # the world before the edits
    set(scene ${COPY})
endif()
model_voxels(${scene} before)

include(${CMAKE_CURRENT_LIST_DIR}/light_args.cmake)
view_light_args("${summary}" light_args)
set(camera_base --eye ${eye} --target ${target} --fov ${fov} --size ${width}x${height} --validate)
if(NOT cull)
    list(APPEND camera_base --no-cull)
endif()
set(camera ${camera_base} ${light_args})
execute_process(COMMAND ${VXR} render ${scene} ${camera} --out ${dir}/unedited.png
                RESULT_VARIABLE rc ERROR_VARIABLE err)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${shot} ${dir}/unedited.png
                RESULT_VARIABLE differ)
if(NOT rc EQUAL 0 OR NOT differ)
    message(FATAL_ERROR "the viewer's frame ${shot} shows no edit (render of ${scene}: ${rc} ${err})")
endif()
foreach(saved ${saves})
    if(NOT EXISTS ${dir}/${saved})
        message(FATAL_ERROR "vxr view: the script did not save ${dir}/${saved}")
    endif()
    model_voxels(${dir}/${saved} after)
    if(after EQUAL before)
        message(FATAL_ERROR "${saved}: ${after} voxels, as many as ${scene}: the edits did nothing")
    endif()
    execute_process(COMMAND ${VXR} render ${dir}/${saved} ${camera} --out ${dir}/${saved}.png
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
        message(FATAL_ERROR "vxr render ${saved}: exit status ${rc}: ${err}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${shot} ${dir}/${saved}.png
                    RESULT_VARIABLE differ)
    if(differ)
        message(FATAL_ERROR "the viewer's frame ${shot} differs from vxr render's ${dir}/${saved}.png")
    endif()
    message(STATUS "${saved}: ${after} voxels (${scene}: ${before}), frame equal")
endforeach()

list(GET saves -1 last)
execute_process(COMMAND ${VXR} render ${dir}/${last} ${camera_base} --grid ${grid}
                        --out ${dir}/grid.png --hits ${dir}/hits.txt
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vxr render --hits ${last}: exit status ${rc}: ${err}")
endif()
string(REPLACE "," ";" xy "${CURSOR}")
list(GET xy 0 x)
list(GET xy 1 y)
math(EXPR skip "${y} * ${width} + ${x}")
file(STRINGS ${dir}/hits.txt records)
list(GET records ${skip} expected)
if(NOT pick MATCHES "^{\"hit\":true")
    message(FATAL_ERROR "vxr view: nothing under the mouse at ${CURSOR} (the case should pick): ${pick}")
endif()
if(NOT pick STREQUAL expected)
    message(FATAL_ERROR "the viewer's pick at ${CURSOR}:\n${pick}\nrender --hits there:\n${expected}")
endif()

if(NO_OVERWRITE)
    get_filename_component(ext ${scene} EXT)
    set(copy ${dir}/own${ext})
    file(COPY_FILE ${scene} ${copy})
    file(WRITE ${dir}/save.edits "0 save\n")
    execute_process(
        COMMAND ${XVFB_RUN} -n ${SERVER} -s "-screen 0 1280x1024x24" ${VXR} view ${copy} --size 32x24
                --frames 2 --save ${copy} --edit-script ${dir}/save.edits
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "^vxr: [^\n]*save\\.edits:1: not saving over [^\n]*\n$")
        message(FATAL_ERROR "vxr view --save over its own file: exit status ${rc}, stderr:\n${err}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${scene} ${copy} RESULT_VARIABLE differ)
    if(differ)
        message(FATAL_ERROR "vxr view --save ${copy} changed the scene's own file")
    endif()
endif()
message(STATUS "${scene}: ${width}x${height} grid ${grid}, ${undo} to undo, ${redo} to redo, pick equal")
