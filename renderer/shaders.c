/* The compute shaders, compiled by glslc at build time (renderer/CMakeLists.txt)
 * and embedded: no shader file is searched for at run time. */
#include "internal.h"

const uint32_t vxr_trace_spv[] =
#include "trace.comp.inc"
    ;
const size_t vxr_trace_spv_size = sizeof vxr_trace_spv;
