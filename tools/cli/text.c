/* Text input: files of numbers a line (tools/cli/cli.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

enum {
    LINE_BYTES = 1024,   /* the longest line read as one */
    FIRST_RECORDS = 1024 /* records the first allocation holds; it doubles */
};

int cli_read_floats(const char *path, int per_line, const char *names, float **dest, size_t *count,
                    size_t **lines) {
    static const char *const words[CLI_MAX_PER_LINE + 1] = {"",     "one",  "two", "three",
                                                            "four", "five", "six"};
    FILE *f = fopen(path, "r");
    *dest = NULL;
    *count = 0;
    if (lines) *lines = NULL;
    if (!f) {
        fprintf(stderr, "vxr: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    char line[LINE_BYTES];
    size_t cap = 0, lineno = 0;
    int status = EXIT_OK;
    while (status == EXIT_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line, *end;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\r' || *p == '#' || *p == 0) continue;
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
    fclose(f);
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
