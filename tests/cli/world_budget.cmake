# `vxr bench world --budget B` keeps the GPU within B: every frame's
# gpu_bytes, the device's peak (old and new buffers of a section laid out
# afresh included) and the chunks' bytes stay under it, while chunks are
# still loaded and evicted.
#   cmake -DVXR=vxr -DPATH_FILE=path.txt -DBUDGET=bytes -P world_budget.cmake
execute_process(COMMAND ${VXR} bench world --validate @terrain:65536 --path ${PATH_FILE} --size 64x48
                        --budget ${BUDGET} --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "bench world exited ${rc}:\n${err}")
endif()
string(REGEX REPLACE "\n$" "" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(frames 0)
set(loaded 0)
set(evicted 0)
foreach(line IN LISTS lines)
    string(JSON frame ERROR_VARIABLE no_frame GET "${line}" frame)
    if(no_frame)
        string(JSON peak GET "${line}" gpu_peak_bytes)
        string(JSON chunks_peak GET "${line}" resident_peak_bytes)
        set(last "${line}")
        continue()
    endif()
    math(EXPR frames "${frames} + 1")
    string(JSON gpu GET "${line}" gpu_bytes)
    string(JSON res GET "${line}" resident_bytes)
    string(JSON l GET "${line}" loaded)
    string(JSON e GET "${line}" evicted)
    math(EXPR loaded "${loaded} + ${l}")
    math(EXPR evicted "${evicted} + ${e}")
    if(gpu GREATER BUDGET OR res GREATER BUDGET)
        message(FATAL_ERROR "frame ${frame}: gpu_bytes ${gpu}, resident_bytes ${res}: over ${BUDGET}")
    endif()
endforeach()
if(NOT DEFINED peak OR peak GREATER BUDGET OR chunks_peak GREATER BUDGET)
    message(FATAL_ERROR "peak GPU bytes '${peak}', chunks' '${chunks_peak}': over ${BUDGET}\n${out}")
endif()
# (frames never wait for loads: how many land depends on the machine's
# speed, so the check asks for some, evicted, and a view the budget
# leaves incomplete, which it does whatever the timing)
string(JSON complete GET "${last}" complete)
if(frames LESS 12 OR loaded LESS 1 OR evicted LESS 1 OR complete)
    message(FATAL_ERROR "${frames} frames, ${loaded} chunks loaded, ${evicted} evicted: the "
                        "budget was not exercised\n${out}")
endif()
message(STATUS "${frames} frames, ${loaded} loaded, ${evicted} evicted, GPU peak ${peak} of ${BUDGET}")
