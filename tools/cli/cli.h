/* The vxr command line's library (tools/cli/): what every command shares.
 * Exit statuses and the one failure printer, argument parsing (vectors,
 * sizes, grids, the camera options and the orbit views), output (JSON
 * strings, pick records, PNG files, progress) and text input. Commands
 * (a file each in tools/) export their entry point only; tools/vxr.c
 * lists them. */
#ifndef VXR_CLI_H
#define VXR_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "vxr/camera.h"
#include "vxr/cull.h"
#include "vxr/formats.h"
#include "vxr/light.h"
#include "vxr/world.h"

/* DESIGN.md §5: 0 success, 1 bad input, 2 usage error, 3 no usable device. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 3 };

/* Image sizes a command accepts per side (the renderer's target limit), and
 * the default of render, bench render and view: a common 4:3 size, large
 * enough to look at, small enough for lavapipe to render in a fraction of
 * a second. */
#define CLI_MAX_SIZE 16384u
enum { CLI_WIDTH = 1024, CLI_HEIGHT = 768 };

/* ---- failures ---- */

/* Prints "vxr: WHAT: reason" on stderr (reason: err's message, else the
 * result's name; "no usable Vulkan device: ..." for VXR_ERROR_DEVICE) and
 * returns the exit status for r: EXIT_NO_DEVICE for VXR_ERROR_DEVICE,
 * EXIT_USAGE for VXR_ERROR_ARGUMENT, else EXIT_INPUT. err may be NULL. */
int cli_fail(const char *what, vxr_result r, const vxr_error *err);
/* Prints "vxr: message" and the usage hint on stderr; returns EXIT_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- numbers (tools/cli/text.c) ----
 *
 * The one strict reader of the numbers that options, scripts and text
 * files give: the whole string is the number (no blanks before or after,
 * nothing after it), integers are decimal, reals are decimal and finite:
 * for every number a command reads, so that all refuse the same things. */

/* What a reader found; on anything but CLI_NUMBER_OK *dest is untouched. */
typedef enum cli_number {
    CLI_NUMBER_OK,     /* a number of the form, within the range: in *dest */
    CLI_NUMBER_SYNTAX, /* not a number of the form (a sign on a count, hex, "inf", junk) */
    CLI_NUMBER_RANGE   /* of the form, but outside lo..hi (or beyond double / float) */
} cli_number;

/* A count: one or more digits 0-9 and nothing else (no '+' or '-', so
 * "-18446744073709551615" is CLI_NUMBER_SYNTAX, not a wrapped 1), lo <= v
 * <= hi; a value beyond 2^64 - 1 is CLI_NUMBER_RANGE. */
cli_number cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *dest);
/* The same for the n bytes at s (a field of a longer text, no NUL needed). */
cli_number cli_parse_uint_n(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *dest);
/* A signed integer: an optional '-' or '+', then digits as above. */
cli_number cli_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *dest);
/* A finite real: [+-]? (D+ [. D*] | . D+) ([eE] [+-]? D+)?, D a digit 0-9
 * (no hex floats, "inf", "nan"); a value beyond the double range is
 * CLI_NUMBER_RANGE (one that underflows reads as the nearest double, 0
 * perhaps). Callers check their own range (open or closed). */
cli_number cli_parse_double(const char *s, double *dest);
cli_number cli_parse_double_n(const char *s, size_t n, double *dest);
/* The same form read as a float (strtof's rounding): CLI_NUMBER_RANGE when
 * it is not finite as a float. */
cli_number cli_parse_float(const char *s, float *dest);
cli_number cli_parse_float_n(const char *s, size_t n, float *dest);
/* cli_parse_uint for option opt of command cmd with value v; on failure
 * prints "CMD: OPT takes a whole number from LO to HI, not 'V'" (V shown
 * by cli_shown) with the usage hint and returns false. */
bool cli_uint_option(const char *cmd, const char *opt, const char *v, uint64_t lo, uint64_t hi,
                     uint64_t *dest);

/* How every command reads its SCENE (--frame K: a .vox's animation frame),
 * set while parsing the command's arguments. */
extern vxr_load_options cli_load;
/* Takes "--frame K" at argv[*i] (advancing *i): 1, or -1 after a usage
 * message; 0 when argv[*i] is something else. */
int cli_load_arg(const char *cmd, int argc, char **argv, int *i);
/* vxr_scene_load_options with cli_load. */
vxr_result cli_scene_load(const char *path, vxr_scene **scene, const vxr_format **format,
                          vxr_file_survey *survey, vxr_error *err);

/* ---- messages that echo what the user gave (tools/cli/report.c) ---- */

