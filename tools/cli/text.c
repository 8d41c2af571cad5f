/* Text input: files of numbers a line (tools/cli/cli.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

enum { FIRST_RECORDS = 1024 /* records the first allocation holds; it doubles */ };

int cli_read_floats(const char *path, int per_line, const char *names, float **dest, size_t *count,
                    size_t **lines) {
    static const char *const words[CLI_MAX_PER_LINE + 1] = {"",     "one",  "two", "three",
                                                            "four", "five", "six"};
    *dest = NULL;
    *count = 0;
    if (lines) *lines = NULL;
    cli_lines in;
    int status = cli_lines_open(&in, path);
    if (status != EXIT_OK) return status;
    size_t cap = 0;
    int got;
    while (status == EXIT_OK && (got = cli_lines_next(&in)) != 0) {
        if (got < 0) {
            status = in.status;
            break;
        }
        size_t lineno = in.line_no;
        char *p = in.line, *end;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\r' || *p == '#' || *p == 0) continue;
        float v[CLI_MAX_PER_LINE];
        int n = 0;
        for (; n < per_line; n++) {
            v[n] = strtof(p, &end);
            if (end == p || !isfinite(v[n])) break;
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (n != per_line || *p) {
            fprintf(stderr, "vxr: %s:%zu: expected %s finite numbers '%s'\n", path, lineno,
                    words[per_line], names);
            status = EXIT_INPUT;
            break;
        }
        if (*count == cap) {
            cap = cap ? cap * 2 : FIRST_RECORDS;
            float *d = realloc(*dest, cap * (size_t)per_line * sizeof *d);
            size_t *l = lines ? realloc(*lines, cap * sizeof *l) : NULL;
            if (d) *dest = d;
            if (l) *lines = l;
            if (!d || (lines && !l)) {
                status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
                break;
            }
        }
        memcpy(*dest + *count * (size_t)per_line, v, (size_t)per_line * sizeof *v);
        if (lines) (*lines)[*count] = lineno;
        (*count)++;
    }
    cli_lines_close(&in);
    if (status != EXIT_OK) {
        free(*dest);
        *dest = NULL;
        *count = 0;
        if (lines) {
            free(*lines);
            *lines = NULL;
        }
    }
    return status;
}

_Static_assert(sizeof(vxr_ray) == 6 * sizeof(float), "vxr_ray is six packed floats");

int cli_read_rays(const char *path, vxr_ray **rays, size_t *count) {
    float *v;
    int status = cli_read_floats(path, 6, "ox oy oz dx dy dz", &v, count, NULL);
    *rays = (vxr_ray *)v; /* six packed floats, the layout of vxr_ray */
    return status;
}
