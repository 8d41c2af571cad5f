# Light (DESIGN.md §5 "Light"): pickcheck --light lit holds every pixel's
# colour, sun visibility, occlusion, albedo, normal and instance against the
# CPU reference (core/light.c), bit for bit on lavapipe, besides its pick
# record. Included from tests/cli/CMakeLists.txt after pickcheck.cmake.

# Every real file, and the built-in scene.
file(GLOB lit_files ${VXR_TEST_DATA}/*.vox)
foreach(f ${lit_files} @demo)
    get_filename_component(base ${f} NAME_WE)
    string(REPLACE "@" "" base "${base}")
    vxr_pickcheck(lit_${base} "${f}|--light|lit|--samples|2|--size|96x72")
endforeach()
# Samples over several dispatches and submits (4 and 8 at a time), a wide
# sun (soft shadows), a short occlusion radius, a constant sky, occlusion
# off, a low sun behind the camera, rotated and overlapping instances, an
# eye inside a voxel and a host camera.
vxr_pickcheck(lit_many_samples "${store}|--light|lit|--samples|9|--size|64x48")
vxr_pickcheck(lit_soft_sun "${store}|--light|lit|--samples|3|--sun|120,30,8|--ao-radius|3")
vxr_pickcheck(lit_sky "${store}|--light|lit|--sky|0.2,0.3,0.5|--ao-radius|0|--sun|200,5")
vxr_pickcheck(lit_rotated "${xform}|--light|lit|--samples|3|--view|1")
vxr_pickcheck(lit_overlap "${ontop}|--light|lit|--samples|2|--eye|10,20,400|--target|10,0,40")
vxr_pickcheck(lit_eye_in_solid "${store}|--light|lit|--eye|0.5,0.5,14.5|--target|10,7,3")
vxr_pickcheck(lit_host_camera "${store}|--light|lit|--camera|${cli_data}/camera_ortho.json")

# Usage: light options that do not go together or do not parse.
foreach(case IN ITEMS "bad_model|--light|bright" "bad_samples|--samples|0"
                      "bad_sun|--sun|10" "bad_elevation|--sun|0,91" "bad_diameter|--sun|0,45,91"
                      "bad_sky|--sky|1,2" "bad_radius|--ao-radius|-1" "bad_aov|--aov|colour:x.bin"
                      "aov_flat|--light|flat|--aov|albedo:x.bin" "denoise_flat|--light|flat|--denoise"
                      "grid_lit|--light|lit|--grid|4" "aov_twice|--aov|sun:a.bin|--aov|sun:b.bin"
                      "aov_depth_twice|--aov|depth:a.bin|--depth|b.bin")
    string(REPLACE "|" ";" parts "${case}")
    list(POP_FRONT parts name)
    string(REPLACE ";" "|" opts "${parts}")
    vxr_cli_gpu_test(light_${name} ARGS "render|@demo|${cam}|--size|8x6|--out|${cli_work}/never.png|${opts}" RC 2)
endforeach()

# --aov: every output written, W * H values of its size each.
set(aov_args "render|${store}|${cam}|--size|16x12|--out|${cli_work}/aov.png")
foreach(kind albedo normal depth instance sun ao motion)
    string(APPEND aov_args "|--aov|${kind}:${cli_work}/aov_${kind}.bin")
endforeach()
vxr_cli_gpu_test(render_aovs ARGS "${aov_args}" STDERR_LINES 0)

# Path mode: on lavapipe the CPU reference repeats every path ray for ray
# (metal, glass and emissive materials of the study's MATL included), so
# pickcheck holds it exact too.
set(study ${VXR_TEST_DATA}/bevy_vox_scene__study.vox)
vxr_pickcheck(path_store "${store}|--light|path|--samples|2|--size|64x48")
vxr_pickcheck(path_study "${study}|--light|path|--samples|2|--size|80x60|--eye|100,220,90|--target|-60,40,0")
vxr_pickcheck(path_rotated "${xform}|--light|path|--samples|2|--size|64x48|--view|1")