/* Numbers in messages are trimmed: the shortest "%.Ng" that reads back as
 * the same value (N 1..17 for a double, 1..9 for a float), "1e+300" rather
 * than 301 digits; "inf", "-inf", "nan" as such. CLI_DOUBLE(v) and
 * CLI_FLOAT(v) give it in a buffer that lives to the end of the enclosing
 * block (a compound literal), for use as a printf argument. */
#define CLI_NUMBER_CHARS 32
const char *cli_format_double(double v, char dest[CLI_NUMBER_CHARS]);
const char *cli_format_float(float v, char dest[CLI_NUMBER_CHARS]);
#define CLI_DOUBLE(v) cli_format_double((v), (char[CLI_NUMBER_CHARS]){0})
#define CLI_FLOAT(v)  cli_format_float((v), (char[CLI_NUMBER_CHARS]){0})
/* A token a message quotes (an unknown word, a bad value): at most
 * CLI_SHOWN_MAX characters of it, bytes outside printable ASCII written
 * \xNN, and "..." when more was left out. CLI_SHOWN(s) as CLI_DOUBLE. */
#define CLI_SHOWN_MAX  32
#define CLI_SHOWN_SIZE (CLI_SHOWN_MAX + 4)
const char *cli_shown(const char *s, char dest[CLI_SHOWN_SIZE]);
#define CLI_SHOWN(s) cli_shown((s), (char[CLI_SHOWN_SIZE]){0})

/* The benches' random numbers: xorshift64 (Marsaglia 2003), the high bits. */
static inline uint32_t cli_xorshift(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 16);
}

/* ---- arguments ---- */

/* "X,Y,Z" of three reals of cli_parse_float's form (finite floats), and
 * nothing else. */
bool cli_parse_vec3(const char *s, float dest[3]);
/* Two counts (cli_parse_uint's form) up to CLI_MAX_SIZE separated by one
 * of seps ("xX" for a size WxH, "," for a pixel X,Y), and nothing else. */
bool cli_parse_pair(const char *s, const char *seps, uint32_t *a, uint32_t *b);
/* A grid N: a power of two from 1 to VXR_MAX_GRID. */
bool cli_parse_grid(const char *s, uint32_t *grid);
/* A byte count (cli_parse_uint's form, at least 1) with an optional K, M or
 * G suffix (powers of 1024): --budget. */
bool cli_parse_bytes(const char *s, uint64_t *dest);
/* "SCENE [--json]" (in any order) for command cmd; on a usage error prints
 * it and returns false. */
bool cli_scene_args(const char *cmd, int argc, char **argv, const char **path, bool *json);
/* An option of a command that takes a count N within lo..hi (*dest), or
 * with dest2 a pair WxH, each within lo..hi (*dest, *dest2). */
typedef struct cli_count {
    const char *name; /* "--runs" */
    uint64_t lo, hi;
    uint32_t *dest, *dest2;
} cli_count;
/* cli_scene_args with the count options opts[n] too (usage: the command's
 * usage line, printed for an unknown option or a missing SCENE). */
bool cli_scene_counts(const char *cmd, const char *usage, int argc, char **argv,
                      const cli_count *opts, size_t n, const char **path, bool *json);

/* The options of the commands that look at a scene (render, bench render,
 * pickcheck, view): SCENE [--eye X,Y,Z --target X,Y,Z] [--fov DEG]
 * [--camera FILE] [--file-camera K] [--size WxH] [--grid N] [--out FILE] [--hits FILE]
 * [--depth FILE] [--json] [--validate] [--no-cull]. */
/* ---- light (tools/cli/light_args.c) ---- */

#define CLI_MAX_SAMPLES 65536u
/* The per-pixel outputs of --aov NAME:FILE: the plane (VXR_AOV_*; depth is
 * the target's depth) and floats per pixel. */
#define CLI_AOV_KINDS 7
enum { CLI_AOV_DEPTH = 2 };
typedef struct cli_aov_kind {
    const char *name;
    uint32_t plane, floats;
} cli_aov_kind;
extern const cli_aov_kind cli_aov_kinds[CLI_AOV_KINDS];

typedef struct cli_light_args {
    vxr_light light;
    bool model_given;
    const char *aov_path[CLI_AOV_KINDS]; /* by cli_aov_kinds index; NULL: not asked */
    int aovs;                            /* how many are asked */
    const char *prev_camera;             /* --prev-camera FILE */
    bool denoise;                        /* --denoise */
} cli_light_args;

/* vxr_light_defaults with the command's default model. */
void cli_light_args_init(cli_light_args *l, uint32_t model);
/* Takes option o with value v when it is a light option: 1; 0 when it is
 * not (or has no value); -1 after a usage message. */
int cli_light_arg(cli_light_args *l, const char *cmd, const char *o, const char *v);
/* "flat", "lit" or "path". */
const char *cli_light_name(uint32_t model);

