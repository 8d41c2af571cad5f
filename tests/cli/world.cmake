# vxr world build (DESIGN.md §5): a scene cut into a world; `info` on the
# world (its directory or its index) reports the scene's instanced voxels
# and bounds, and its render is the scene's, byte for byte; a world is not
# written over; bad arguments exit 2.
#   cmake -DVXR=vxr -DSCENE=in.vox -DWORK=dir -P world.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(world ${WORK}/world)

function(run want_rc)
    execute_process(COMMAND ${VXR} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL want_rc)
        message(FATAL_ERROR "vxr ${ARGN}: exit status ${rc}, expected ${want_rc}: ${err}")
    endif()
    set(out "${out}" PARENT_SCOPE)
    set(err "${err}" PARENT_SCOPE)
endfunction()

run(0 world build ${SCENE} --out ${world} --chunk 32 --json)
if(NOT out MATCHES "^{\"world\":\"[^\"]*\",\"chunk\":32,\"chunks\":[1-9][0-9]*,\"voxels\":[1-9]")
    message(FATAL_ERROR "world build --json printed: ${out}")
endif()
run(0 info --json ${SCENE})
string(REGEX MATCH "\"instanced_voxels\":[0-9]+,\"aabb_min\":[^]]*\\],\"aabb_max\":[^]]*\\]" want
       "${out}")
foreach(path ${world} ${world}/world.vxw)
    run(0 info --json ${path})
    string(FIND "${out}" "${want}" at)
    if(at EQUAL -1 OR NOT out MATCHES "\"format\":\"vxr world\"")
        message(FATAL_ERROR "info ${path}: ${out}\nwithout ${want}")
    endif()
endforeach()

foreach(scene ${SCENE} ${world})
    get_filename_component(name ${scene} NAME)
    run(0 render ${scene} --light flat --size 64x48 --out ${WORK}/${name}.png)
    file(SHA256 ${WORK}/${name}.png sha_${name})
endforeach()
get_filename_component(scene_name ${SCENE} NAME)
if(NOT sha_world STREQUAL sha_${scene_name})
    message(FATAL_ERROR "the world renders other pixels than ${SCENE}")
endif()

run(1 world build ${SCENE} --out ${world})
if(NOT err MATCHES "exists")
    message(FATAL_ERROR "world build over a world: ${err}")
endif()
run(2 world build ${SCENE} --out ${WORK}/w2 --chunk 48)
run(2 world build ${SCENE})
run(2 world build --out ${WORK}/w3)
run(1 world build @demo --out ${WORK}/w4)
if(EXISTS ${WORK}/w2 OR EXISTS ${WORK}/w4)
    message(FATAL_ERROR "a refused world build left a directory")
endif()
