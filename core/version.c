/* The library's version (vxr/version.h, generated from project(VERSION)). */
#include "vxr/version.h"

const char *vxr_version(void) {
    return VXR_VERSION_STRING;
}
