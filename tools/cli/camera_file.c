/* --camera FILE (DESIGN.md §5): a JSON object {"view":[16 numbers],
 * "proj":[16 numbers]} (column-major), optionally "reverse_z":true|false
 * and "jitter":[x, y] in pixels. A small reader for exactly that shape:
 * anything else (a number not of JSON's grammar, such as "+1", ".5" or a
 * hex float; a key given twice) is an error naming the file and what is
 * wrong. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CAMERA_FILE_MAX 65536 /* bytes: a camera is a few hundred */

typedef struct reader {
    const char *p, *start;
    char why[160];
} reader;

static void skip(reader *r) {
    while (isspace((unsigned char)*r->p)) r->p++;
}

static bool expect(reader *r, char c) {
    skip(r);
    if (*r->p != c) {
        snprintf(r->why, sizeof r->why, "expected '%c' at byte %zu", c, (size_t)(r->p - r->start));
        return false;
    }
    r->p++;
    return true;
}

/* The end of a JSON number (RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)
 * starting at p, or NULL. */
static const char *json_number_end(const char *p) {
    if (*p == '-') p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p)) p++;
    else
        return NULL;
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    return p;
}

/* What ends a value inside an array. */
static bool value_end(char c) {
    return c == 0 || c == ',' || c == ']' || c == '}' || isspace((unsigned char)c);
}

/* An array of exactly n finite numbers. */
static bool numbers(reader *r, const char *key, float *dest, int n) {
    if (!expect(r, '[')) return false;
    for (int k = 0; k < n; k++) {
        if (k && !expect(r, ',')) break;
        skip(r);
        const char *e = json_number_end(r->p);
        if (!e || !value_end(*e)) {
            /* the token as written, up to what would end a value */
            char token[64];
            size_t len = 0;
            while (!value_end(r->p[len]) && len + 1 < sizeof token) len++;
            memcpy(token, r->p, len);
            token[len] = 0;
            if (!len) {
                snprintf(r->why, sizeof r->why, "\"%s\" needs exactly %d numbers", key, n);
                return false;
            }
            snprintf(r->why, sizeof r->why, "\"%s\" holds '%s', not a JSON number", key,
                     CLI_SHOWN(token));
            return false;
        }
        char *end;
        errno = 0;
        double v = strtod(r->p, &end);
        if (end != e || errno == ERANGE || !isfinite(v) || !isfinite((float)v)) {
            snprintf(r->why, sizeof r->why, "\"%s\" needs %d finite numbers", key, n);
            return false;
        }
        dest[k] = (float)v;
        r->p = end;
    }
    if (r->why[0] || !expect(r, ']')) {
        snprintf(r->why, sizeof r->why, "\"%s\" needs exactly %d numbers", key, n);
        return false;
    }
    return true;
}

static bool parse(reader *r, float view[16], float proj[16], bool *reverse, float jitter[2],
                  bool *have_jitter) {
    bool have_view = false, have_proj = false, have_reverse = false;
    if (!expect(r, '{')) return false;
    skip(r);
    if (*r->p == '}') {
        r->p++;
    } else {
        for (;;) {
            char key[32];
            size_t n = 0;
            if (!expect(r, '"')) return false;
            while (*r->p && *r->p != '"' && n + 1 < sizeof key) key[n++] = *r->p++;
            key[n] = 0;
            if (!expect(r, '"') || !expect(r, ':')) return false;
            bool *seen = !strcmp(key, "view")        ? &have_view
                         : !strcmp(key, "proj")      ? &have_proj
                         : !strcmp(key, "jitter")    ? have_jitter
                         : !strcmp(key, "reverse_z") ? &have_reverse
                                                     : NULL;
            if (seen && *seen) {
                snprintf(r->why, sizeof r->why, "duplicate key \"%s\"", key);
                return false;
            }
            bool ok;
            if (!strcmp(key, "view")) {
                ok = have_view = numbers(r, key, view, 16);
            } else if (!strcmp(key, "proj")) {
                ok = have_proj = numbers(r, key, proj, 16);
            } else if (!strcmp(key, "jitter")) {
                ok = *have_jitter = numbers(r, key, jitter, 2);
            } else if (!strcmp(key, "reverse_z")) {
                skip(r);
                ok = !strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5);
                if (ok) {
                    have_reverse = true;
                    *reverse = r->p[0] == 't';
                    r->p += *reverse ? 4 : 5;
                } else {
                    snprintf(r->why, sizeof r->why, "\"reverse_z\" is true or false");
                }
            } else {
                snprintf(r->why, sizeof r->why,
                         "unknown key \"%s\" (view, proj, reverse_z, jitter)", CLI_SHOWN(key));
                return false;
            }
            if (!ok) return false;
            skip(r);
            if (*r->p == ',') {
                r->p++;
                continue;
            }
            if (!expect(r, '}')) return false;
            break;
        }
    }
    skip(r);
    if (*r->p) {
        snprintf(r->why, sizeof r->why, "text after the JSON object");
        return false;
    }
    if (!have_view || !have_proj) {
        snprintf(r->why, sizeof r->why, "needs both \"view\" and \"proj\" (16 numbers each)");
        return false;
    }
    return true;
}

int cli_read_camera(const char *path, uint32_t width, uint32_t height, vxr_camera *dest) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vxr: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    char *text = malloc(CAMERA_FILE_MAX + 1);
    size_t n = text ? fread(text, 1, CAMERA_FILE_MAX + 1, f) : 0;
    bool failed = ferror(f);
    fclose(f);
    if (!text || failed || n > CAMERA_FILE_MAX) {
        fprintf(stderr, "vxr: %s: %s\n", path,
                !text    ? "out of memory"
                : failed ? "cannot read"
                         : "camera file larger than 64 KiB");
        free(text);
        return EXIT_INPUT;
    }
    text[n] = 0;
    if (strlen(text) != n) {
        fprintf(stderr, "vxr: %s: camera: a NUL byte in the file\n", path);
        free(text);
        return EXIT_INPUT;
    }
    reader r = {.p = text, .start = text};
    float view[16], proj[16], jitter[2] = {0, 0};
    bool reverse = false, have_jitter = false;
    bool ok = parse(&r, view, proj, &reverse, jitter, &have_jitter);
    free(text);
    if (!ok) {
        fprintf(stderr, "vxr: %s: camera: %s\n", path, r.why);
        return EXIT_INPUT;
    }
    vxr_mat4 v, p;
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            v[col][row] = view[4 * col + row];
            p[col][row] = proj[4 * col + row];
        }
    vxr_error err = {{0}};
    if (vxr_camera_from_matrices(dest, v, p, width, height, reverse ? VXR_CAMERA_REVERSE_Z : 0,
                                 have_jitter ? jitter : NULL, &err) != VXR_OK) {
        fprintf(stderr, "vxr: %s: %s\n", path, err.message);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}
