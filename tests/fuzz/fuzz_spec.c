/* libFuzzer target: the built-in scene specs ("demo", "menger:L",
 * "terrain:N", "world:K": what follows the '@' of a scene argument,
 * core/procgen.c) through vxr_scene_generate, then the build of what it
 * generates when that is small.
 *
 * The parser's own limits (menger 0..6, terrain 1..8192, world 1..1000000)
 * allow scenes of up to 64 M voxels (menger:6) or a 8192^2 heightfield,
 * far too big for a fuzzer's per-input budget, so a spec that names a scene
 * with a parameter above FUZZ_MAX_* is not generated: the harness reads the
 * parameter as the parser does (digits after the first ':') and skips it.
 * Such specs still reach the parser through vxr_scene_generate when they
 * are malformed (a non-digit, an empty parameter), which is where its
 * error paths are. "demo" and "world:K" cost a quarter to half a second
 * each under the sanitizers whatever K (a 1024^2 terrain), so each of them
 * is generated once per process: later inputs that name them again
 * only go through the parser (a spec with a trailing byte, a bad
 * parameter). */
#include <stdlib.h>
#include <string.h>
#include "vxr/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_SPEC = 64, FUZZ_MAX_MENGER = 3, FUZZ_MAX_TERRAIN = 96, FUZZ_MAX_WORLD = 4 };
enum { FUZZ_MAX_BUILD_VOXELS = 300000 };

/* True when spec names a scene the parser would accept with a parameter
 * too large for fuzzing. */
static int too_big(const char *spec) {
    static const struct {
        const char *name;
        long cap;
    } caps[] = {
        {"menger", FUZZ_MAX_MENGER}, {"terrain", FUZZ_MAX_TERRAIN}, {"world", FUZZ_MAX_WORLD}};
    const char *colon = strchr(spec, ':');
    if (!colon) return 0;
    size_t len = (size_t)(colon - spec);
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        if (strlen(caps[i].name) != len || strncmp(spec, caps[i].name, len)) continue;
        long v = 0;
        for (const char *c = colon + 1; *c; c++) {
            if (*c < '0' || *c > '9') return 0; /* the parser refuses it */
            if (v <= caps[i].cap) v = v * 10 + (*c - '0');
        }
        return v > caps[i].cap;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > FUZZ_MAX_SPEC) return 0;
    char spec[FUZZ_MAX_SPEC + 1];
    memcpy(spec, data, size);
    spec[size] = '\0';
    if (too_big(spec)) return 0;
    static unsigned generated; /* bit 0: demo, bit k: world:k */
    unsigned bit = 0;
    if (!strcmp(spec, "demo")) bit = 1;
    /* the spec as vxr_scene_generate reads it: up to the first NUL byte
     * (counting the bytes after one made "world:1\0..." generate the world
     * again on every input: half a second each) */
    const size_t len = strlen(spec);
    if (!strncmp(spec, "world:", 6) && spec[6] && strspn(spec + 6, "0123456789") == len - 6) {
        long k = strtol(spec + 6, NULL, 10); /* <= FUZZ_MAX_WORLD: too_big said so */
        if (k >= 1) bit = 1u << k;
    }
    if (generated & bit) return 0;
    generated |= bit;
    vxr_scene_src src;
    vxr_error err;
    /* Also the NULL destination and NULL spec paths, once each. */
    if (size == 0) {
        if (vxr_scene_generate("demo", NULL, &err) == VXR_OK) abort();
        if (vxr_scene_generate(NULL, &src, &err) == VXR_OK) abort();
        vxr_scene_src_free(&src);
    }
    if (vxr_scene_generate(spec, &src, &err) != VXR_OK) {
        if (src.model_count || src.models || src.instance_count || src.instances) abort();
        if (!err.message[0]) abort(); /* a refusal says why */
        return 0;
    }
    if (src.model_count == 0 || src.instance_count == 0) abort();
    size_t voxels = 0;
    for (uint32_t i = 0; i < src.model_count; i++) voxels += src.models[i].count;
    if (voxels <= FUZZ_MAX_BUILD_VOXELS) {
        vxr_scene *scene;
        if (vxr_scene_build(&src, &scene, &err) != VXR_OK) abort();
        vxr_scene_destroy(scene);
    }
    vxr_scene_src_free(&src);
    return 0;
}
