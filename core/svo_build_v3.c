/* The bulk build (svo_build.c) compiled a second time, for x86-64-v3
 * (AVX2, BMI1/2, POPCNT, LZCNT: CPUs since about 2013), where the compiler
 * takes -march=x86-64-v3. svo_build.c calls it on CPUs that have that
 * level, so the library still runs on any x86-64 (issue 17: the baseline
 * target has no POPCNT and no 32-bit vector min/max, and the bulk build
 * measured 1.2 to 1.6 times faster this way; BENCHMARKS.md). It builds no
 * other octree: the tests hold both builds equal (VXR_CPU=baseline,
 * vxr_build_isa). */
#define VXR_SVO_V3
#include "svo_build.c"
