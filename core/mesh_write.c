/* Mesh files of a scene (vxr/mesh.h): glTF 2.0 (Khronos glTF 2.0
 * specification: .glb's 12-byte header and JSON and BIN chunks; a .gltf's
 * buffer as a base64 data URI), Wavefront .obj with "v x y z r g b"
 * colours, and binary little-endian .ply (Greg Turk's format). Each model
 * used by a visible instance is meshed once. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "internal.h"
#include "vxr/mesh.h"
#include "vxr/version.h"

static void printf_bytes(vxr_bytes *o, const char *fmt, ...) {
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        vxr_bytes_put(o, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    vxr_bytes_put(o, big, (size_t)n);
    free(big);
}

/* The meshes of the models that visible instances use (others empty). */
static vxr_result build_meshes(const vxr_scene *s, vxr_mesh_mode mode, vxr_mesh **out,
                               vxr_error *err) {
    vxr_mesh *m = calloc(s->model_count ? s->model_count : 1, sizeof *m);
    bool *used = calloc(s->model_count ? s->model_count : 1, sizeof *used);
    vxr_result r = m && used ? VXR_OK : vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; r == VXR_OK && i < s->instance_count; i++)
        if (!(s->instances[i].flags & VXR_INSTANCE_HIDDEN)) used[s->instances[i].model] = true;
    for (uint32_t i = 0; r == VXR_OK && i < s->model_count; i++)
        if (used[i]) r = vxr_mesh_build(s, i, mode, &m[i], err);
    free(used);
    if (r != VXR_OK && m) {
        for (uint32_t i = 0; i < s->model_count; i++) vxr_mesh_free(&m[i]);
        free(m);
        m = NULL;
    }
    *out = m;
    return r;
}

static void free_meshes(const vxr_scene *s, vxr_mesh *m) {
    for (uint32_t i = 0; m && i < s->model_count; i++) vxr_mesh_free(&m[i]);
    free(m);
}

static bool shown(const vxr_mesh *m, const vxr_instance *in) {
    return !(in->flags & VXR_INSTANCE_HIDDEN) && m[in->model].quad_count > 0;
}

/* ---- glTF ---- */

static void put_base64(vxr_bytes *o, const uint8_t *p, size_t n) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char chunk[4];
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                           (i + 2 < n ? p[i + 2] : 0);
        chunk[0] = digits[v >> 18 & 63];
        chunk[1] = digits[v >> 12 & 63];
        chunk[2] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        chunk[3] = i + 2 < n ? digits[v & 63] : '=';
        vxr_bytes_put(o, chunk, 4);
    }
}

