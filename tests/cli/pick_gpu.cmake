# vxr pick --gpu (the renderer's ray picks) prints exactly what vxr pick
# prints, record for record, for rays from many origins (so that culling
# changes the visible set between runs) with zero and non-unit direction
# components, origins on cell boundaries and inside the scene.
# With LOD, at that level of detail (--lod LOD).
#   cmake -DVXR=vxr -DSCENE=file -DGRID=N [-DLOD=BIAS] -DWORK=dir -DNAME=name -P pick_gpu.cmake
file(MAKE_DIRECTORY ${WORK})
set(rays_file ${WORK}/pick_gpu_${NAME}.txt)
set(text "")
foreach(o IN ITEMS "0 0 0" "-40 3 20" "35.5 -20 4" "100 100 60" "-300 -250 100" "2000 0 0")
    foreach(d IN ITEMS "1 0 0" "0 -1 0" "0 0 -1" "-1 -1 -0.5" "2 -3 -1" "-0.25 0.5 -0.125" "1 1 1"
                       "0 0.7 -0.7" "-5 0 -2" "0.001 -1 0")
        string(APPEND text "${o} ${d}\n")
    endforeach()
endforeach()
file(WRITE ${rays_file} "${text}")
foreach(mode cpu gpu)
    set(extra "")
    if(NOT "${LOD}" STREQUAL "")
        list(APPEND extra --lod ${LOD})
    endif()
    if(mode STREQUAL gpu)
        list(APPEND extra --gpu --validate)
    endif()
    execute_process(COMMAND ${VXR} pick ${SCENE} --rays ${rays_file} --grid ${GRID} ${extra}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out_${mode} ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
        message(FATAL_ERROR "vxr pick ${extra}: exit status ${rc}: ${err}")
    endif()
    # the last line holds timings
    string(REGEX REPLACE "{\"rays\":[^\n]*\n$" "" out_${mode} "${out_${mode}}")
endforeach()
if(NOT out_cpu STREQUAL out_gpu)
    file(WRITE ${WORK}/pick_gpu_${NAME}.cpu "${out_cpu}")
    file(WRITE ${WORK}/pick_gpu_${NAME}.gpu "${out_gpu}")
    message(FATAL_ERROR "GPU picks differ from CPU picks: diff ${WORK}/pick_gpu_${NAME}.{cpu,gpu}")
endif()
string(REGEX MATCHALL "\"hit\":true" hits "${out_cpu}")
list(LENGTH hits n)
if(n LESS 5)
    message(FATAL_ERROR "only ${n} of 60 rays hit: the comparison says little")
endif()
message(STATUS "${n} of 60 rays hit; GPU and CPU records identical")
