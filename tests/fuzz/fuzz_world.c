/* libFuzzer target: the world index parser (vxr/world.h's world.vxw, from
 * memory). A parse that fails leaves no entries; one that passes gives as
 * many entries as its `chunks` line says, a chunk side that is a power of
 * two in range, voxel counts within a chunk and cells within +-2^31. */
#include <stdlib.h>
#include "vxr/world.h"
#include "../../core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t side = 0, count = 0;
    vxr_world_entry *e = NULL;
    vxr_error err;
    if (vxr_world_parse_index(data, size, "fuzz", &side, &e, &count, &err) != VXR_OK) {
        if (e || count) abort();
        return 0;
    }
    if (side < VXR_WORLD_CHUNK_MIN || side > VXR_WORLD_CHUNK_MAX || (side & (side - 1)) || !e ||
        count > VXR_WORLD_MAX_CHUNKS)
        abort();
    for (uint32_t i = 0; i < count; i++) {
        if (e[i].voxels < 1 || e[i].voxels > (uint64_t)side * side * side) abort();
        for (int k = 0; k < 3; k++) {
            const int64_t cell = (int64_t)e[i].c[k] * side;
            if (cell < -(1ll << 31) || cell + side > (1ll << 31)) abort();
        }
    }
    free(e);
    return 0;
}
