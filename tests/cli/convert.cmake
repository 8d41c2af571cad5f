# `vxr convert` to .vxo, .vox, .qb and .vl32, checked with `vxr info --json`.
#   cmake -DVXR=path/to/vxr -DIN=scene.vox -DWORK=dir -DNAME=prefix
#         [-DVL32_VOXELS=n] -P convert.cmake
# The .vxo and the .vox must report the same figures as IN (build_s aside,
# and 0 for the .vxo: nothing is built); the .vl32 holds the distinct world
# cells of IN (VL32_VOXELS) in one identity instance, within the same bounds.
function(vxr_info path out_var)
    execute_process(COMMAND ${VXR} info ${path} --json RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "vxr info ${path}: exit ${rc}\n${err}")
    endif()
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(vxr_convert in out)
    file(REMOVE ${out})
    execute_process(COMMAND ${VXR} convert ${in} ${out} RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS ${out})
        message(FATAL_ERROR "vxr convert ${in} ${out}: exit ${rc}\n${err}")
    endif()
endfunction()

# The figures without the scene name, the build time and what the file
# format held.
function(figures json out_var)
    string(REGEX REPLACE "\"scene\":\"[^\"]*\"," "" json "${json}")
    string(REGEX REPLACE ",\"build_s\":[0-9.]+" "" json "${json}")
    string(REGEX REPLACE ",\"format\":\"[^\"]*\",\"read\":\"[^\"]*\",\"skipped\":\"[^\"]*\",\"kept\":\"[^\"]*\"" "" json "${json}")
    string(STRIP "${json}" json)
    set(${out_var} "${json}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${WORK})
vxr_info(${IN} src_json)
figures("${src_json}" src)

set(vxo ${WORK}/${NAME}.vxo)
vxr_convert(${IN} ${vxo})
vxr_info(${vxo} vxo_json)
figures("${vxo_json}" from_vxo)
if(NOT from_vxo STREQUAL src)
    message(FATAL_ERROR "${vxo} reports\n  ${from_vxo}\n${IN} reports\n  ${src}")
endif()
if(NOT vxo_json MATCHES "\"build_s\":0.000000,")
    message(FATAL_ERROR "loading ${vxo} built something: ${vxo_json}")
endif()

# .vox (version 200): loaded back, the same figures (no model of these files
# needs splitting into 256^3 blocks).
set(vox ${WORK}/${NAME}.vox)
vxr_convert(${IN} ${vox})
vxr_info(${vox} vox_json)
figures("${vox_json}" from_vox)
if(NOT from_vox STREQUAL src)
    message(FATAL_ERROR "${vox} reports\n  ${from_vox}\n${IN} reports\n  ${src}")
endif()
# what a .vox kept unread (render settings, cameras, notes, frames) it keeps
if(IN MATCHES "\\.vox$")
    string(REGEX MATCH "\"kept\":\"[^\"]*\"" kept_in "${src_json}")
    string(REGEX MATCH "\"kept\":\"[^\"]*\"" kept_out "${vox_json}")
    if(NOT kept_in STREQUAL kept_out)
        message(FATAL_ERROR "${vox} keeps ${kept_out}, ${IN} ${kept_in}")
    endif()
endif()

string(REGEX MATCH "\"aabb_min\":[^]]*\\],\"aabb_max\":[^]]*\\]" bounds "${src_json}")

# .qb (one matrix per visible instance): the same instanced voxels within
# the same bounds.
set(qb ${WORK}/${NAME}.qb)
vxr_convert(${IN} ${qb})
vxr_info(${qb} qb_json)
string(REGEX MATCH "\"instanced_voxels\":[0-9]+," voxels "${src_json}")
foreach(want "${voxels}" "${bounds}")
    string(FIND "${qb_json}" "${want}" at)
    if(at EQUAL -1 OR want STREQUAL "")
        message(FATAL_ERROR "${qb} reports\n  ${qb_json}\nwithout ${want}")
    endif()
endforeach()

if(DEFINED VL32_VOXELS)
    set(vl32 ${WORK}/${NAME}.vl32)
    vxr_convert(${IN} ${vl32})
    vxr_info(${vl32} vl32_json)
    foreach(want "\"models\":1,\"instances\":1,\"instanced_voxels\":${VL32_VOXELS},"
                 "${bounds}" "\"model_voxels\":${VL32_VOXELS},")
        string(FIND "${vl32_json}" "${want}" at)
        if(at EQUAL -1)
            message(FATAL_ERROR "${vl32} reports\n  ${vl32_json}\nwithout ${want}")
        endif()
    endforeach()
endif()