static vxr_result save_gltf(const vxr_scene *s, const vxr_mesh *m, bool binary, uint8_t **data,
                            size_t *size, vxr_error *err) {
    vxr_bytes bin = {0}, views = {0}, accessors = {0}, meshes = {0}, nodes = {0};
    uint32_t mesh_of_model_count = 0, view_count = 0;
    uint32_t *mesh_of = malloc((s->model_count ? s->model_count : 1) * sizeof *mesh_of);
    if (!mesh_of) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < s->model_count; i++) {
        mesh_of[i] = UINT32_MAX;
        const vxr_mesh *q = &m[i];
        if (!q->quad_count) continue;
        if (q->quad_count > UINT32_MAX / 6) {
            free(mesh_of);
            VXR_FREE(bin.p, views.p, accessors.p, meshes.p, nodes.p);
            return vxr_fail(err, VXR_ERROR_LIMIT, "model %u: %zu quads, over glTF's 2^32 indices",
                            i, q->quad_count);
        }
        mesh_of[i] = mesh_of_model_count++;
        const size_t verts = 4 * q->quad_count, idx = 6 * q->quad_count;
        const struct {
            const void *p;
            size_t bytes;
            uint32_t target;
        } parts[4] = {{q->positions, 12 * verts, 34962},
                      {q->normals, 12 * verts, 34962},
                      {q->colors, 4 * verts, 34962},
                      {q->indices, 4 * idx, 34963}};
        for (int k = 0; k < 4; k++) {
            printf_bytes(&views,
                         "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":%u}",
                         view_count ? "," : "", bin.n, parts[k].bytes, parts[k].target);
            vxr_bytes_put(&bin, parts[k].p, parts[k].bytes);
            view_count++;
        }
        const uint32_t v0 = view_count - 4;
        printf_bytes(&accessors,
                     "%s{\"bufferView\":%u,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\","
                     "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]}",
                     v0 ? "," : "", v0, verts, (double)q->min[0], (double)q->min[1],
                     (double)q->min[2], (double)q->max[0], (double)q->max[1], (double)q->max[2]);
        printf_bytes(&accessors,
                     ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\"}",
                     v0 + 1, verts);
        printf_bytes(&accessors,
                     ",{\"bufferView\":%u,\"componentType\":5121,\"normalized\":true,\"count\":%zu,"
                     "\"type\":\"VEC4\"}",
                     v0 + 2, verts);
        printf_bytes(
            &accessors,
            ",{\"bufferView\":%u,\"componentType\":5125,\"count\":%zu,\"type\":\"SCALAR\"}", v0 + 3,
            idx);
        printf_bytes(&meshes,
                     "%s{\"name\":\"model %u\",\"primitives\":[{\"attributes\":{\"POSITION\":%u,"
                     "\"NORMAL\":%u,\"COLOR_0\":%u},\"indices\":%u,\"material\":0,\"mode\":4}]}",
                     v0 ? "," : "", i, v0, v0 + 1, v0 + 2, v0 + 3);
    }
    uint32_t node_count = 0;
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (!shown(m, in)) continue;
        const vxr_transform *t = &in->transform;
        printf_bytes(&nodes, "%s{\"name\":\"instance %u\",\"mesh\":%u", node_count ? "," : "", i,
                     mesh_of[in->model]);
        bool identity = t->scale == 1;
        for (int k = 0; k < 9; k++) identity &= t->rotation[k] == (k % 4 == 0 ? 1.0f : 0.0f);
        if (identity) {
            if (t->translation[0] != 0 || t->translation[1] != 0 || t->translation[2] != 0)
                printf_bytes(&nodes, ",\"translation\":[%.9g,%.9g,%.9g]", (double)t->translation[0],
                             (double)t->translation[1], (double)t->translation[2]);
        } else { /* column-major: element (row i, column j) at 4 j + i */
            vxr_bytes_put(&nodes, ",\"matrix\":[", 11);
            for (int j = 0; j < 4; j++)
                for (int row = 0; row < 4; row++) {
                    const double v =
                        j < 3
                            ? (row < 3 ? (double)t->rotation[3 * row + j] * (double)t->scale : 0.0)
                            : (row < 3 ? (double)t->translation[row] : 1.0);
                    printf_bytes(&nodes, "%s%.9g", j || row ? "," : "", v);
                }
            vxr_bytes_put(&nodes, "]", 1);
        }
        vxr_bytes_put(&nodes, "}", 1);
        node_count++;
    }
    free(mesh_of);
    vxr_bytes json = {0};
    printf_bytes(&json, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"vxr %s\"},\"scene\":0,",
                 VXR_VERSION_STRING);
    if (node_count) {
        vxr_bytes_put(&json, "\"scenes\":[{\"nodes\":[", 20);
        for (uint32_t i = 0; i < node_count; i++) printf_bytes(&json, "%s%u", i ? "," : "", i);
        vxr_bytes_put(&json, "]}],\"nodes\":[", 13);
        vxr_bytes_put(&json, nodes.p, nodes.n);
        vxr_bytes_put(&json, "],\"meshes\":[", 12);
        vxr_bytes_put(&json, meshes.p, meshes.n);
        vxr_bytes_put(&json,
                      "],\"materials\":[{\"name\":\"voxels\",\"pbrMetallicRoughness\":"
                      "{\"metallicFactor\":0,\"roughnessFactor\":1}}],\"accessors\":[",
                      strlen("],\"materials\":[{\"name\":\"voxels\",\"pbrMetallicRoughness\":"
                             "{\"metallicFactor\":0,\"roughnessFactor\":1}}],\"accessors\":["));
        vxr_bytes_put(&json, accessors.p, accessors.n);
        vxr_bytes_put(&json, "],\"bufferViews\":[", 17);
        vxr_bytes_put(&json, views.p, views.n);
        printf_bytes(&json, "],\"buffers\":[{\"byteLength\":%zu", bin.n);
        if (!binary) {
            vxr_bytes_put(&json, ",\"uri\":\"data:application/octet-stream;base64,", 45);
            put_base64(&json, bin.p, bin.n);
            vxr_bytes_put(&json, "\"", 1);
        }
        vxr_bytes_put(&json, "}]}", 3);
    } else {
        vxr_bytes_put(&json, "\"scenes\":[{}]}", 14);
    }
    VXR_FREE(views.p, accessors.p, meshes.p, nodes.p);
    vxr_bytes out = {0};
    if (binary) {
        /* 12-byte header, then the JSON chunk (padded with spaces) and the
         * BIN chunk (padded with zeros), each 4-byte aligned */
        const size_t jpad = (4 - json.n % 4) % 4, bpad = (4 - bin.n % 4) % 4;
        const uint64_t total = 12 + 8 + json.n + jpad + (node_count ? 8 + bin.n + bpad : 0);
        if (total > UINT32_MAX) {
            VXR_FREE(json.p, bin.p);
            return vxr_fail(err, VXR_ERROR_LIMIT, "%llu bytes, over .glb's 4 GiB",
                            (unsigned long long)total);
        }
        vxr_bytes_put(&out, "glTF", 4);
        vxr_bytes_put32(&out, 2);
        vxr_bytes_put32(&out, (uint32_t)total);
        vxr_bytes_put32(&out, (uint32_t)(json.n + jpad));
        vxr_bytes_put(&out, "JSON", 4);
        vxr_bytes_put(&out, json.p, json.n);
        vxr_bytes_put(&out, "   ", jpad);
        if (node_count) {
            vxr_bytes_put32(&out, (uint32_t)(bin.n + bpad));
            vxr_bytes_put(&out, "BIN\0", 4);
            vxr_bytes_put(&out, bin.p, bin.n);
            vxr_bytes_put(&out, "\0\0\0", bpad);
        }
        free(json.p);
    } else {
        vxr_bytes_put(&json, "\n", 1);
        out = json;
    }
    const bool failed = out.failed || bin.failed;
    free(bin.p);
    if (failed) {
        free(out.p);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    *data = out.p;
    *size = out.n;
    return VXR_OK;
}

