# vxr pickcheck on lavapipe (issue "pick validation"): the GPU's record for
# every pixel must equal the CPU pick exactly, t included. Included from
# tests/cli/CMakeLists.txt after vxr_cli_gpu_test.
set(pc_ok "[0-9]+ passed, 0 failed\n$")
function(vxr_pickcheck name)
    vxr_cli_gpu_test(pickcheck_${name} ARGS "pickcheck|--validate|${ARGN}" STDOUT "${pc_ok}"
                     STDERR_LINES 0)
endfunction()

# Every real file from three orbit cameras.
file(GLOB pc_files ${VXR_TEST_DATA}/*.vox)
foreach(f ${pc_files})
    get_filename_component(base ${f} NAME_WE)
    foreach(view 0 3 5)
        vxr_pickcheck(${base}_view${view} "${f}|--view|${view}")
    endforeach()
endforeach()

set(store ${VXR_TEST_DATA}/mmmm__scene_store8.vox)
# Axis-aligned views: zero direction components (down Z the up vector is +Y).
vxr_pickcheck(axis_z "${store}|--eye|0.5,0.5,90|--target|0.5,0.5,0")
vxr_pickcheck(axis_x "${store}|--eye|-120,0,0|--target|0,0,0")
vxr_pickcheck(axis_y "${store}|--eye|3,140,-5|--target|3,0,-5")
# Eyes exactly on cell boundaries (integer corners), and on one face plane.
vxr_pickcheck(eye_on_corner "${store}|--eye|40,-40,30|--target|0,0,0")
vxr_pickcheck(eye_on_face "${store}|--eye|40.5,-40.5,20|--target|0,0,20")
# Inside the model: in the empty space of the octree, and inside a solid
# voxel (every ray t = 0, face -1; world cell (0,0,14) is solid).
vxr_pickcheck(eye_in_empty_space "${store}|--eye|2,3,-10|--target|30,10,-20")
vxr_pickcheck(eye_in_solid "${store}|--eye|0.5,0.5,14.5|--target|10,7,3")
# Grazing: with an odd height the middle row's rays lie exactly in the
# plane z = 15, the top face of the cells below.
vxr_pickcheck(grazing_face "${store}|--eye|-80,0.5,15|--target|80,0.5,15|--size|128x97")
vxr_pickcheck(grazing_diagonal "${store}|--eye|-80,-80,15|--target|0,0,15|--size|97x97")
# Many overlapping instances; rotated instances.
set(ontop ${VXR_TEST_DATA}/vengi__8ontop.vox)
set(xform ${VXR_TEST_DATA}/vengi__test-transform.vox)
vxr_pickcheck(overlap_top "${ontop}|--eye|10,20,400|--target|10,0,40")
vxr_pickcheck(overlap_side "${ontop}|--view|2|--size|160x120")
vxr_pickcheck(rotated_side "${xform}|--view|1|--size|160x120")
vxr_pickcheck(rotated_axis "${xform}|--eye|0,0,200|--target|0,0,0")
# Grids 1, 2, 4 and 16.
foreach(grid 1 2 4 16)
    vxr_pickcheck(grid${grid}_store "${store}|--grid|${grid}")
    vxr_pickcheck(grid${grid}_rotated "${xform}|--view|4|--grid|${grid}")
endforeach()
vxr_pickcheck(grid16_overlap "${ontop}|--view|6|--grid|16")

# Level of detail (--lod BIAS, DESIGN.md "Level of detail"): the walk stops
# at cubes under BIAS pixels, their records and mean colours the CPU's,
# bit for bit: every real file at biases 1 and 4, and rotated and scaled
# instances, overlapping ones, grids, host cameras (perspective and
# orthographic: a fixed footprint).
foreach(f ${pc_files})
    get_filename_component(base ${f} NAME_WE)
    foreach(bias 1 4)
        vxr_pickcheck(lod${bias}_${base} "${f}|--view|3|--lod|${bias}|--size|96x72")
    endforeach()
endforeach()
vxr_pickcheck(lod_rotated "${xform}|--view|1|--lod|3|--size|160x120")
vxr_pickcheck(lod_overlap "${ontop}|--view|6|--lod|8")
vxr_pickcheck(lod_grid "${store}|--grid|2|--lod|6")
vxr_pickcheck(lod_perspective "${store}|--camera|${cli_data}/camera_perspective.json|--lod|3")
vxr_pickcheck(lod_ortho "${store}|--camera|${cli_data}/camera_ortho.json|--lod|3")
vxr_pickcheck(lod_far "${store}|--eye|900,-700,500|--target|0,0,0|--lod|1")
# A frame whose near pixels cannot stop coarse runs the plain walk there, the
# walk that stops at cells only where no ray can stop at an octant, and the
# whole level of detail's walk over the rest (DESIGN.md, "A level of
# detail's walk only where a ray may stop coarse"). Views of a generated
# world (workgroup rows of 45): the top 5 stop at cells, none at octants;
# rows 17-25 at cells and octants, 26-44 at cells only, the rest plain; at
# bias 1, rows 17-25 at cells only. Each stops rays at cubes.
set(pc_world "@terrain:65536|--eye|-3404,203.392,220|--size|640x360")
vxr_pickcheck(lod_split "${pc_world}|--target|-3204,203.392,60|--lod|1")
vxr_pickcheck(lod_split_odd "${pc_world}|--target|-3204,203.392,180|--lod|2")
vxr_pickcheck(lod_split_even "${pc_world}|--target|-3204,203.392,180|--lod|1")

# K copies of one model at one spot in a .vox scene graph: every copy ties
# at the same t and the lowest instance must win; on lavapipe, whose
# shaders end all loops of an invocation after 65,535 iterations, tracing
# each copy once cut the traces short (wrong t, wrong instance, silently)
# before the instance hierarchy collapsed identical instances.
add_executable(stacked_vox ${CMAKE_CURRENT_SOURCE_DIR}/stacked_vox.c)
foreach(k 6000 8193 65536)
    add_test(NAME cli_stacked_${k}_file COMMAND stacked_vox ${k} ${cli_work}/stacked_${k}.vox)
    set_tests_properties(cli_stacked_${k}_file PROPERTIES FIXTURES_SETUP stacked_${k} LABELS gpu)
    vxr_pickcheck(stacked_${k} "${cli_work}/stacked_${k}.vox|--size|16x12")
    set_tests_properties(cli_pickcheck_stacked_${k} PROPERTIES FIXTURES_REQUIRED stacked_${k})
endforeach()
add_test(NAME cli_pick_gpu_stacked
         COMMAND ${CMAKE_COMMAND} -DVXR=$<TARGET_FILE:vxr> -DSCENE=${cli_work}/stacked_65536.vox
                 -DGRID=1 -DWORK=${cli_work} -DNAME=stacked -P ${CMAKE_CURRENT_SOURCE_DIR}/pick_gpu.cmake)
set_tests_properties(cli_pick_gpu_stacked PROPERTIES LABELS gpu FIXTURES_REQUIRED stacked_65536)
if(VXR_LAVAPIPE_ICD)
    set_tests_properties(cli_pick_gpu_stacked PROPERTIES ENVIRONMENT "${VXR_GPU_ENV}")
endif()

# The command line's own contract.
vxr_cli_gpu_test(pickcheck_bad_view ARGS "pickcheck|@demo|--view|9" RC 2)
vxr_cli_gpu_test(pickcheck_bad_tolerance ARGS "pickcheck|@demo|--tolerance|-1" RC 2)
vxr_cli_gpu_test(pickcheck_bad_lod ARGS "pickcheck|@demo|--lod|-1" RC 2 STDERR "--lod takes a bias")
vxr_cli_gpu_test(pickcheck_lod_lit ARGS "pickcheck|@demo|--lod|2|--light|lit" RC 2
                 STDERR "--lod is for flat frames")
vxr_cli_gpu_test(pickcheck_missing_file
    ARGS "pickcheck|${cli_data}/no_such_file.vox" RC 1 STDERR "no_such_file\\.vox" STDERR_LINES 1)
vxr_cli_gpu_test(pickcheck_no_device ARGS "pickcheck|@demo" RC 3
    STDERR "^vxr: pickcheck: no usable Vulkan device: " STDERR_LINES 1)
set_tests_properties(cli_pickcheck_no_device PROPERTIES ENVIRONMENT
    "VK_DRIVER_FILES=${cli_work}/no_such_icd.json;VK_ICD_FILENAMES=${cli_work}/no_such_icd.json")