typedef struct cli_view_args {
    const char *scene, *out, *hits;
    vxr_camera cam; /* eye, target, fov and size as given */
    bool have_eye, have_target;
    const char *camera;  /* --camera FILE: a host camera, instead of the eye */
    int32_t file_camera; /* --file-camera K: the .vox's camera slot K */
    bool have_file_camera;
    const char *depth; /* --depth FILE (render only) */
    uint32_t grid;
    bool json, validate, cull;
    cli_light_args light;
    float lod;      /* --lod BIAS (vxr_frame.lod) */
    bool lod_given; /* else cli_lod_default of the scene, once it is opened */
    /* false: each pipeline at its first use (lazy_pipelines); true: every
     * flat one at the renderer's creation, as a host gets by default */
    bool eager;
} cli_view_args;

/* Defaults: no scene, size width x height, grid 1, culling on. */
void cli_view_args_init(cli_view_args *a, uint32_t width, uint32_t height);
/* Takes argv[*i] (and its value, advancing *i) when it is one of the
 * options above or the SCENE: 1; 0 when it is none of them (the command's
 * own option, or unknown); -1 after a usage message. */
int cli_view_arg(cli_view_args *a, const char *cmd, int argc, char **argv, int *i);
/* Checks what the options need together (a SCENE; --eye with --target);
 * false after a usage message. */
bool cli_view_args_done(cli_view_args *a, const char *cmd);
/* init, every argument through cli_view_arg (no others allowed), done. */
bool cli_view_args_parse(cli_view_args *a, const char *cmd, int argc, char **argv, uint32_t width,
                         uint32_t height);

/* The level of detail's bias when --lod is not given: CLI_LOD_WORLD for a
 * world (a folder of chunks or a generated one: vxr/world.h), 0 (voxels
 * everywhere) for any other scene. */
#define CLI_LOD_WORLD 1.0f
float cli_lod_default(const char *scene);
/* Parses --lod's BIAS: a finite number >= 0; false after a usage message. */
bool cli_lod_arg(const char *cmd, const char *v, float *bias);
/* Takes argv[*i] (and its value, advancing *i) when it is `--fov DEG` or
 * `--size WxH`, the pixel a level of detail is measured by for rays from
 * a file (pick, bench pick): 1; 0 when it is neither; -1 after a usage
 * message. */
int cli_pixel_arg(const char *cmd, int argc, char **argv, int *i, vxr_camera *pixel);

/* Orbit camera `view` (0..CLI_ORBIT_VIEWS - 1) around the scene's bounds:
 * the cameras of bench pick and pickcheck --view, view 0 the default of
 * bench render and the viewer. Sets eye and target. */
#define CLI_ORBIT_VIEWS 8
void cli_orbit_camera(const vxr_scene *scene, int view, vxr_camera *cam);
/* A world's home view (tools/cli/world.c): over its middle, within the
 * view distance, so that chunks show. */
void cli_world_home(vxr_world *w, float eye[3], float target[3]);
/* The scene of a generated world (vxr_is_generated_world) that the n
 * points eyes[3k..] see: the chunks within its default view distance of
 * any, all resident, handed to the caller. eyes NULL: its home view's eye,
 * into home_eye and home_target (render without a camera). */
vxr_result cli_world_around(const char *path, const float *eyes, size_t n, float *home_eye,
                            float *home_target, vxr_scene **scene, vxr_error *err);

/* Sets cam's eye, target and fov from camera slot id of the .vox the scene
 * was read from (vxr_file_camera_apply); on failure prints "vxr: SCENE:
 * ..." (no such slot, listing those there are, or why the slot cannot be
 * drawn) and returns EXIT_USAGE. */
int cli_file_camera(const vxr_scene *scene, const char *scene_path, int32_t id, vxr_camera *cam);

/* Reads --camera FILE (DESIGN.md §5) into a camera of width x height
 * (vxr_camera_from_matrices); on failure prints "vxr: FILE: ..." and
 * returns EXIT_INPUT. */
int cli_read_camera(const char *path, uint32_t width, uint32_t height, vxr_camera *dest);

/* ---- output and input ---- */

/* Prints s as the body of a JSON string (quotes and backslashes escaped,
 * control characters dropped), without the surrounding quotes. */
void cli_print_json_string(FILE *out, const char *s);
/* Prints one pick record as a JSON line (DESIGN.md §5). */
void cli_print_pick(FILE *out, const vxr_pick *p);
/* qsort's comparison of uint32_t values, ascending. */
int cli_cmp_u32(const void *a, const void *b);
/* Likewise for double values. */
int cli_cmp_double(const void *a, const void *b);
/* Seconds on a monotonic clock. */
double cli_now(void);
/* True when progress should be printed (stderr is a terminal, not --json). */
bool cli_progress(bool json);
/* Writes w x h RGBA8 pixels (red low, rows from the top) as a PNG, whole
 * or not at all (vxr_output_*); err may be NULL. */
