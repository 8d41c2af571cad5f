/* The light options of render, pickcheck, view and bench render
 * (DESIGN.md §5 "Light"): --light, --samples, --sun, --sun-color, --sky,
 * --ao-radius, --aov NAME:FILE, --prev-camera FILE. */
#include <string.h>
#include "cli.h"

static const char *const model_names[] = {"flat", "lit", "path"};

const cli_aov_kind cli_aov_kinds[CLI_AOV_KINDS] = {
    {"albedo", VXR_AOV_ALBEDO, 3},     {"normal", VXR_AOV_NORMAL, 3}, {"depth", 0, 1},
    {"instance", VXR_AOV_INSTANCE, 1}, {"sun", VXR_AOV_SUN, 1},       {"ao", VXR_AOV_AO, 1},
    {"motion", VXR_AOV_MOTION, 2}};

const char *cli_light_name(uint32_t model) {
    return model <= VXR_LIGHT_PATH ? model_names[model] : "?";
}

/* Up to n comma-separated floats of s into dest; the count taken, or -1. */
static int parse_floats(const char *s, float *dest, int n) {
    int k = 0;
    for (;;) {
        const char *stop = strchr(s, ',');
        size_t len = stop ? (size_t)(stop - s) : strlen(s);
        if (k == n || cli_parse_float_n(s, len, &dest[k]) != CLI_NUMBER_OK) return -1;
        k++;
        if (!stop) return k;
        s = stop + 1;
    }
}

static int bad(const char *cmd, const char *o, const char *what, const char *v) {
    cli_usage("%s: %s takes %s, not '%s'", cmd, o, what, CLI_SHOWN(v));
    return -1;
}

int cli_light_arg(cli_light_args *l, const char *cmd, const char *o, const char *v) {
    static const char *const valued[] = {"--light", "--samples",   "--sun", "--sun-color",
                                         "--sky",   "--ao-radius", "--aov", "--prev-camera"};
    int which = -1;
    for (int k = 0; k < (int)(sizeof valued / sizeof *valued); k++)
        if (!strcmp(o, valued[k])) which = k;
    if (which < 0 || !v) return 0;
    vxr_light *g = &l->light;
    float f[3];
    switch (which) {
    case 0: {
        int m = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(v, model_names[k])) m = k;
        if (m < 0) return bad(cmd, o, "flat, lit or path", v);
        g->model = (uint32_t)m;
        l->model_given = true;
        break;
    }
    case 1: {
        uint64_t n;
        if (!cli_uint_option(cmd, o, v, 1, CLI_MAX_SAMPLES, &n)) return -1;
        g->samples = (uint32_t)n;
        break;
    }
    case 2: {
        int n = parse_floats(v, f, 3);
        if (n < 2 || !(f[1] >= -90.0f && f[1] <= 90.0f) ||
            (n == 3 && !(f[2] >= 0.0f && f[2] <= 90.0f)))
            return bad(cmd, o, "AZ,EL[,DIAM] in degrees (EL in [-90, 90], DIAM in [0, 90])", v);
        g->sun_azimuth = f[0];
        g->sun_elevation = f[1];
        g->sun_diameter = n == 3 ? f[2] : 0.0f;
        break;
    }
    case 3:
    case 4:
        if (parse_floats(v, f, 3) != 3 || !(f[0] >= 0.0f && f[1] >= 0.0f && f[2] >= 0.0f))
            return bad(cmd, o, "R,G,B (linear, not negative)", v);
        if (which == 3) {
            memcpy(g->sun_color, f, sizeof f);
        } else {
            memcpy(g->zenith, f, sizeof f);
            memcpy(g->horizon, f, sizeof f);
        }
        break;
    case 5:
        if (parse_floats(v, f, 1) != 1 || !(f[0] >= 0.0f))
            return bad(cmd, o, "a radius in world units (0: no occlusion)", v);
        g->ao_radius = f[0];
        break;
    case 6: {
        const char *colon = strchr(v, ':');
        int kind = -1;
        for (int k = 0; colon && k < CLI_AOV_KINDS; k++)
            if (strlen(cli_aov_kinds[k].name) == (size_t)(colon - v) &&
                !strncmp(v, cli_aov_kinds[k].name, (size_t)(colon - v)))
                kind = k;
        if (kind < 0 || !colon[1])
            return bad(cmd, o,
                       "NAME:FILE, NAME one of albedo, normal, depth, instance, sun, ao, motion",
                       v);
        if (l->aov_path[kind])
            return cli_usage("%s: --aov %s given twice", cmd, cli_aov_kinds[kind].name), -1;
        l->aov_path[kind] = colon + 1;
        l->aovs++;
        break;
    }
    default:
        l->prev_camera = v;
        break;
    }
    return 1;
}

void cli_light_args_init(cli_light_args *l, uint32_t model) {
    memset(l, 0, sizeof *l);
    vxr_light_defaults(&l->light);
    l->light.model = model;
}