/* ---- world-placed formats ---- */

/* World position of model point p under t. */
static void place(const vxr_transform *t, const float p[3], float w[3]) {
    for (int i = 0; i < 3; i++)
        w[i] = t->scale * (t->rotation[3 * i] * p[0] + t->rotation[3 * i + 1] * p[1] +
                           t->rotation[3 * i + 2] * p[2]) +
               t->translation[i];
}

static void turn(const vxr_transform *t, const float n[3], float w[3]) {
    for (int i = 0; i < 3; i++)
        w[i] = t->rotation[3 * i] * n[0] + t->rotation[3 * i + 1] * n[1] +
               t->rotation[3 * i + 2] * n[2];
}

/* A reflection turns a quad's winding inside out: write it reversed. */
static bool mirrors(const vxr_transform *t) {
    const float *r = t->rotation;
    return r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
               r[2] * (r[3] * r[7] - r[4] * r[6]) <
           0;
}

static vxr_result save_obj(const vxr_scene *s, const vxr_mesh *m, uint8_t **data, size_t *size,
                           vxr_error *err) {
    vxr_bytes o = {0};
    printf_bytes(&o,
                 "# vxr %s: the faces between solid and empty voxels, world placed; "
                 "vertex colours as \"v x y z r g b\"\n",
                 VXR_VERSION_STRING);
    uint64_t base = 1, normal_base = 1;
    static const float axes[6][3] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                     {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
    for (uint32_t i = 0; i < s->instance_count && !o.failed; i++) {
        const vxr_instance *in = &s->instances[i];
        if (!shown(m, in)) continue;
        const vxr_mesh *q = &m[in->model];
        printf_bytes(&o, "o instance_%u\n", i);
        for (int a = 0; a < 6; a++) {
            float w[3];
            turn(&in->transform, axes[a], w);
            printf_bytes(&o, "vn %.9g %.9g %.9g\n", (double)w[0], (double)w[1], (double)w[2]);
        }
        for (size_t v = 0; v < 4 * q->quad_count; v++) {
            float w[3];
            place(&in->transform, q->positions + 3 * v, w);
            const uint32_t c = q->colors[v];
            printf_bytes(&o, "v %.9g %.9g %.9g %.6g %.6g %.6g\n", (double)w[0], (double)w[1],
                         (double)w[2], (c & 255) / 255.0, (c >> 8 & 255) / 255.0,
                         (c >> 16 & 255) / 255.0);
        }
        const bool flip = mirrors(&in->transform);
        for (size_t f = 0; f < q->quad_count; f++) {
            const float *n = q->normals + 12 * f;
            const int a = n[0] != 0 ? 0 : n[1] != 0 ? 1 : 2, dir = 2 * a + (n[a] > 0);
            const uint64_t v = base + 4 * f, vn = normal_base + (uint64_t)dir;
            if (flip)
                printf_bytes(&o, "f %llu//%llu %llu//%llu %llu//%llu %llu//%llu\n",
                             (unsigned long long)(v + 3), (unsigned long long)vn,
                             (unsigned long long)(v + 2), (unsigned long long)vn,
                             (unsigned long long)(v + 1), (unsigned long long)vn,
                             (unsigned long long)v, (unsigned long long)vn);
            else
                printf_bytes(&o, "f %llu//%llu %llu//%llu %llu//%llu %llu//%llu\n",
                             (unsigned long long)v, (unsigned long long)vn,
                             (unsigned long long)(v + 1), (unsigned long long)vn,
                             (unsigned long long)(v + 2), (unsigned long long)vn,
                             (unsigned long long)(v + 3), (unsigned long long)vn);
        }
        base += 4 * q->quad_count;
        normal_base += 6;
    }
    if (o.failed) {
        free(o.p);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    *data = o.p;
    *size = o.n;
    return VXR_OK;
}

static void put_float(vxr_bytes *o, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    vxr_bytes_put32(o, u);
}

static vxr_result save_ply(const vxr_scene *s, const vxr_mesh *m, uint8_t **data, size_t *size,
                           vxr_error *err) {
    uint64_t quads = 0;
    for (uint32_t i = 0; i < s->instance_count; i++)
        if (shown(m, &s->instances[i])) quads += m[s->instances[i].model].quad_count;
    if (4 * quads > UINT32_MAX)
        return vxr_fail(err, VXR_ERROR_LIMIT, "%llu vertices, over the .ply writer's 2^32",
                        (unsigned long long)(4 * quads));
    vxr_bytes o = {0};
    printf_bytes(&o,
                 "ply\nformat binary_little_endian 1.0\ncomment vxr %s: the faces between solid "
                 "and empty voxels, world placed\nelement vertex %llu\nproperty float x\n"
                 "property float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                 "property float nz\nproperty uchar red\nproperty uchar green\nproperty uchar "
                 "blue\nelement face %llu\nproperty list uchar uint vertex_indices\nend_header\n",
                 VXR_VERSION_STRING, (unsigned long long)(4 * quads), (unsigned long long)quads);
    for (uint32_t i = 0; i < s->instance_count && !o.failed; i++) {
        const vxr_instance *in = &s->instances[i];
        if (!shown(m, in)) continue;
        const vxr_mesh *q = &m[in->model];
        for (size_t v = 0; v < 4 * q->quad_count; v++) {
            float w[3], n[3];
            place(&in->transform, q->positions + 3 * v, w);
            turn(&in->transform, q->normals + 3 * v, n);
            for (int k = 0; k < 3; k++) put_float(&o, w[k]);
            for (int k = 0; k < 3; k++) put_float(&o, n[k]);
            const uint32_t c = q->colors[v];
            const uint8_t rgb[3] = {(uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16)};
            vxr_bytes_put(&o, rgb, 3);
        }
    }
    uint32_t base = 0;
    for (uint32_t i = 0; i < s->instance_count && !o.failed; i++) {
        const vxr_instance *in = &s->instances[i];
        if (!shown(m, in)) continue;
        const vxr_mesh *q = &m[in->model];
        const bool flip = mirrors(&in->transform);
        for (size_t f = 0; f < q->quad_count; f++, base += 4) {
            const uint8_t four = 4;
            vxr_bytes_put(&o, &four, 1);
            for (uint32_t k = 0; k < 4; k++) vxr_bytes_put32(&o, base + (flip ? 3 - k : k));
        }
    }
    if (o.failed) {
        free(o.p);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    *data = o.p;
    *size = o.n;
    return VXR_OK;
}

vxr_result vxr_save_mesh(const vxr_scene *s, vxr_mesh_format format, vxr_mesh_mode mode,
                         uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    if (format > VXR_MESH_PLY || mode > VXR_MESH_CUBES)
        return vxr_fail(err, VXR_ERROR_ARGUMENT, "unknown mesh format %d or mode %d", (int)format,
                        (int)mode);
    vxr_mesh *m;
    vxr_result r = build_meshes(s, mode, &m, err);
    if (r != VXR_OK) return r;
    switch (format) {
    case VXR_MESH_GLB:
        r = save_gltf(s, m, true, data, size, err);
        break;
    case VXR_MESH_GLTF:
        r = save_gltf(s, m, false, data, size, err);
        break;
    case VXR_MESH_OBJ:
        r = save_obj(s, m, data, size, err);
        break;
    default:
        r = save_ply(s, m, data, size, err);
        break;
    }
    free_meshes(s, m);
    return r;
}

/* The format table's savers (core/formats.c): greedy meshes. */
vxr_result vxr_save_glb(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    return vxr_save_mesh(s, VXR_MESH_GLB, VXR_MESH_GREEDY, data, size, err);
}

vxr_result vxr_save_gltf(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    return vxr_save_mesh(s, VXR_MESH_GLTF, VXR_MESH_GREEDY, data, size, err);
}

vxr_result vxr_save_obj(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    return vxr_save_mesh(s, VXR_MESH_OBJ, VXR_MESH_GREEDY, data, size, err);
}

vxr_result vxr_save_ply(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err) {
    return vxr_save_mesh(s, VXR_MESH_PLY, VXR_MESH_GREEDY, data, size, err);
}
