/* The render cameras a .vox keeps (rCAM: camera id, then a DICT of _mode,
 * _focus, _angle, _radius, _frustum and _fov; MagicaVoxel's
 * MagicaVoxel-file-format-vox-extension.txt), read from the chunks a scene
 * kept for the writer, and turned into vxr's pinhole camera. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "vox_parse.h"

/* Up to `count` finite decimal numbers of a DICT value ("1.5 -2 0"). */
static bool parse_floats(const uint8_t *v, uint32_t n, float *dest, int count) {
    char buf[96];
    if (n >= sizeof buf) return false;
    memcpy(buf, v, n);
    buf[n] = 0;
    char *at = buf;
    for (int k = 0; k < count; k++) {
        char *end;
        const double x = strtod(at, &end);
        if (end == at || !(fabs(x) <= 1e9)) return false;
        dest[k] = (float)x;
        at = end;
    }
    while (*at == ' ') at++;
    return *at == 0;
}

static bool read_camera(const uint8_t *p, size_t n, vxr_file_camera *c) {
    const span d = {p, n, 0};
    size_t pos = 0;
    memset(c, 0, sizeof *c);
    if (!rd_i32(&d, &pos, &c->id)) return false;
    static const char *const keys[] = {"_mode", "_focus", "_angle", "_radius", "_fov"};
    float *const dest[] = {NULL, c->focus, c->angle, &c->radius, &c->fov_deg};
    static const int counts[] = {0, 3, 3, 1, 1};
    for (int k = 0; k < 5; k++) {
        size_t at = pos;
        const uint8_t *v;
        uint32_t vl;
        int found;
        if (!rd_dict(&d, &at, keys[k], &v, &vl, &found) || !found) return false;
        if (k == 0) {
            if (vl >= sizeof c->mode) return false;
            memcpy(c->mode, v, vl);
            for (uint32_t i = 0; i < vl; i++)
                if (v[i] < 0x20 || v[i] > 0x7e) return false;
        } else if (!parse_floats(v, vl, dest[k], counts[k])) {
            return false;
        }
    }
    return true;
}

uint32_t vxr_scene_file_cameras(const vxr_scene *scene, vxr_file_camera *dest, uint32_t max) {
    uint32_t n = 0;
    const uint8_t *blob = scene->vox_chunks;
    for (size_t at = 0;
         blob && at <= scene->vox_chunks_size && scene->vox_chunks_size - at >= 12;) {
        const size_t c = vxr_get32(blob + at + 4), k = vxr_get32(blob + at + 8);
        if (c > scene->vox_chunks_size - at - 12 || k > scene->vox_chunks_size - at - 12 - c) break;
        vxr_file_camera cam;
        if (!memcmp(blob + at, "rCAM", 4) && read_camera(blob + at + 12, c, &cam)) {
            if (n < max) dest[n] = cam;
            n++;
        }
        at += 12 + c + k;
    }
    return n;
}

vxr_result vxr_file_camera_apply(const vxr_file_camera *fc, vxr_camera *cam, vxr_error *err) {
    if (strcmp(fc->mode, "pers") && strcmp(fc->mode, "free"))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "camera %d is '%s': vxr draws file cameras in perspective ('pers', "
                        "'free') only",
                        fc->id, fc->mode);
    if (!(fc->radius > 0))
        return vxr_fail(err, VXR_ERROR_ARGUMENT,
                        "camera %d has radius %g: an unset slot (the eye would be its target)",
                        fc->id, (double)fc->radius);
    if (!(fc->fov_deg > 0 && fc->fov_deg < 180))
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "camera %d has a field of view of %g degrees",
                        fc->id, (double)fc->fov_deg);
    const double rad = 3.14159265358979323846 / 180, p = fc->angle[0] * rad, y = fc->angle[1] * rad;
    const double back[3] = {cos(p) * sin(y), cos(p) * cos(y), sin(p)};
    for (int k = 0; k < 3; k++) {
        cam->target[k] = fc->focus[k];
        cam->eye[k] = (float)(fc->focus[k] + fc->radius * back[k]);
    }
    cam->fov_deg = fc->fov_deg;
    return VXR_OK;
}
