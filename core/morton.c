/* Morton codes (Morton 1966): bit i of x, y, z lands at 3i+2, 3i+1, 3i, so a
 * key's 3-bit digits are child indices 4x + 2y + z from the root down. The
 * seed's interleave loop must run down to i = 0 (DESIGN.md §3 errata). */
#include "internal.h"

uint64_t vxr_ileave3(uint32_t x, uint32_t y, uint32_t z) {
    return vxr_spread3(x) << 2 | vxr_spread3(y) << 1 | vxr_spread3(z);
}

static uint32_t compact3(uint64_t x) {
    x &= 0x1249249249249249ull;
    x = (x ^ (x >> 2)) & 0x10c30c30c30c30c3ull;
    x = (x ^ (x >> 4)) & 0x100f00f00f00f00full;
    x = (x ^ (x >> 8)) & 0x1f0000ff0000ffull;
    x = (x ^ (x >> 16)) & 0x1f00000000ffffull;
    x = (x ^ (x >> 32)) & 0x1fffffull;
    return (uint32_t)x;
}

void vxr_deinterleave3(uint64_t key, uint32_t dest[3]) {
    dest[0] = compact3(key >> 2);
    dest[1] = compact3(key >> 1);
    dest[2] = compact3(key);
}
