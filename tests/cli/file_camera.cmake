# --file-camera K (DESIGN.md §5): a .vox's camera slot. The render from slot
# 0 is the render from the eye, target and fov the slot gives, byte for
# byte; a .vox saved by convert keeps the slots; orthographic, unset and
# absent slots fail with exit status 2, saying why.
#   cmake -DVXR=vxr -DCAMERA_VOX=camera_vox -DSCENE=in.vox -DWORK=dir -P file_camera.cmake
file(MAKE_DIRECTORY ${WORK})
set(cams ${WORK}/cameras.vox)
execute_process(COMMAND ${CAMERA_VOX} ${SCENE} ${cams} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "camera_vox ${SCENE}: exit status ${rc}")
endif()

function(render out)
    execute_process(COMMAND ${VXR} render --validate --light flat --size 48x32 --out ${out} ${ARGN}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "vxr render ${ARGN}: exit status ${rc}: ${err}")
    endif()
endfunction()

render(${WORK}/slot0.png ${cams} --file-camera 0)
render(${WORK}/eye.png ${cams} --eye 100.5,3,10 --target 0.5,3,10 --fov 40)
file(SHA256 ${WORK}/slot0.png a)
file(SHA256 ${WORK}/eye.png b)
if(NOT a STREQUAL b)
    message(FATAL_ERROR "--file-camera 0 and the eye it gives render differently")
endif()

execute_process(COMMAND ${VXR} convert ${cams} ${WORK}/saved.vox RESULT_VARIABLE rc)
render(${WORK}/saved0.png ${WORK}/saved.vox --file-camera 0)
file(SHA256 ${WORK}/saved0.png c)
if(NOT rc EQUAL 0 OR NOT a STREQUAL c)
    message(FATAL_ERROR "the .vox convert saved lost camera 0 (exit status ${rc})")
endif()

foreach(case "1|is 'orth'" "2|has radius 0" "7|no camera 7 \\(the file has 0, 4, 1, 2\\)")
    string(REPLACE "|" ";" case "${case}")
    list(GET case 0 slot)
    list(GET case 1 want)
    execute_process(COMMAND ${VXR} render ${cams} --file-camera ${slot} --out ${WORK}/no.png
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 2 OR NOT err MATCHES "^vxr: [^\n]*cameras.vox: [^\n]*${want}[^\n]*\n$")
        message(FATAL_ERROR "--file-camera ${slot}: exit status ${rc}, stderr: ${err}")
    endif()
endforeach()
if(EXISTS ${WORK}/no.png)
    message(FATAL_ERROR "a failed render left ${WORK}/no.png")
endif()
