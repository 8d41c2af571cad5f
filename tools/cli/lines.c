/* The one line reader of every text input (tools/cli/cli.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"

enum { CHUNK = 65536 }; /* bytes read at a time */

static int lines_fail(cli_lines *r, size_t line, const char *why) {
    if (line)
        fprintf(stderr, "vxr: %s:%zu: %s\n", r->path, line, why);
    else
        fprintf(stderr, "vxr: %s: %s\n", r->path, why);
    r->status = EXIT_INPUT;
    return -1;
}

int cli_lines_open(cli_lines *r, const char *path) {
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = strcmp(path, "-") ? fopen(path, "rb") : stdin; /* "-": standard input */
    if (!r->f) {
        fprintf(stderr, "vxr: %s: cannot open: %s\n", path, strerror(errno));
        return r->status = EXIT_INPUT;
    }
    struct stat st;
    if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
        lines_fail(r, 0, "is a directory");
        cli_lines_close(r);
        return EXIT_INPUT;
    }
    if (!(r->buf = malloc(CHUNK))) {
        r->status = cli_fail(path, VXR_ERROR_MEMORY, NULL);
        cli_lines_close(r);
        return r->status;
    }
    return EXIT_OK;
}

/* Appends n bytes to the line, growing it (doubling). */
static bool append(cli_lines *r, const char *s, size_t n) {
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < r->len + n + 1) cap *= 2;
        char *l = realloc(r->line, cap);
        if (!l) return false;
        r->line = l;
        r->cap = cap;
    }
    memcpy(r->line + r->len, s, n);
    r->len += n;
    r->line[r->len] = 0;
    return true;
}

int cli_lines_next(cli_lines *r) {
    if (r->status != EXIT_OK || !r->f) return -1;
    r->len = 0;
    if (!append(r, "", 0)) {
        r->status = cli_fail(r->path, VXR_ERROR_MEMORY, NULL);
        return -1;
    }
    bool any = false; /* a byte of this line, its newline included, was read */
    for (;;) {
        if (r->at == r->end) {
            if (r->eof) break;
            r->at = 0;
            r->end = fread(r->buf, 1, CHUNK, r->f);
            if (r->end == 0) {
                if (ferror(r->f)) {
                    char why[160];
                    snprintf(why, sizeof why, "cannot read: %s", strerror(errno));
                    return lines_fail(r, r->line_no + 1, why);
                }
                r->eof = true;
                break;
            }
            r->total += r->end;
            if (r->total > CLI_TEXT_MAX)
                return lines_fail(r, r->line_no + 1, "more than 1 GiB of text");
        }
        const char *s = r->buf + r->at;
        size_t n = r->end - r->at;
        const char *nl = memchr(s, '\n', n);
        size_t take = nl ? (size_t)(nl - s) : n;
        any = true;
        if (memchr(s, 0, take)) return lines_fail(r, r->line_no + 1, "a NUL byte");
        if (!append(r, s, take)) {
            r->status = cli_fail(r->path, VXR_ERROR_MEMORY, NULL);
            return -1;
        }
        r->at += take + (nl ? 1 : 0);
        if (nl) break;
    }
    if (!any) return 0;
    /* a byte order mark: harmless where it opens the input, an error
     * anywhere else (a file pasted into another, an editor's mistake) */
    static const char bom[3] = {'\xEF', '\xBB', '\xBF'};
    if (r->line_no == 0 && r->len >= 3 && !memcmp(r->line, bom, 3)) {
        memmove(r->line, r->line + 3, r->len - 3 + 1);
        r->len -= 3;
    }
    for (const char *p = r->line, *end = r->line + r->len;
         (p = memchr(p, bom[0], (size_t)(end - p))) != NULL; p++)
        if (end - p >= 3 && !memcmp(p, bom, 3))
            return lines_fail(r, r->line_no + 1,
                              "a UTF-8 byte order mark (EF BB BF) inside the text");
    r->line_no++;
    return 1;
}

void cli_lines_close(cli_lines *r) {
    if (r->f && r->f != stdin) fclose(r->f);
    free(r->buf);
    free(r->line);
    r->f = NULL;
    r->buf = r->line = NULL;
    r->len = r->cap = 0;
}
