/* Scene sources, scene construction, instance bounds and records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

/* Voxels a model source holds at first; it doubles. */
#define FIRST_VOXELS 256

void vxr_scene_src_init(vxr_scene_src *src, uint32_t attr_size) {
    memset(src, 0, sizeof *src);
    src->attr_size = attr_size;
}

static int grow_array(void **p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 1;
    uint32_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > UINT32_MAX / 2) return 0;
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

vxr_result vxr_scene_src_add_model(vxr_scene_src *src, uint32_t *index) {
    if (src->model_count == UINT32_MAX || !grow_array((void **)&src->models, &src->model_capacity,
                                                      src->model_count + 1, sizeof *src->models))
        return VXR_ERROR_MEMORY;
    memset(&src->models[src->model_count], 0, sizeof *src->models);
    *index = src->model_count++;
    return VXR_OK;
}

vxr_result vxr_scene_src_add_instance(vxr_scene_src *src, const vxr_instance *inst) {
    if (src->instance_count == UINT32_MAX ||
        !grow_array((void **)&src->instances, &src->instance_capacity, src->instance_count + 1,
                    sizeof *src->instances))
        return VXR_ERROR_MEMORY;
    src->instances[src->instance_count++] = *inst;
    return VXR_OK;
}

/* The palette entry (1..255) of rgba, added to palette when new; 0 once
 * 255 colours are taken and rgba is not one of them. */
static uint32_t color_index(vxr_color_map *m, uint32_t rgba, uint32_t *palette) {
    uint32_t h = (rgba * 2654435761u) >> 23; /* open addressing, 512 slots */
    for (;; h = (h + 1) & 511) {
        if (m->index[h] == 0) {
            if (m->count == 255) return 0;
            m->key[h] = rgba;
            m->index[h] = (uint8_t)++m->count;
            palette[m->count] = rgba;
            return m->count;
        }
        if (m->key[h] == rgba) return m->index[h];
    }
}

uint32_t vxr_color_attr(vxr_color_map *m, vxr_scene_src *src, uint32_t rgba) {
    if (m->rgba) return rgba;
    const uint32_t k = color_index(m, rgba, src->palette);
    if (k) return k;
    m->rgba = true;
    for (uint32_t i = 0; i < src->model_count; i++) {
        vxr_model_src *md = &src->models[i];
        for (size_t j = 0; j < md->count; j++)
            md->voxels[j].color = src->palette[md->voxels[j].color];
    }
    memset(src->palette, 0, sizeof src->palette);
    return rgba;
}

vxr_result vxr_model_src_push(vxr_model_src *m, int32_t x, int32_t y, int32_t z, uint32_t color) {
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : FIRST_VOXELS;
        vxr_voxel *p = realloc(m->voxels, cap * sizeof *p);
        if (!p) return VXR_ERROR_MEMORY;
        m->voxels = p;
        m->capacity = cap;
    }
    m->voxels[m->count++] = (vxr_voxel){x, y, z, color};
    return VXR_OK;
}

static void gen_free(vxr_model_gen *g) {
    if (g && g->destroy) g->destroy(g->user);
    free(g);
}

vxr_result vxr_model_src_materialize(vxr_model_src *m, vxr_error *err) {
    vxr_model_gen *g = m->gen;
    if (!g) return VXR_OK;
    bool empty = false;
    for (int k = 0; k < 3; k++) empty |= g->vmin[k] >= g->vmax[k];
    vxr_result r = empty ? VXR_OK : g->emit(g->user, g->vmin, g->vmax, m);
    if (r != VXR_OK) {
        free(m->voxels);
        m->voxels = NULL;
        m->count = m->capacity = 0;
        return vxr_fail(err, r, "generator failed on its bounds [%d,%d,%d]..[%d,%d,%d]", g->vmin[0],
                        g->vmin[1], g->vmin[2], g->vmax[0], g->vmax[1], g->vmax[2]);
    }
    gen_free(g);
    m->gen = NULL;
    return VXR_OK;
}

void vxr_scene_src_free(vxr_scene_src *src) {
    if (!src) return;
    for (uint32_t i = 0; i < src->model_count; i++) {
        free(src->models[i].voxels);
        gen_free(src->models[i].gen);
    }
    free(src->models);
    free(src->instances);
    free(src->vox_chunks);
    uint32_t attr_size = src->attr_size;
    vxr_scene_src_init(src, attr_size);
}

bool vxr_rotation_orthonormal(const float r[9]) {
    /* R R^T = I to float precision, row by row: a rotation or a reflection
     * (signed axis permutations among them), whose inverse is R^T. The
     * tolerance takes matrices written with six decimals. */
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++) d += (double)r[3 * i + k] * (double)r[3 * j + k];
            if (!(fabs(d - (i == j)) <= 1e-4)) return false;
        }
    return true;
}

