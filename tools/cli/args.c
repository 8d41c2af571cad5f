/* Argument parsing shared by the commands (tools/cli/cli.h). */
#include <string.h>
#include "cli.h"

/* ---- arguments ---- */

bool cli_parse_vec3(const char *s, float dest[3]) {
    float v[3];
    for (int k = 0; k < 3; k++) {
        const char *stop = k < 2 ? strchr(s, ',') : s + strlen(s);
        if (!stop || cli_parse_float_n(s, (size_t)(stop - s), &v[k]) != CLI_NUMBER_OK) return false;
        s = stop + 1;
    }
    memcpy(dest, v, sizeof v);
    return true;
}

bool cli_parse_pair(const char *s, const char *seps, uint32_t *a, uint32_t *b) {
    size_t n = strcspn(s, seps);
    uint64_t x, y;
    if (!s[n] || cli_parse_uint_n(s, n, 0, CLI_MAX_SIZE, &x) != CLI_NUMBER_OK ||
        cli_parse_uint(s + n + 1, 0, CLI_MAX_SIZE, &y) != CLI_NUMBER_OK)
        return false;
    *a = (uint32_t)x;
    *b = (uint32_t)y;
    return true;
}

bool cli_parse_grid(const char *s, uint32_t *grid) {
    uint64_t v;
    if (cli_parse_uint(s, 1, VXR_MAX_GRID, &v) != CLI_NUMBER_OK || (v & (v - 1))) return false;
    *grid = (uint32_t)v;
    return true;
}

/* Takes count option o's value v; false (printed) when out of range. */
static bool take_count(const char *cmd, const cli_count *o, const char *v) {
    uint64_t x;
    if (!o->dest2) {
        if (!cli_uint_option(cmd, o->name, v, o->lo, o->hi, &x)) return false;
        *o->dest = (uint32_t)x;
        return true;
    }
    uint32_t a, b;
    if (cli_parse_pair(v, "xX", &a, &b) && a >= o->lo && b >= o->lo && a <= o->hi && b <= o->hi) {
        *o->dest = a;
        *o->dest2 = b;
        return true;
    }
    cli_usage("%s: %s takes WxH (%llu..%llu each), not '%s'", cmd, o->name,
              (unsigned long long)o->lo, (unsigned long long)o->hi, CLI_SHOWN(v));
    return false;
}

vxr_load_options cli_load;

int cli_load_arg(const char *cmd, int argc, char **argv, int *i) {
    if (strcmp(argv[*i], "--frame")) return 0;
    uint64_t frame;
    if (*i + 1 >= argc) return cli_usage("%s: --frame needs a frame number", cmd), -1;
    if (!cli_uint_option(cmd, "--frame", argv[++*i], 0, UINT32_MAX, &frame)) return -1;
    cli_load.frame = (uint32_t)frame;
    return 1;
}

vxr_result cli_scene_load(const char *path, vxr_scene **scene, const vxr_format **format,
                          vxr_file_survey *survey, vxr_error *err) {
    return vxr_scene_load_options(path, &cli_load, scene, format, survey, err);
}

bool cli_scene_counts(const char *cmd, const char *usage, int argc, char **argv,
                      const cli_count *opts, size_t n, const char **path, bool *json) {
    *path = NULL;
    *json = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        size_t k = 0;
        while (k < n && strcmp(a, opts[k].name)) k++;
        const int frame = cli_load_arg(cmd, argc, argv, &i);
        if (frame < 0) return false;
        if (frame) continue;
        if (!strcmp(a, "--json")) {
            *json = true;
        } else if (k < n && i + 1 < argc) {
            if (!take_count(cmd, &opts[k], argv[++i])) return false;
        } else if (a[0] == '-' && a[1]) {
            if (usage) return cli_usage("%s", usage), false;
            return cli_usage("%s: unknown option '%s'", cmd, CLI_SHOWN(a)), false;
        } else if (!*path) {
            *path = a;
        } else {
            return cli_usage("%s: more than one SCENE", cmd), false;
        }
    }
    if (!*path) usage ? cli_usage("%s", usage) : cli_usage("%s: missing SCENE", cmd);
    return *path != NULL;
}

bool cli_scene_args(const char *cmd, int argc, char **argv, const char **path, bool *json) {
    return cli_scene_counts(cmd, NULL, argc, argv, NULL, 0, path, json);
}

void cli_view_args_init(cli_view_args *a, uint32_t width, uint32_t height) {
    memset(a, 0, sizeof *a);
    a->cam.width = width;
    a->cam.height = height;
    a->grid = 1;
    a->cull = true;
    cli_light_args_init(&a->light, VXR_LIGHT_LIT);
}

