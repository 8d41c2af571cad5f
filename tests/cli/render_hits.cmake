# vxr render --hits: W*H lines, each a pick record of `vxr pick`'s form, and
# hits where the scene is (the picture's centre looks at the scene).
#   cmake -DVXR=vxr -DSCENE=file -DWORK=dir -P render_hits.cmake
file(MAKE_DIRECTORY ${WORK})
set(hits ${WORK}/hits.jsonl)
file(REMOVE ${hits})
execute_process(COMMAND ${VXR} render --validate ${SCENE} --eye 90,-90,60 --target 0,0,0 --size 16x12
                        --out ${WORK}/hits.png --hits ${hits}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "vxr render --hits: exit status ${rc}: ${err}")
endif()
file(STRINGS ${hits} lines)
list(LENGTH lines n)
if(NOT n EQUAL 192)
    message(FATAL_ERROR "${n} lines in ${hits}, expected 16 x 12 = 192")
endif()
set(num "-?[0-9][0-9.e+-]*")
set(vec "\\[${num},${num},${num}\\]")
set(record "^{\"hit\":true,\"instance\":[0-9]+,\"voxel\":${vec},\"size\":1,\"world_min\":${vec},\"world_max\":${vec},\"t\":${num},\"point\":${vec},\"face\":-?[0-9]+,\"normal\":${vec},\"corner\":-?[0-9]+,\"corner_point\":${vec},\"edge\":-?[0-9]+,\"edge_mid\":${vec},\"color\":\\[[0-9]+,[0-9]+,[0-9]+,[0-9]+\\]}$")
set(hit_count 0)
foreach(line IN LISTS lines)
    if(line MATCHES "${record}")
        math(EXPR hit_count "${hit_count} + 1")
    elseif(NOT line STREQUAL "{\"hit\":false}")
        message(FATAL_ERROR "not a pick record: ${line}")
    endif()
endforeach()
list(GET lines 102 centre) # row 6, column 6: on the building
if(hit_count LESS 20 OR NOT centre MATCHES "^{\"hit\":true")
    message(FATAL_ERROR "${hit_count} hits of 192; centre pixel: ${centre}")
endif()
