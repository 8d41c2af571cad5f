# A scene holding a model with no voxels (issue 26): every voxel cleared,
# saved as .vxo, then rendered, picked on the GPU and benchmarked. The GPU
# upload once copied from the empty model's NULL arrays (UBSan: memcpy from
# NULL), so this runs in CI's sanitizer step too.
#   cmake -DVXR=vxr -DSCENE=robot.vox -DWORK=dir -P empty_model.cmake
set(dir ${WORK}/empty_model)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
file(WRITE ${dir}/clear.txt "box 0 -100 -100 -100 100 100 100 clear\n")
file(WRITE ${dir}/rays.txt "0 0 50 0 0 -1\n")
set(steps
    "edit|${SCENE}|--ops|${dir}/clear.txt|--out|${dir}/empty.vxo"
    "info|${dir}/empty.vxo"
    "render|${dir}/empty.vxo|--eye|30,-30,20|--target|0,0,0|--size|16x12|--out|${dir}/empty.png|--validate"
    "pick|${dir}/empty.vxo|--rays|${dir}/rays.txt|--gpu|--validate|--json"
    "bench|render|${dir}/empty.vxo|--size|16x12|--json")
foreach(step ${steps})
    string(REPLACE "|" ";" args "${step}")
    execute_process(COMMAND ${VXR} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "vxr ${args}: exit ${rc}\n${out}${err}")
    endif()
endforeach()
if(NOT out MATCHES "\"mrays_s\"")
    message(FATAL_ERROR "bench render printed\n${out}")
endif()