int cli_view_arg(cli_view_args *a, const char *cmd, int argc, char **argv, int *i) {
    const int frame = cli_load_arg(cmd, argc, argv, i);
    if (frame) return frame;
    const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    int light = cli_light_arg(&a->light, cmd, o, v);
    if (light) {
        *i += light > 0;
        return light;
    }
    if (!strcmp(o, "--json")) {
        a->json = true;
        return 1;
    }
    if (!strcmp(o, "--denoise")) {
        a->light.denoise = true;
        return 1;
    }
    if (!strcmp(o, "--validate")) {
        a->validate = true;
        return 1;
    }
    if (!strcmp(o, "--no-cull")) {
        a->cull = false;
        return 1;
    }
    if (o[0] != '-' || !o[1]) {
        if (a->scene) return cli_usage("%s: more than one SCENE", cmd), -1;
        a->scene = o;
        return 1;
    }
    static const char *const valued[] = {"--eye",   "--target",      "--fov",  "--size",
                                         "--grid",  "--out",         "--hits", "--camera",
                                         "--depth", "--file-camera", "--lod"};
    int which = -1;
    for (int k = 0; k < (int)(sizeof valued / sizeof *valued); k++)
        if (!strcmp(o, valued[k])) which = k;
    if (which < 0 || !v) return 0;
    ++*i;
    bool ok = true;
    switch (which) {
    case 0:
    case 1:
        ok = *(which ? &a->have_target : &a->have_eye) =
            cli_parse_vec3(v, which ? a->cam.target : a->cam.eye);
        if (!ok)
            return cli_usage("%s: %s takes X,Y,Z, finite decimal numbers, not '%s'", cmd, o,
                             CLI_SHOWN(v)),
                   -1;
        break;
    case 2: {
        float fov;
        if (cli_parse_float(v, &fov) != CLI_NUMBER_OK || !(fov > 0.0f && fov < 180.0f))
            return cli_usage("%s: --fov takes degrees in (0, 180), not '%s'", cmd, CLI_SHOWN(v)),
                   -1;
        a->cam.fov_deg = fov;
        break;
    }
    case 3:
        if (!cli_parse_pair(v, "xX", &a->cam.width, &a->cam.height) || !a->cam.width ||
            !a->cam.height)
            return cli_usage("%s: --size takes WxH (1..%u each), not '%s'", cmd, CLI_MAX_SIZE,
                             CLI_SHOWN(v)),
                   -1;
        break;
    case 4:
        if (!cli_parse_grid(v, &a->grid))
            return cli_usage("%s: --grid takes a power of two from 1 to %u, not '%s'", cmd,
                             VXR_MAX_GRID, CLI_SHOWN(v)),
                   -1;
        break;
    case 5:
        a->out = v;
        break;
    case 6:
        a->hits = v;
        break;
    case 7:
        a->camera = v;
        break;
    case 8:
        a->depth = v;
        break;
    case 10:
        if (!cli_lod_arg(cmd, v, &a->lod)) return -1;
        a->lod_given = true;
        break;
    default: {
        uint64_t k;
        if (!cli_uint_option(cmd, o, v, 0, INT32_MAX, &k)) return -1;
        a->file_camera = (int32_t)k;
        a->have_file_camera = true;
        break;
    }
    }
    return 1;
}

float cli_lod_default(const char *scene) {
    return vxr_is_world(scene) || vxr_is_generated_world(scene) ? CLI_LOD_WORLD : 0.0f;
}

int cli_pixel_arg(const char *cmd, int argc, char **argv, int *i, vxr_camera *pixel) {
    const char *o = argv[*i];
    if ((strcmp(o, "--fov") && strcmp(o, "--size")) || *i + 1 >= argc) return 0;
    const char *v = argv[++*i];
    if (!strcmp(o, "--fov")) {
        if (cli_parse_float(v, &pixel->fov_deg) == CLI_NUMBER_OK && pixel->fov_deg > 0.0f &&
            pixel->fov_deg < 180.0f)
            return 1;
        return cli_usage("%s: --fov takes degrees in (0, 180), not '%s'", cmd, CLI_SHOWN(v)), -1;
    }
    if (cli_parse_pair(v, "xX", &pixel->width, &pixel->height) && pixel->width && pixel->height)
        return 1;
    return cli_usage("%s: --size takes WxH, not '%s'", cmd, CLI_SHOWN(v)), -1;
}

bool cli_lod_arg(const char *cmd, const char *v, float *bias) {
    if (cli_parse_float(v, bias) == CLI_NUMBER_OK && *bias >= 0.0f && *bias < 1e6f) return true;
    cli_usage("%s: --lod takes a bias in pixels, 0 (full resolution) or more, not '%s'", cmd,
              CLI_SHOWN(v));
    return false;
}

