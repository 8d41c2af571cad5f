/* A small assert-style test runner: each test is a function; CHECK records a
 * failure with file and line and goes on; the runner prints
 * "N passed, N failed" and exits non-zero on any failure. A test that needs
 * something absent (a data folder) calls SKIP. */
#ifndef VXR_TEST_H
#define VXR_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int vxr_test_failures_;
static int vxr_test_skipped_;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);               \
            vxr_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ != vb_) {                                                                          \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    va_, vb_);                                                                     \
            vxr_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

/* Ends the current test as skipped (return from the test function). */
#define SKIP(why)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "skipped: %s\n", why);                                                     \
        vxr_test_skipped_++;                                                                       \
        return;                                                                                    \
    } while (0)

typedef struct vxr_test_case {
    const char *name;
    void (*fn)(void);
} vxr_test_case;

/* Runs the tests whose name contains argv[1] (all when absent). */
static inline int vxr_test_run(const vxr_test_case *tests, int count, int argc, char **argv) {
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < count; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1])) continue;
        int before = vxr_test_failures_, skip_before = vxr_test_skipped_;
        tests[i].fn();
        if (vxr_test_failures_ != before) {
            fprintf(stderr, "FAIL %s\n", tests[i].name);
            failed++;
        } else if (vxr_test_skipped_ != skip_before) {
            fprintf(stderr, "SKIP %s\n", tests[i].name);
            skipped++;
        } else {
            fprintf(stderr, "ok   %s\n", tests[i].name);
            passed++;
        }
    }
    if (skipped)
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else
        printf("%d passed, %d failed\n", passed, failed);
    if (failed) return 1;
    return passed == 0 && skipped > 0 ? 77 : 0;
}

/* The real files of tests/data (tests/data/README.md), for loops over
 * all of them: static const char *const files[] = {VXR_TEST_REAL_FILES}; */
#define VXR_TEST_REAL_FILES                                                                        \
    "bevy_vox_scene__study.vox", "floooh__scene.vox", "mmmm__chr_robot.vox",                       \
        "mmmm__obj_candle.vox", "mmmm__obj_house4.vox", "mmmm__scene_store8.vox",                  \
        "ogt__test_multiple_model_scene.vox", "vengi__8ontop.vox",                                 \
        "vengi__animation.0.99.7.1.vox", "vengi__rgb_small.vox", "vengi__test-transform.vox",      \
        "voxelio__debug.vox", "voxelio__debug.vl32"

#define TEST(name)                                                                                 \
    { #name, name }
#define RUN_TESTS(list) vxr_test_run(list, (int)(sizeof(list) / sizeof(list[0])), argc, argv)
/* main() running the tests listed (TEST(a), TEST(b), ...). */
#define VXR_TEST_MAIN(...)                                                                         \
    int main(int argc, char **argv) {                                                              \
        static const vxr_test_case tests_[] = {__VA_ARGS__};                                       \
        return RUN_TESTS(tests_);                                                                  \
    }

/* Defines rnd(): a xorshift64 stream from seed, 32 bits a call. */
#define VXR_TEST_RNG(seed)                                                                         \
    static uint64_t rng_state = (seed);                                                            \
    static uint32_t rnd(void) {                                                                    \
        rng_state ^= rng_state << 13;                                                              \
        rng_state ^= rng_state >> 7;                                                               \
        rng_state ^= rng_state << 17;                                                              \
        return (uint32_t)(rng_state >> 16);                                                        \
    }

/* A 32-bit word written at byte `at` of a file: a corruption that a loader
 * must reject, saying `what`. */
typedef struct vxr_test_patch {
    size_t at;
    int64_t word; /* the file's int32 or uint32 */
    const char *what;
} vxr_test_patch;

#endif
