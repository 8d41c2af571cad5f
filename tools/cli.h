/* Shared pieces of the vxr command line: exit codes, errors, JSON output. */
#ifndef VXR_CLI_H
#define VXR_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "vxr/cull.h"
#include "vxr/formats.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 3 };

/* Prints "vxr: WHAT: reason" on stderr and returns the exit status for r
 * (EXIT_NO_DEVICE for VXR_ERROR_DEVICE, EXIT_USAGE for VXR_ERROR_ARGUMENT,
 * else EXIT_INPUT). */
int cli_fail(const char *what, vxr_result r, const vxr_error *err);
/* Prints "vxr: message" and the usage hint on stderr; returns EXIT_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parses "SCENE [--json]" (in any order) for command cmd; on a usage error
 * prints it and returns false. */
bool cli_scene_args(const char *cmd, int argc, char **argv, const char **path, bool *json);
/* Seconds on a monotonic clock. */
double cli_now(void);
/* True when progress should be printed (stderr is a terminal, not --json). */
bool cli_progress(bool json);

/* Reads a text file of per_line finite numbers a line (names them in the
 * error, e.g. "x y z r"); blank lines and '#' comments are skipped. On
 * success *dest holds count * per_line floats and, when lines is not NULL,
 * *lines the 1-based line of each record (both malloc'd). On failure prints
 * "vxr: FILE:LINE: ..." and returns EXIT_INPUT with nothing allocated. */
int cli_read_floats(const char *path, int per_line, const char *names, float **dest, size_t *count,
                    size_t **lines);

int cmd_bench(int argc, char **argv);
int cmd_spheres(int argc, char **argv);
int bench_spheres(int argc, char **argv);
int cmd_pick(int argc, char **argv);
int bench_pick(int argc, char **argv);
int cmd_render(int argc, char **argv);
int bench_render(int argc, char **argv);
int cmd_pickcheck(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* Prints s as the body of a JSON string (quotes and backslashes escaped,
 * control characters dropped), without the surrounding quotes. */
void cli_print_json_string(FILE *out, const char *s);

struct vxr_pick;
/* Prints one pick record as a JSON line (DESIGN.md §5). */
void cli_print_pick(FILE *out, const struct vxr_pick *p);

#endif