vxr_result vxr_instance_check(const vxr_instance *in, uint32_t index, uint32_t models,
                              vxr_error *err) {
    if (in->model >= models)
        return vxr_fail(err, VXR_ERROR_FORMAT, "instance %u names model %u of %u", index, in->model,
                        models);
    const vxr_transform *t = &in->transform;
    int finite =
        isfinite(t->scale) && t->scale > 0 && !isnan(in->view_distance) && in->view_distance >= 0;
    /* Finite is not enough: world bounds (int64 cells) must not overflow.
     * Rotation entries lie in [-1, 1]; scale and translation get generous
     * limits (NaN fails every comparison). */
    for (int k = 0; k < 9; k++) finite = finite && fabsf(t->rotation[k]) <= 1.001f;
    for (int k = 0; k < 3; k++) finite = finite && fabsf(t->translation[k]) <= 0x1p31f;
    finite = finite && t->scale <= 0x1p20f;
    if (!finite)
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "instance %u has a transform out of range (rotation entries beyond 1, "
                        "scale not in (0, 2^20], translation beyond 2^31, or not finite) or a bad "
                        "view distance",
                        index);
    if (!vxr_rotation_orthonormal(t->rotation))
        return vxr_fail(err, VXR_ERROR_FORMAT,
                        "instance %u has a rotation that is not orthonormal (a zero, scaled or "
                        "sheared matrix; picks and the GPU invert it by its transpose)",
                        index);
    return VXR_OK;
}

vxr_scene *vxr_scene_alloc(uint32_t models, uint32_t instances) {
    vxr_scene *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model_capacity = models ? models : 1;
    s->instance_capacity = instances ? instances : 1;
    s->models = calloc(s->model_capacity, sizeof *s->models);
    s->instances = calloc(s->instance_capacity, sizeof *s->instances);
    s->model_version = calloc(s->model_capacity, sizeof *s->model_version);
    s->instance_version = calloc(s->instance_capacity, sizeof *s->instance_version);
    s->model_added = calloc(s->model_capacity, sizeof *s->model_added);
    s->instance_moved = calloc(s->instance_capacity, sizeof *s->instance_moved);
    if (!s->models || !s->instances || !s->model_version || !s->instance_version ||
        !s->model_added || !s->instance_moved) {
        vxr_scene_destroy(s);
        return NULL;
    }
    s->model_count = models;
    s->instance_count = instances;
    return s;
}

/* Models of a scene build: a thread each, side by side. */
typedef struct model_job {
    const vxr_scene_src *src;
    vxr_scene *scene;
    const uint32_t *models;
    vxr_result *results;
} model_job;

static void build_models(void *user, size_t begin, size_t end) {
    const model_job *j = user;
    for (size_t i = begin; i < end; i++) {
        uint32_t m = j->models[i];
        j->results[m] =
            vxr_model_build(&j->src->models[m], j->src->attr_size, 1, &j->scene->models[m], NULL);
    }
}

/* A model is built over all the threads when it has at least 2^18 voxels
 * and more than 1.5 / threads of all of them (the others together would
 * not keep the threads busy meanwhile), or when it is a generator. */
static bool build_alone(const vxr_scene_src *src, uint32_t m, uint64_t total, uint32_t threads) {
    const vxr_model_src *model = &src->models[m];
    if (model->gen) return true;
    return threads > 1 && model->count >= (1u << 18) &&
           2 * (uint64_t)threads * model->count > 3 * total;
}

vxr_result vxr_scene_build(const vxr_scene_src *src, vxr_scene **dest, vxr_error *err) {
    return vxr_scene_build_threads(src, 0, dest, err);
}

