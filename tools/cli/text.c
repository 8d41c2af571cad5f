/* Text input: the strict number readers, files of numbers a line
 * (tools/cli/cli.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* ---- numbers (the strict readers of cli.h) ---- */

static bool digit(char c) {
    return c >= '0' && c <= '9';
}

/* The digits 0-9 from s to end (at least one, nothing else) into *v,
 * saturating at UINT64_MAX with *over set. */
static bool digits(const char *s, const char *end, uint64_t *v, bool *over) {
    *v = 0;
    *over = false;
    if (s == end) return false;
    for (; s < end; s++) {
        if (!digit(*s)) return false;
        unsigned d = (unsigned)(*s - '0');
        if (*over || *v > (UINT64_MAX - d) / 10) {
            *over = true;
            *v = UINT64_MAX;
        } else {
            *v = *v * 10 + d;
        }
    }
    return true;
}

cli_number cli_parse_uint_n(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *dest) {
    uint64_t v;
    bool over;
    if (!digits(s, s + n, &v, &over)) return CLI_NUMBER_SYNTAX;
    if (over || v < lo || v > hi) return CLI_NUMBER_RANGE;
    *dest = v;
    return CLI_NUMBER_OK;
}

cli_number cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *dest) {
    return cli_parse_uint_n(s, strlen(s), lo, hi, dest);
}

cli_number cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *dest) {
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    uint64_t m;
    bool over;
    if (!digits(s, s + strlen(s), &m, &over)) return CLI_NUMBER_SYNTAX;
    const uint64_t top = (uint64_t)INT64_MAX + (neg ? 1u : 0u); /* the largest magnitude */
    if (over || m > top) return CLI_NUMBER_RANGE;
    int64_t v = neg ? (m == top ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    if (v < lo || v > hi) return CLI_NUMBER_RANGE;
    *dest = v;
    return CLI_NUMBER_OK;
}

/* Whether the n bytes at s are a real of cli_parse_double's form. */
static bool real_form(const char *s, size_t n) {
    const char *end = s + n;
    if (s < end && (*s == '+' || *s == '-')) s++;
    const char *m = s;
    while (s < end && digit(*s)) s++;
    bool whole = s != m, frac = false;
    if (s < end && *s == '.') {
        const char *f = ++s;
        while (s < end && digit(*s)) s++;
        frac = s != f;
    }
    if (!whole && !frac) return false;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (s < end && (*s == '+' || *s == '-')) s++;
        if (s == end || !digit(*s)) return false;
        while (s < end && digit(*s)) s++;
    }
    return s == end;
}

/* The n bytes at s as a real: a double, or a float when f is not NULL.
 * With terminated (s[n] is the NUL that ends s) strtod and strtof read s
 * in place, else a copy of the n bytes. */
static cli_number real_n(const char *s, size_t n, bool terminated, double *d, float *f) {
    if (!real_form(s, n)) return CLI_NUMBER_SYNTAX;
    const char *text = s;
    char small[64], *copy = NULL;
    if (!terminated) {
        copy = n < sizeof small ? small : malloc(n + 1);
        if (!copy) return CLI_NUMBER_RANGE; /* out of memory: too long to read */
        memcpy(copy, s, n);
        copy[n] = 0;
        text = copy;
    }
    char *end;
    double dv = 0;
    float fv = 0;
    if (f)
        fv = strtof(text, &end);
    else
        dv = strtod(text, &end);
    bool whole = end == text + n; /* always: the form is strtod's */
    if (copy != small) free(copy);
    if (!whole) return CLI_NUMBER_SYNTAX;
    if (f ? !isfinite(fv) : !isfinite(dv)) return CLI_NUMBER_RANGE;
    if (f)
        *f = fv;
    else
        *d = dv;
    return CLI_NUMBER_OK;
}

cli_number cli_parse_double_n(const char *s, size_t n, double *dest) {
    return real_n(s, n, false, dest, NULL);
}

cli_number cli_parse_double(const char *s, double *dest) {
    return real_n(s, strlen(s), true, dest, NULL);
}

cli_number cli_parse_float_n(const char *s, size_t n, float *dest) {
    return real_n(s, n, false, NULL, dest);
}

cli_number cli_parse_float(const char *s, float *dest) {
    return real_n(s, strlen(s), true, NULL, dest);
}

bool cli_uint_option(const char *cmd, const char *opt, const char *v, uint64_t lo, uint64_t hi,
                     uint64_t *dest) {
    if (cli_parse_uint(v, lo, hi, dest) == CLI_NUMBER_OK) return true;
    cli_usage("%s: %s takes a whole number from %llu to %llu, not '%s'", cmd, opt,
              (unsigned long long)lo, (unsigned long long)hi, CLI_SHOWN(v));
    return false;
}

/* ---- files of numbers ---- */

enum { FIRST_RECORDS = 1024 /* records the first allocation holds; it doubles */ };

/* What separates the numbers of a line ('\r': of a CRLF line end). */
static bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

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
        char *p = in.line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\r' || *p == '#' || *p == 0) continue; /* blank, or a comment */
        float v[CLI_MAX_PER_LINE];
        int n = 0;
        bool ok = true;
        for (;;) {
            while (blank(*p)) p++;
            if (!*p) break;
            char *token = p;
            while (*p && !blank(*p)) p++;
            char after = *p;
            *p = 0;
            if (n == per_line || cli_parse_float(token, &v[n]) != CLI_NUMBER_OK) {
                ok = false;
                break;
            }
            n++;
            if (!after) break;
            p++;
        }
        if (!ok || n != per_line) {
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

int cli_rays_and_scene(const char *rays_path, bool nonempty, const char *path, vxr_ray **rays,
                       size_t *count, vxr_scene **scene) {
    *rays = NULL;
    *count = 0;
    if (rays_path) {
        int status = cli_read_rays(rays_path, rays, count);
        if (status != EXIT_OK) return status;
        if (nonempty && !*count) {
            free(*rays);
            fprintf(stderr, "vxr: %s: no rays\n", rays_path);
            return EXIT_INPUT;
        }
    }
    vxr_error err = {{0}};
    vxr_result r = vxr_scene_load(path, scene, &err);
    if (r == VXR_OK) return EXIT_OK;
    free(*rays);
    *rays = NULL;
    return cli_fail(path, r, &err);
}