vxr_result cli_write_png(const char *path, const uint32_t *rgba, uint32_t w, uint32_t h,
                         vxr_error *err);
/* The same PNG into an open file (an output of several, vxr_output_file). */
vxr_result cli_png_to(FILE *f, const uint32_t *rgba, uint32_t w, uint32_t h, vxr_error *err);
/* Whether paths a and b name one file: the same (st_dev, st_ino) when
 * either exists (through symbolic and hard links), else the same resolved
 * directory (realpath) and last component, a dangling symbolic link
 * standing for what it names: ./a.png, dir/../a.png and a.png are one. */
bool cli_same_file(const char *a, const char *b);
/* The n outputs of a command (options[k] names paths[k]; NULL paths are
 * skipped) must be distinct files (cli_same_file), except character
 * devices and FIFOs (/dev/null), written in place one after the other.
 * Else prints "vxr: PATH: OPTION names the same file as OPTION" (one line)
 * and returns EXIT_USAGE, before anything is written; EXIT_OK otherwise. */
int cli_distinct_outputs(int n, const char *const options[], const char *const paths[]);
/* The format an output's name asks for (vxr_format_for_output); NULL after
 * "CMD: OUT must end in .vox, ... ('NAME')" on stderr when none. */
const vxr_format *cli_output_format(const char *cmd, const char *path);
/* cli_output_format of out, then the scene of path: EXIT_OK, or the
 * failure printed and its exit status with nothing kept. */
int cli_output_and_scene(const char *cmd, const char *out, const char *path,
                         const vxr_format **format, vxr_scene **scene);
/* Saves scene to path in format (of vxr_format_for_output), whole or not
 * at all: streamed in bounded memory when the format can (save_file: .vl32),
 * else through its buffer and vxr_write_file. *size (may be NULL) receives the bytes written. */
vxr_result cli_save_scene(const char *path, const vxr_format *format, const vxr_scene *scene,
                          size_t *size, vxr_error *err);
/* Reads a text file of per_line (1..CLI_MAX_PER_LINE) finite numbers a line
 * (names them in the error, e.g. "x y z r") through cli_lines below:
 * numbers of cli_parse_float's form separated by blanks (spaces, tabs, a
 * '\r' at the end); blank lines and '#' comments are skipped. On success *dest holds count *
 * per_line floats and, when lines is not NULL, *lines the 1-based line of
 * each record (both
 * malloc'd). On failure prints "vxr: FILE:LINE: ..." and returns
 * EXIT_INPUT with nothing allocated. */
#define CLI_MAX_PER_LINE 6
int cli_read_floats(const char *path, int per_line, const char *names, float **dest, size_t *count,
                    size_t **lines);

/* cli_read_floats of "ox oy oz dx dy dz" lines into rays (malloc'd). */
int cli_read_rays(const char *path, vxr_ray **rays, size_t *count);
/* The rays of rays_path (none when NULL; with `nonempty` a file of no ray
 * is refused), then the scene of path: EXIT_OK, or the failure printed
 * and its exit status with nothing kept. */
int cli_rays_and_scene(const char *rays_path, bool nonempty, const char *path, vxr_ray **rays,
                       size_t *count, vxr_scene **scene);

/* The one reader of text lines (tools/cli/lines.c): rays, spheres, points
 * (cli_read_floats), edit scripts and the viewer's scripts. Lines may be
 * of any length; the whole input is limited to CLI_TEXT_MAX bytes (1 GiB
 * of text), so that an endless input (a pipe, /dev/zero) ends in an
 * error. A UTF-8 byte order mark (EF BB BF) opening the input is skipped;
 * one anywhere else, a NUL byte anywhere, a directory, a read error or too
 * much text is an error printed as "vxr: FILE:LINE: ..." (the line where
 * it happened; "vxr: FILE: is a directory"). */
#define CLI_TEXT_MAX (1ull << 30)
typedef struct cli_lines {
    const char *path;
    char *line;     /* the current line, NUL-terminated, without its '\n' */
    size_t len;     /* its bytes */
    size_t line_no; /* its 1-based number */
    int status;     /* EXIT_OK until an error (printed) */
    /* private */
    FILE *f;
    char *buf;
    size_t at, end, cap;
    unsigned long long total;
    bool eof;
} cli_lines;
/* Opens path; on failure prints why and returns EXIT_INPUT (nothing to
 * close). */
int cli_lines_open(cli_lines *r, const char *path);
/* The next line into r->line: 1; 0 at the end of the input; -1 after an
 * error was printed (r->status holds its exit status). */
int cli_lines_next(cli_lines *r);
void cli_lines_close(cli_lines *r);

#endif
