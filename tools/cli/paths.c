/* Output paths (tools/cli/cli.h): whether two paths name one file, so that
 * a command never writes two of its outputs over each other. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

enum { MAX_LINKS = 40 }; /* as the kernel's ELOOP */

/* The file a path that does not exist would create: its directory resolved
 * (realpath) joined with its last component, following a dangling
 * symbolic link to what it names (a link that loops: the link itself).
 * NULL when the directory does not resolve
 * (nothing can be created there) or out of memory; else malloc'd. */
static char *would_create(const char *path, int links) {
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    struct stat st;
    char target[PATH_MAX];
    ssize_t n = 0;
    /* a link that loops names itself: the rename would replace it */
    if (links < MAX_LINKS && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
        (n = readlink(path, target, sizeof target - 1)) > 0) {
        target[n] = 0;
        if (target[0] == '/') return would_create(target, links + 1);
        char *joined = malloc(dir_len + (size_t)n + 1); /* relative to the link's directory */
        if (!joined) return NULL;
        memcpy(joined, path, dir_len);
        memcpy(joined + dir_len, target, (size_t)n + 1);
        char *r = would_create(joined, links + 1);
        free(joined);
        return r;
    }
    char *dir = malloc(dir_len + 2);
    if (!dir) return NULL;
    if (dir_len) {
        memcpy(dir, path, dir_len);
        dir[dir_len] = 0;
    } else {
        strcpy(dir, ".");
    }
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real) return NULL;
    const char *base = path + dir_len;
    size_t real_len = strlen(real), base_len = strlen(base);
    char *r = malloc(real_len + base_len + 2);
    if (r) {
        memcpy(r, real, real_len);
        r[real_len] = '/';
        memcpy(r + real_len + 1, base, base_len + 1);
    }
    free(real);
    return r;
}

bool cli_same_file(const char *a, const char *b) {
    if (!strcmp(a, b)) return true;
    struct stat x, y;
    bool has_x = stat(a, &x) == 0, has_y = stat(b, &y) == 0;
    if (has_x || has_y) return has_x && has_y && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    char *p = would_create(a, 0), *q = would_create(b, 0);
    bool same = p && q && !strcmp(p, q);
    free(p);
    free(q);
    return same;
}

int cli_distinct_outputs(int n, const char *const options[], const char *const paths[]) {
    for (int j = 1; j < n; j++) {
        struct stat st;
        if (!paths[j] ||
            (stat(paths[j], &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))))
            continue; /* written in place, one after the other: nothing replaced */
        for (int i = 0; i < j; i++) {
            if (!paths[i] || !cli_same_file(paths[i], paths[j])) continue;
            fprintf(stderr, "vxr: %s: %s names the same file as %s\n", paths[j], options[j],
                    options[i]);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

const vxr_format *cli_output_format(const char *cmd, const char *path) {
    const vxr_format *format = vxr_format_for_output(path);
    if (!format) {
        char list[128];
        vxr_format_output_list(list, sizeof list);
        cli_usage("%s: OUT must end in %s ('%s')", cmd, list, path);
    }
    return format;
}

int cli_output_and_scene(const char *cmd, const char *out, const char *path,
                         const vxr_format **format, vxr_scene **scene) {
    if (!(*format = cli_output_format(cmd, out))) return EXIT_USAGE;
    vxr_error err = {{0}};
    vxr_result r = cli_scene_load(path, scene, NULL, NULL, &err);
    return r == VXR_OK ? EXIT_OK : cli_fail(path, r, &err);
}