bool cli_view_args_done(cli_view_args *a, const char *cmd) {
    if (!a->scene) return cli_usage("%s: missing SCENE", cmd), false;
    if (!a->lod_given) a->lod = cli_lod_default(a->scene);
    if (a->have_eye != a->have_target)
        return cli_usage("%s: --eye and --target go together", cmd), false;
    if (a->camera && (a->have_eye || a->cam.fov_deg != 0.0f))
        return cli_usage("%s: --camera replaces --eye, --target and --fov", cmd), false;
    if (a->have_file_camera && (a->have_eye || a->cam.fov_deg != 0.0f || a->camera))
        return cli_usage("%s: --file-camera replaces --eye, --target, --fov and --camera", cmd),
               false;
    if (a->lod_given && a->lod > 0.0f && a->light.model_given &&
        a->light.light.model != VXR_LIGHT_FLAT)
        return cli_usage("%s: --lod is for flat frames: light frames trace voxels (give --light "
                         "flat)",
                         cmd),
               false;
    if (a->depth && strcmp(cmd, "render"))
        return cli_usage("%s: unknown option '--depth' (render has it)", cmd), false;
    /* lit is the default of render and view, flat of the others */
    cli_light_args *l = &a->light;
    if (!l->model_given && strcmp(cmd, "render") && strcmp(cmd, "view"))
        l->light.model = VXR_LIGHT_FLAT;
    /* a grid's cubes are a picking view: drawn flat */
    if (a->grid > 1 && strcmp(cmd, "view")) {
        if (l->model_given && l->light.model != VXR_LIGHT_FLAT)
            return cli_usage("%s: --grid %u draws flat: --light %s is for voxels", cmd, a->grid,
                             cli_light_name(l->light.model)),
                   false;
        l->light.model = VXR_LIGHT_FLAT;
    }
    if ((l->aovs || l->prev_camera) && strcmp(cmd, "render"))
        return cli_usage("%s: --aov and --prev-camera are render's", cmd), false;
    if ((l->aovs || l->denoise) && l->light.model == VXR_LIGHT_FLAT)
        return cli_usage("%s: --aov and --denoise need --light lit or path", cmd), false;
    if (l->aov_path[CLI_AOV_DEPTH] && a->depth)
        return cli_usage("%s: --aov depth:FILE and --depth FILE are one output: give one", cmd),
               false;
    return true;
}

bool cli_view_args_parse(cli_view_args *a, const char *cmd, int argc, char **argv, uint32_t width,
                         uint32_t height) {
    cli_view_args_init(a, width, height);
    for (int i = 0; i < argc; i++) {
        int took = cli_view_arg(a, cmd, argc, argv, &i);
        if (took < 0) return false;
        if (!took)
            return cli_usage("%s: unknown or incomplete option '%s'", cmd, CLI_SHOWN(argv[i])),
                   false;
    }
    return cli_view_args_done(a, cmd);
}

int cli_file_camera(const vxr_scene *scene, const char *scene_path, int32_t id, vxr_camera *cam) {
    vxr_file_camera fc[64];
    const uint32_t n = vxr_scene_file_cameras(scene, fc, 64);
    char have[256] = "";
    for (uint32_t k = 0; k < n && k < 64; k++) {
        vxr_error err = {{0}};
        if (fc[k].id == id) {
            const vxr_result r = vxr_file_camera_apply(&fc[k], cam, &err);
            return r == VXR_OK ? EXIT_OK : cli_fail(scene_path, r, &err);
        }
        const size_t used = strlen(have);
        snprintf(have + used, sizeof have - used, "%s%d", used ? ", " : "", fc[k].id);
    }
    fprintf(stderr, "vxr: %s: no camera %d (the file has %s)\n", scene_path, id,
            n ? have : "no rCAM cameras");
    return EXIT_USAGE;
}

void cli_orbit_camera(const vxr_scene *scene, int view, vxr_camera *cam) {
    vxr_camera_orbit(scene, 6.2831853f * (float)view / (float)CLI_ORBIT_VIEWS + 0.3f,
                     0.35f + 0.25f * (float)(view % 3), 0.9f, cam);
}

bool cli_parse_bytes(const char *s, uint64_t *dest) {
    const size_t n = strlen(s);
    uint64_t unit = 1;
    size_t digits = n;
    if (n && (s[n - 1] == 'K' || s[n - 1] == 'M' || s[n - 1] == 'G')) {
        unit = s[n - 1] == 'K' ? 1ull << 10 : s[n - 1] == 'M' ? 1ull << 20 : 1ull << 30;
        digits--;
    }
    uint64_t v;
    if (!digits || cli_parse_uint_n(s, digits, 1, UINT64_MAX / unit, &v) != CLI_NUMBER_OK)
        return false;
    *dest = v * unit;
    return true;
}
