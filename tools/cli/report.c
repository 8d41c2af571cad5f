/* Failures and output shared by the commands (tools/cli/cli.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

int cli_fail(const char *what, vxr_result r, const vxr_error *err) {
    const char *why = err && err->message[0] ? err->message : vxr_result_string(r);
    if (r == VXR_ERROR_DEVICE) {
        fprintf(stderr, "vxr: %s: no usable Vulkan device: %s\n", what, why);
        return EXIT_NO_DEVICE;
    }
    fprintf(stderr, "vxr: %s: %s\n", what, why);
    return r == VXR_ERROR_ARGUMENT ? EXIT_USAGE : EXIT_INPUT;
}

int cli_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("vxr: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    fputs("run 'vxr --help' for the commands\n", stderr);
    return EXIT_USAGE;
}

const char *cli_format_double(double v, char dest[CLI_NUMBER_CHARS]) {
    if (!isfinite(v)) {
        snprintf(dest, CLI_NUMBER_CHARS, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return dest;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(dest, CLI_NUMBER_CHARS, "%.*g", digits, v);
        if (strtod(dest, NULL) == v) break; /* 17 always reads back */
    }
    return dest;
}

const char *cli_format_float(float v, char dest[CLI_NUMBER_CHARS]) {
    if (!isfinite(v)) return cli_format_double((double)v, dest);
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(dest, CLI_NUMBER_CHARS, "%.*g", digits, (double)v);
        if (strtof(dest, NULL) == v) break; /* 9 always reads back */
    }
    return dest;
}

const char *cli_shown(const char *s, char dest[CLI_SHOWN_SIZE]) {
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool plain = c >= 0x20 && c < 0x7f;
        if (n + (plain ? 1 : 4) > CLI_SHOWN_MAX) break;
        if (plain)
            dest[n++] = (char)c;
        else
            n += (size_t)snprintf(dest + n, CLI_SHOWN_SIZE - n, "\\x%02X", c);
    }
    if (*s) {
        memcpy(dest + n, "...", 3);
        n += 3;
    }
    dest[n] = 0;
    return dest;
}

void cli_print_json_string(FILE *out, const char *s) {
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', out);
        if ((unsigned char)*c >= 0x20) fputc(*c, out);
    }
}

void cli_print_pick(FILE *out, const vxr_pick *p) {
    if (!p->hit) {
        fputs("{\"hit\":false}\n", out);
        return;
    }
    fprintf(out,
            "{\"hit\":true,\"instance\":%u,\"voxel\":[%d,%d,%d],\"size\":%u,"
            "\"world_min\":[%.9g,%.9g,%.9g],\"world_max\":[%.9g,%.9g,%.9g],\"t\":%.9g,"
            "\"point\":[%.9g,%.9g,%.9g],\"face\":%d,\"normal\":[%.9g,%.9g,%.9g],\"corner\":%d,"
            "\"corner_point\":[%.9g,%.9g,%.9g],\"edge\":%d,\"edge_mid\":[%.9g,%.9g,%.9g],"
            "\"color\":[%u,%u,%u,%u]}\n",
            p->instance, p->voxel[0], p->voxel[1], p->voxel[2], p->size, (double)p->world_min[0],
            (double)p->world_min[1], (double)p->world_min[2], (double)p->world_max[0],
            (double)p->world_max[1], (double)p->world_max[2], (double)p->t, (double)p->point[0],
            (double)p->point[1], (double)p->point[2], p->face, (double)p->normal[0] + 0.0,
            (double)p->normal[1] + 0.0, (double)p->normal[2] + 0.0, p->corner,
            (double)p->corner_point[0], (double)p->corner_point[1], (double)p->corner_point[2],
            p->edge, (double)p->edge_mid[0], (double)p->edge_mid[1], (double)p->edge_mid[2],
            p->color & 255, (p->color >> 8) & 255, (p->color >> 16) & 255, p->color >> 24);
}

int cli_cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int cli_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cli_progress(bool json) {
    return !json && isatty(2);
}
