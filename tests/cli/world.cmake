# vxr world build (DESIGN.md §5): a scene cut into a world; `info` on the
# world (its directory or its index) reports the scene's instanced voxels
# and bounds, and its render at full resolution (--lod 0) is the scene's,
# byte for byte; `edit` in place writes back what `edit` to a file saves; a
# world is not written over by a build nor by another world's edits; bad
# arguments exit 2.
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
    run(0 render ${scene} --light flat --lod 0 --size 64x48 --out ${WORK}/${name}.png)
    file(SHA256 ${WORK}/${name}.png sha_${name})
endforeach()
get_filename_component(scene_name ${SCENE} NAME)
if(NOT sha_world STREQUAL sha_${scene_name})
    message(FATAL_ERROR "the world renders other pixels than ${SCENE}")
endif()

# edit in place: the world written back holds what the same edits saved as
# a file hold (voxels past a chunk's side moved to their chunk, a new one
# made): the same instanced voxels and the same render
file(WRITE ${WORK}/ops.txt "set 0 0 0 0 5\nset 0 -1 0 0 7\nset 0 3 3 40 9\n"
     "box 0 0 0 0 8 8 8 clear\nsphere 1 40 10 10 12 #ff0000\n")
run(0 edit ${world} --ops ${WORK}/ops.txt --out ${WORK}/edited.vl32)
file(COPY ${world} DESTINATION ${WORK}/copy)
run(0 edit ${WORK}/copy/world --ops ${WORK}/ops.txt --out ${WORK}/copy/world/world.vxw --json)
if(NOT out MATCHES "\"out\":\"[^\"]*world.vxw\"")
    message(FATAL_ERROR "edit in place printed: ${out}")
endif()
foreach(scene ${WORK}/edited.vl32 ${WORK}/copy/world)
    run(0 info --json ${scene})
    string(REGEX MATCH "\"instanced_voxels\":[0-9]+,\"aabb_min\":[^]]*\\],\"aabb_max\":[^]]*\\]"
           got_${scene} "${out}")
    run(0 render ${scene} --light flat --lod 0 --size 64x48 --out ${WORK}/e.png)
    file(SHA256 ${WORK}/e.png sha_${scene})
endforeach()
if(NOT got_${WORK}/edited.vl32 STREQUAL got_${WORK}/copy/world
   OR NOT sha_${WORK}/edited.vl32 STREQUAL sha_${WORK}/copy/world)
    message(FATAL_ERROR "a world edited in place differs from the same edits saved as a file: "
                        "${got_${WORK}/edited.vl32} against ${got_${WORK}/copy/world}")
endif()
run(2 edit ${world} --ops ${WORK}/ops.txt --out ${WORK}/copy/world)

# a generated world built a chunk at a time: the @terrain:600 scene's world
run(0 world build @terrain:600 --out ${WORK}/t600 --chunk 64 --json)
set(generated "${out}")
run(0 info --json @terrain:600)
string(REGEX MATCH "\"instanced_voxels\":[0-9]+" want "${out}")
string(REGEX MATCH "\"voxels\":[0-9]+" got "${generated}")
string(REPLACE "instanced_" "" want "${want}")
if(NOT got STREQUAL want)
    message(FATAL_ERROR "world build @terrain:600: ${generated}\nthe scene has ${want}")
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
