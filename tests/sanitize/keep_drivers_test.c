/* The sanitizer build keeps the Vulkan driver loaded after its instance is
 * gone (tests/sanitize/keep_drivers.c), so that LeakSanitizer names the
 * driver's frames at exit and tests/sanitize/lsan.supp can match them: a
 * context on lavapipe, with the validation layer, is opened and closed,
 * and lavapipe and the layer must still be mapped afterwards. Built and
 * run in sanitizer builds only (label unit: CI's sanitizer step). */
#include <stdio.h>
#include <string.h>
#include "gpu.h"
#include "vxr_test.h"

/* True when a library whose path contains name is mapped. */
static bool mapped(const char *name) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

static void test_driver_stays_loaded(void) {
    cli_gpu g;
    vxr_error err = {{0}};
    if (cli_gpu_open(&g, &(vxr_context_desc){.validation = true}, &err) != VXR_OK) {
        fprintf(stderr, "%s\n", err.message);
        SKIP("no device");
    }
    bool lavapipe = mapped("libvulkan_lvp.so");
    cli_gpu_close(&g);
    if (!lavapipe) SKIP("the device is not lavapipe");
    CHECK(mapped("libvulkan_lvp.so"));
    CHECK(mapped("libVkLayer_khronos_validation.so"));
}

VXR_TEST_MAIN(TEST(test_driver_stays_loaded))
