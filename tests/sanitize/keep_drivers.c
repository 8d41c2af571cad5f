/* Linked into the sanitizer build's Vulkan programs only (VXR_SANITIZE):
 * opens the Vulkan loader, lavapipe and the validation layer once at start
 * with RTLD_NODELETE, so that they stay mapped after the loader's dlclose.
 * LeakSanitizer reports at exit, and a library unloaded by then shows its
 * frames as "<unknown module>", which no suppression can name: kept
 * loaded, the driver's own leaks carry its library's name and
 * tests/sanitize/lsan.supp matches them by it, however the driver version
 * allocates, while leaks in vxr's own code are still reported. A library
 * that is not installed is skipped. */
#define _GNU_SOURCE /* RTLD_NODELETE */
#include <dlfcn.h>

__attribute__((constructor)) static void vxr_keep_drivers(void) {
    static const char *const libs[] = {"libvulkan.so.1", "libvulkan_lvp.so",
                                       "libVkLayer_khronos_validation.so"};
    for (unsigned i = 0; i < sizeof libs / sizeof libs[0]; i++)
        (void)dlopen(libs[i], RTLD_LAZY | RTLD_NODELETE); /* kept on purpose */
}
