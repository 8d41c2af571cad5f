# vxr_embed_shaders(VAR shader...): compiles shaders/<shader> with glslc
# (Vulkan 1.2, optimised, includes from shaders/ followed through a
# depfile) into a C array initialiser <binary dir>/spv/<shader>.inc, and
# sets VAR to the list of outputs (add them to the target's sources; the
# directory to its include path).
function(vxr_embed_shaders var)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/spv)
    file(MAKE_DIRECTORY ${dir})
    set(outs "")
    foreach(shader ${ARGN})
        set(src ${PROJECT_SOURCE_DIR}/shaders/${shader})
        set(out ${dir}/${shader}.inc)
        add_custom_command(
            OUTPUT ${out}
            COMMAND ${VXR_GLSLC} --target-env=vulkan1.2 -O -I ${PROJECT_SOURCE_DIR}/shaders
                    -mfmt=c -MD -MF ${out}.d -o ${out} ${src}
            DEPENDS ${src}
            DEPFILE ${out}.d
            COMMENT "Compiling shaders/${shader}"
            VERBATIM)
        list(APPEND outs ${out})
    endforeach()
    set(${var} ${outs} PARENT_SCOPE)
endfunction()