vxr_result vxr_scene_build_threads(const vxr_scene_src *src, uint32_t threads, vxr_scene **dest,
                                   vxr_error *err) {
    *dest = NULL;
    for (uint32_t i = 0; i < src->instance_count; i++) {
        vxr_result r = vxr_instance_check(&src->instances[i], i, src->model_count, err);
        if (r != VXR_OK) return r;
    }
    vxr_scene *s = vxr_scene_alloc(src->model_count, src->instance_count);
    if (!s) return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    if (src->instance_count) /* src->instances may be NULL */
        memcpy(s->instances, src->instances, src->instance_count * sizeof *s->instances);
    memcpy(s->palette, src->palette, sizeof s->palette);
    memcpy(s->materials, src->materials, sizeof s->materials);
    s->attr_size = src->attr_size;
    if (src->vox_chunks_size) {
        s->vox_chunks = malloc(src->vox_chunks_size);
        if (!s->vox_chunks) {
            vxr_scene_destroy(s);
            return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
        }
        memcpy(s->vox_chunks, src->vox_chunks, src->vox_chunks_size);
        s->vox_chunks_size = src->vox_chunks_size;
        s->vox_frame = src->vox_frame;
    }
    double t0 = vxr_seconds();
    threads = vxr_build_threads(threads);
    const uint32_t n = src->model_count;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += src->models[i].count;
    uint32_t *side = malloc((n ? n : 1) * sizeof *side);
    vxr_result *results = malloc((n ? n : 1) * sizeof *results);
    if (!side || !results) {
        free(side);
        free(results);
        vxr_scene_destroy(s);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    /* Large models one by one over the threads, until one fails; then the
     * others before it side by side. The lowest failing model is reported. */
    uint32_t sides = 0, failed = n;
    vxr_result r = VXR_OK;
    for (uint32_t i = 0; i < n && r == VXR_OK; i++) {
        if (!build_alone(src, i, total, threads))
            side[sides++] = i;
        else if ((r = vxr_model_build(&src->models[i], src->attr_size, threads, &s->models[i],
                                      err)) != VXR_OK)
            failed = i;
    }
    model_job job = {src, s, side, results};
    vxr_parallel_for(sides, 1, threads, build_models, &job);
    for (uint32_t k = 0; k < sides; k++) {
        uint32_t m = side[k];
        if (results[m] == VXR_OK) continue;
        /* Again on this thread, for the message. */
        r = vxr_model_build(&src->models[m], src->attr_size, 1, &s->models[m], err);
        if (r == VXR_OK)
            r = vxr_fail(err, results[m],
                         results[m] == VXR_ERROR_MEMORY ? "out of memory"
                                                        : "failed on a worker thread only");
        failed = m;
        break;
    }
    free(side);
    free(results);
    if (r != VXR_OK) {
        if (err) {
            char inner[sizeof err->message];
            memcpy(inner, err->message, sizeof inner);
            vxr_fail(err, r, "model %u: %.200s", failed, inner);
        }
        vxr_scene_destroy(s);
        return r;
    }
    s->build_s = vxr_seconds() - t0;
    *dest = s;
    return VXR_OK;
}

void vxr_scene_destroy(vxr_scene *s) {
    if (!s) return;
    if (s->models)
        for (uint32_t i = 0; i < s->model_count; i++) vxr_octree_free(&s->models[i]);
    VXR_FREE(s->models, s->instances, s->model_version, s->instance_version, s->instance_moved,
             s->model_added, s->journal, s->vox_chunks, s);
}

void vxr_instance_world_bounds(const vxr_scene *s, uint32_t index, float dest_min[3],
                               float dest_max[3]) {
    const vxr_instance *in = &s->instances[index];
    const vxr_octree *m = &s->models[in->model];
    const vxr_transform *t = &in->transform;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int c = 0; c < 8; c++) {
        double p[3] = {c & 4 ? m->vmax[0] : m->vmin[0], c & 2 ? m->vmax[1] : m->vmin[1],
                       c & 1 ? m->vmax[2] : m->vmin[2]};
        for (int r = 0; r < 3; r++) {
            double w = t->translation[r];
            for (int k = 0; k < 3; k++) w += (double)t->rotation[3 * r + k] * t->scale * p[k];
            if (w < lo[r]) lo[r] = w;
            if (w > hi[r]) hi[r] = w;
        }
    }
    for (int r = 0; r < 3; r++) {
        dest_min[r] = (float)lo[r];
        dest_max[r] = (float)hi[r];
    }
}

void vxr_instance_gpu(const vxr_scene *s, uint32_t i, vxr_gpu_instance *g) {
    const vxr_instance *in = &s->instances[i];
    const vxr_transform *t = &in->transform;
    memset(g, 0, sizeof *g);
    /* local = R^T (world - t) / s: the inverse of world = R (s local) + t. */
    for (int r = 0; r < 3; r++) {
        float off = 0;
        for (int k = 0; k < 3; k++) {
            g->local_to_world[4 * r + k] = t->rotation[3 * r + k] * t->scale;
            g->world_to_local[4 * r + k] = t->rotation[3 * k + r] / t->scale;
            off -= t->rotation[3 * k + r] * t->translation[k];
        }
        g->local_to_world[4 * r + 3] = t->translation[r];
        g->world_to_local[4 * r + 3] = off / t->scale;
    }
    vxr_instance_world_bounds(s, i, g->aabb_min, g->aabb_max);
    g->model = in->model;
    g->flags = in->flags;
    g->scale = t->scale;
    g->view_distance = in->view_distance;
}

void vxr_instance_records(const vxr_scene *s, vxr_gpu_instance *dest) {
    for (uint32_t i = 0; i < s->instance_count; i++) vxr_instance_gpu(s, i, &dest[i]);
}
