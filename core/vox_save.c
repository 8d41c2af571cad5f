/* MagicaVoxel .vox writer, version 200: the inverse of core/vox.c.
 *
 * Layout: MAIN holding SIZE/XYZI per written model, then the scene graph,
 * the RGBA palette, IMAP, MATL and the rOBJ, rCAM and NOTE chunks. A scene
 * read from a .vox gets the file's own graph back, patched where the scene
 * changed (core/vox_graph.c), its MATL chunks while their materials are
 * unchanged, and IMAP, rOBJ, rCAM and NOTE as they were
 * (vxr_scene.vox_chunks). Otherwise the graph is vxr's own: root nTRN 0 ->
 * nGRP 1 -> per instance an nTRN with `_r`/`_t` over an nSHP, one LAYR
 * (layer 0), and a MATL chunk per palette entry whose material is not
 * plain diffuse.
 *
 * Placement (DESIGN.md §2): the reader turns a voxel v' of a model of size S
 * under translation t and rotation R into the instance transform
 * world = R v' + (t - R floor(S/2)). A vxr instance world = R v + T whose
 * model is written shifted (v' = v - d) thus gets t = T + R (d + floor(S/2)).
 * A model keeps its own coordinates (d = 0) when they lie in 0..255; else
 * d moves it into that range, at the root cube the bulk builder would give
 * it so that the reloaded octree has the same shape; a model wider than 256
 * cells becomes blocks of 256^3 under an nGRP of its own per instance (that
 * group's nTRN carries the instance transform, each block's nTRN its
 * offset d + floor(S/2)).
 *
 * Blocks list their voxels sorted by (z, y, x), so the bytes depend only on
 * the voxels and a saved file saved again after loading is the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vox_write.h"

/* ---- colours ---- */

/* An RGBA scene's distinct colours, sorted: file palette entry i + 1 is
 * colours[i]. */
typedef struct colours {
    uint32_t v[255];
    uint32_t n;
    bool too_many;
    uint32_t key[512];
    bool used[512];
} colours;

static void add_colour(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    (void)x, (void)y, (void)z;
    colours *c = user;
    uint32_t h = (attr * 2654435761u) >> 23;
    for (; c->used[h]; h = (h + 1) & 511)
        if (c->key[h] == attr) return;
    if (c->n == 255) {
        c->too_many = true;
        return;
    }
    c->used[h] = true;
    c->key[h] = attr;
    c->v[c->n++] = attr;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- models ---- */

typedef struct cell {
    int32_t p[3];
    uint32_t attr;
    uint64_t block; /* block index, for splitting */
} cell;

typedef struct cells {
    cell *c;
    size_t n, cap;
    bool failed;
} cells;

static void add_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    cells *cs = user;
    if (cs->failed) return;
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 1024;
        cell *c = cap > SIZE_MAX / sizeof *c ? NULL : realloc(cs->c, cap * sizeof *c);
        if (!c) {
            cs->failed = true;
            return;
        }
        cs->c = c;
        cs->cap = cap;
    }
    cs->c[cs->n++] = (cell){{x, y, z}, attr, 0};
}

static int cmp_cell(const void *a, const void *b) {
    const cell *x = a, *y = b;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    for (int k = 2; k >= 0; k--)
        if (x->p[k] != y->p[k]) return x->p[k] < y->p[k] ? -1 : 1;
    return 0;
}

static bool add_piece(saver *s, const int32_t shift[3], const int32_t size[3]) {
    if (s->n_pieces == s->cap_pieces) {
        uint32_t cap = s->cap_pieces ? s->cap_pieces * 2 : 64;
        piece *p = cap < s->cap_pieces ? NULL : realloc(s->pieces, cap * sizeof *p);
        if (!p) return false;
        s->pieces = p;
        s->cap_pieces = cap;
    }
    piece *p = &s->pieces[s->n_pieces++];
    memcpy(p->shift, shift, sizeof p->shift);
    memcpy(p->size, size, sizeof p->size);
    return true;
}

static uint32_t palette_index(const saver *s, uint32_t attr) {
    if (!s->rgba) return attr;
    const uint32_t *at = bsearch(&attr, s->rgba->v, s->rgba->n, sizeof attr, cmp_u32);
    return (uint32_t)(at - s->rgba->v) + 1;
}

/* SIZE and XYZI of cells c[0..n) shifted by shift; records the piece. */
static vxr_result write_piece(saver *s, const cell *c, size_t n, const int32_t shift[3],
                              const int32_t *floor_size) {
    int32_t size[3] = {1, 1, 1};
    if (floor_size) memcpy(size, floor_size, sizeof size);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (c[i].p[k] - shift[k] + 1 > size[k]) size[k] = c[i].p[k] - shift[k] + 1;
    if (!add_piece(s, shift, size)) return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    size_t at = chunk_begin(&s->o, "SIZE");
    for (int k = 0; k < 3; k++) put_i32(&s->o, size[k]);
    chunk_end(&s->o, at);
    at = chunk_begin(&s->o, "XYZI");
    put_i32(&s->o, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        const uint8_t v[4] = {(uint8_t)(c[i].p[0] - shift[0]), (uint8_t)(c[i].p[1] - shift[1]),
                              (uint8_t)(c[i].p[2] - shift[2]),
                              (uint8_t)palette_index(s, c[i].attr)};
        vxr_bytes_put(&s->o, v, 4);
    }
    chunk_end(&s->o, at);
    return s->o.failed ? vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory") : VXR_OK;
}

/* The shift of a model that spans at most BLOCK cells a side: none when it
 * lies in 0..255, else the root cube of the bulk builder (core/svo_build.c,
 * trimmed_root) when that fits in a block, so that the reloaded octree has
 * the same nodes, else its minimum. */
static void fitting_shift(const int32_t lo[3], const int32_t hi[3], int32_t d[3]) {
    bool fits = true;
    uint32_t any = 0;
    for (int k = 0; k < 3; k++) {
        fits = fits && lo[k] >= 0 && hi[k] <= BLOCK;
        any |= vxr_abs_svo(lo[k]) | vxr_abs_svo(hi[k] - 1);
    }
    if (fits) {
        memset(d, 0, 3 * sizeof *d);
        return;
    }
    uint32_t bits = vxr_bitlen64(any);
    int64_t h = (int64_t)1 << (bits < 1 ? 1 : bits);
    uint32_t depth = VXR_MIN_DEPTH;
    for (int k = 0; k < 3; k++) {
        uint32_t b = vxr_bitlen64((uint64_t)(lo[k] + h) ^ (uint64_t)(hi[k] - 1 + h));
        if (b > depth) depth = b;
    }
    for (int k = 0; k < 3; k++)
        d[k] = depth <= 8 ? (int32_t)((((lo[k] + h) >> depth) << depth) - h) : lo[k];
}

/* A model read from the file keeps its pivot floor(S/2) (S its SIZE
 * there), so that every key frame of the file's graph (core/vox_graph.c)
 * places its voxels as before: per axis its SIZE while the voxels lie
 * within it, else the smallest box centred on the pivot, when that fits
 * in a block. */
static bool keep_pivot(const saver *s, uint32_t m, const int32_t lo[3], const int32_t hi[3],
                       int32_t d[3], int32_t size[3]) {
    if (m >= s->file_models || s->scene->model_added[m]) return false;
    for (int k = 0; k < 3; k++) {
        const int32_t S = s->file_size[m][k], c = S / 2;
        const int64_t half =
            (int64_t)c - lo[k] > (int64_t)hi[k] - c ? (int64_t)c - lo[k] : (int64_t)hi[k] - c;
        const bool inside = lo[k] >= 0 && hi[k] <= S;
        if (!inside && 2 * half > BLOCK) return false;
        size[k] = inside ? S : (int32_t)(2 * half);
        d[k] = inside ? 0 : c - (int32_t)half;
    }
    return true;
}

/* Writes model m as one piece, or as blocks of BLOCK^3 when it is wider. */
static vxr_result write_model(saver *s, uint32_t m) {
    const vxr_octree *t = &s->scene->models[m];
    cells cs = {0};
    vxr_octree_foreach(t, add_cell, &cs);
    if (cs.failed) {
        free(cs.c);
        return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    }
    int32_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (size_t i = 0; i < cs.n; i++)
        for (int k = 0; k < 3; k++) {
            if (i == 0 || cs.c[i].p[k] < lo[k]) lo[k] = cs.c[i].p[k];
            if (i == 0 || cs.c[i].p[k] + 1 > hi[k]) hi[k] = cs.c[i].p[k] + 1;
        }
    /* Blocks: per axis from 0 when the axis lies in 0..255, else from lo. */
    int32_t base[3];
    uint64_t blocks[3];
    bool split = false;
    for (int k = 0; k < 3; k++) {
        base[k] = lo[k] >= 0 && hi[k] <= BLOCK ? 0 : lo[k];
        blocks[k] = ((uint64_t)((int64_t)hi[k] - base[k]) + BLOCK - 1) / BLOCK;
        split = split || (int64_t)hi[k] - lo[k] > BLOCK;
    }
    for (size_t i = 0; i < cs.n; i++) {
        uint64_t b[3];
        for (int k = 0; k < 3; k++) b[k] = split ? (uint64_t)(cs.c[i].p[k] - base[k]) / BLOCK : 0;
        cs.c[i].block = (b[0] * blocks[1] + b[1]) * blocks[2] + b[2];
    }
    if (cs.n) qsort(cs.c, cs.n, sizeof *cs.c, cmp_cell);
    s->first[m] = s->n_pieces;
    vxr_result r = VXR_OK;
    if (!split) {
        int32_t d[3], size[3];
        const bool pivot = keep_pivot(s, m, lo, hi, d, size);
        if (!pivot) fitting_shift(lo, hi, d);
        r = write_piece(s, cs.c, cs.n, d, pivot ? size : NULL);
    }
    for (size_t i = 0, j; split && r == VXR_OK && i < cs.n; i = j) {
        for (j = i + 1; j < cs.n && cs.c[j].block == cs.c[i].block;) j++;
        int32_t d[3];
        for (int k = 0; k < 3; k++) d[k] = base[k] + (cs.c[i].p[k] - base[k]) / BLOCK * BLOCK;
        r = write_piece(s, cs.c + i, j - i, d, NULL);
    }
    s->count[m] = s->n_pieces - s->first[m];
    free(cs.c);
    return r;
}

/* Whether model m is written: removed models (vxr_scene_remove_model
 * leaves them zeroed) are not, unless an instance still names one. */
static bool model_written(const vxr_scene *scene, uint32_t m, const bool *named) {
    const vxr_octree *t = &scene->models[m];
    return named[m] || t->live || t->node_count || t->attr_size;
}

/* ---- scene graph ---- */

static vxr_result write_graph(saver *s) {
    const vxr_scene *sc = s->scene;
    bool kept = false;
    vxr_result kr = vxr_vox_write_kept_graph(s, &kept);
    if (kr != VXR_OK || kept) return kr;
    uint32_t n = 0;
    uint64_t shapes = 0, ids = 2;
    for (uint32_t i = 0; i < sc->instance_count; i++) {
        if (!vxr_vox_saved(&sc->instances[i])) continue;
        n++;
        shapes += s->count[sc->instances[i].model];
        ids += (uint64_t)vxr_vox_subtree_nodes(s, sc->instances[i].model);
    }
    if (shapes > MAX_SHAPES || ids > INT32_MAX)
        return vxr_fail(s->err, VXR_ERROR_LIMIT,
                        "%llu model placements (instances times the 256^3 blocks of their "
                        "models): more than a .vox reader takes (2^24)",
                        (unsigned long long)shapes);
    int32_t *children = malloc((n ? n : 1) * sizeof *children);
    if (!children) return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    int32_t id = 2;
    for (uint32_t i = 0, k = 0; i < sc->instance_count; i++) {
        if (!vxr_vox_saved(&sc->instances[i])) continue;
        children[k++] = id;
        id += vxr_vox_subtree_nodes(s, sc->instances[i].model);
    }
    vxr_vox_put_trn(&s->o, 0, 1, -1, false, IDENTITY_ROTATION, NULL);
    vxr_vox_put_grp(&s->o, 1, children, n);
    free(children);
    vxr_result r = VXR_OK;
    id = 2;
    for (uint32_t i = 0; r == VXR_OK && i < sc->instance_count; i++) {
        if (!vxr_vox_saved(&sc->instances[i])) continue;
        r = vxr_vox_write_instance(s, i, id, 0);
        id += vxr_vox_subtree_nodes(s, sc->instances[i].model);
    }
    const size_t at = chunk_begin(&s->o, "LAYR");
    put_i32(&s->o, 0);
    put_dict(&s->o, NULL, 0);
    put_i32(&s->o, -1);
    chunk_end(&s->o, at);
    return r;
}

static void write_palette(saver *s) {
    size_t at = chunk_begin(&s->o, "RGBA");
    for (uint32_t i = 1; i <= 256; i++) {
        uint32_t c = 0;
        if (i < 256) c = s->rgba ? (i <= s->rgba->n ? s->rgba->v[i - 1] : 0) : s->scene->palette[i];
        const uint8_t b[4] = {(uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16),
                              (uint8_t)(c >> 24)};
        vxr_bytes_put(&s->o, b, 4);
    }
    chunk_end(&s->o, at);
}

/* The file's MATL chunks as they were while their material is the
 * scene's, then MATL for every other palette entry whose material is not
 * plain diffuse (as core/vox.c reads it back: _type, _rough, _ior - 1,
 * and the emission as _emit * 2^_flux with _emit at most 1). A scene of
 * RGBA8 voxels has no palette materials to keep. */
static void write_materials(saver *s) {
    static const char *const kinds[] = {"_diffuse", "_metal", "_glass", "_emit"};
    const vxr_scene *sc = s->scene;
    bool kept[256] = {false};
    const uint8_t *id, *c;
    size_t at = 0, at0 = 0, n;
    for (; sc->attr_size == 1 &&
           vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &c, &n);
         at0 = at) {
        int32_t k;
        vxr_material m;
        if (memcmp(id, "MATL", 4) || !vxr_vox_parse_material(c, n, &k, &m)) continue;
        const bool entry = k >= 1 && k <= 255;
        if (entry && memcmp(&m, &sc->materials[k], sizeof m)) continue;
        if (entry) kept[k] = true;
        vxr_bytes_put(&s->o, id, at - at0);
    }
    for (int k = 1; k < 256 && sc->attr_size == 1; k++) {
        const vxr_material *m = &sc->materials[k];
        if (kept[k] || (m->kind == VXR_MATERIAL_DIFFUSE && m->rough == 0)) continue;
        char rough[32], ior[32], emit[32], flux[8];
        int f = 0;
        while (f < 8 && m->emit > exp2f((float)f)) f++;
        snprintf(rough, sizeof rough, "%.9g", (double)m->rough);
        snprintf(ior, sizeof ior, "%.9g", (double)(m->ior - 1.0f));
        snprintf(emit, sizeof emit, "%.9g", (double)(m->emit / exp2f((float)f)));
        snprintf(flux, sizeof flux, "%d", f);
        const bool emits = m->kind == VXR_MATERIAL_EMIT;
        const char *kv[8] = {"_type",
                             kinds[m->kind < 4 ? m->kind : 0],
                             "_rough",
                             rough,
                             emits ? "_emit" : "_ior",
                             emits ? emit : ior,
                             "_flux",
                             flux};
        const size_t start = chunk_begin(&s->o, "MATL");
        put_i32(&s->o, k);
        put_dict(&s->o, kv, emits ? 4 : m->kind == VXR_MATERIAL_GLASS ? 3 : 2);
        chunk_end(&s->o, start);
    }
}

/* ---- the whole file ---- */

static vxr_result check_instances(const vxr_scene *sc, bool *named, vxr_error *err) {
    for (uint32_t i = 0; i < sc->instance_count; i++) {
        const vxr_instance *in = &sc->instances[i];
        if (!vxr_vox_saved(in)) continue;
        if (in->model >= sc->model_count)
            return vxr_fail(err, VXR_ERROR_ARGUMENT, "instance %u names model %u of %u", i,
                            in->model, sc->model_count);
        placement pl;
        vxr_result r = vxr_vox_get_placement(in, i, &pl, err);
        if (r != VXR_OK) return r;
        named[in->model] = true;
    }
    return VXR_OK;
}

static vxr_result collect_colours(saver *s, const bool *written) {
    if (s->scene->attr_size != 4) return VXR_OK;
    s->rgba = calloc(1, sizeof *s->rgba);
    if (!s->rgba) return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t m = 0; m < s->scene->model_count && !s->rgba->too_many; m++)
        if (written[m]) vxr_octree_foreach(&s->scene->models[m], add_colour, s->rgba);
    if (s->rgba->too_many)
        return vxr_fail(s->err, VXR_ERROR_LIMIT,
                        "the scene has more than 255 distinct RGBA colours: a .vox palette "
                        "holds 255");
    qsort(s->rgba->v, s->rgba->n, sizeof *s->rgba->v, cmp_u32);
    return VXR_OK;
}

/* The chunks the file came with among `ids` (4 bytes each), in order. */
static void write_unread(saver *s, const char *ids) {
    const vxr_scene *sc = s->scene;
    const uint8_t *id, *c;
    size_t at = 0, at0 = 0, n;
    for (; vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &c, &n); at0 = at)
        for (const char *k = ids; *k; k += 4)
            if (!memcmp(id, k, 4)) vxr_bytes_put(&s->o, id, at - at0);
}

/* The SIZE of each model of the file the scene was read from. */
static vxr_result file_sizes(saver *s) {
    const vxr_scene *sc = s->scene;
    const uint8_t *id, *c;
    size_t at = 0, n;
    uint32_t count = 0;
    while (vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &c, &n))
        count += !memcmp(id, "SIZE", 4) && n >= 12;
    s->file_size = count ? malloc(count * sizeof *s->file_size) : NULL;
    if (count && !s->file_size) return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    for (at = 0, count = 0;
         vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &c, &n);)
        if (!memcmp(id, "SIZE", 4) && n >= 12) {
            for (int k = 0; k < 3; k++) {
                const uint32_t v = vxr_get32(c + 4 * k);
                s->file_size[count][k] = v >= 1 && v <= BLOCK ? (int32_t)v : 1;
            }
            count++;
        }
    s->file_models = count;
    return VXR_OK;
}

static vxr_result save(saver *s) {
    const vxr_scene *sc = s->scene;
    size_t models = sc->model_count ? sc->model_count : 1;
    bool *named = calloc(models, sizeof *named);
    s->first = calloc(models, sizeof *s->first);
    s->count = calloc(models, sizeof *s->count);
    if (!named || !s->first || !s->count) {
        free(named);
        return vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    }
    vxr_result r = check_instances(sc, named, s->err);
    if (r == VXR_OK) r = file_sizes(s);
    for (uint32_t m = 0; r == VXR_OK && m < sc->model_count; m++)
        named[m] = model_written(sc, m, named);
    if (r == VXR_OK) r = collect_colours(s, named);
    if (r == VXR_OK) {
        vxr_bytes_put(&s->o, "VOX ", 4);
        put_i32(&s->o, 200);
        vxr_bytes_put(&s->o, "MAIN", 4);
        put_i32(&s->o, 0);
        put_i32(&s->o, 0); /* children: patched below */
    }
    for (uint32_t m = 0; r == VXR_OK && m < sc->model_count; m++)
        if (named[m]) r = write_model(s, m);
    free(named);
    if (r == VXR_OK) r = write_graph(s);
    if (r == VXR_OK) write_palette(s);
    /* the palette's display order, while the palette is the file's */
    if (r == VXR_OK && sc->attr_size == 1) write_unread(s, "IMAP");
    if (r == VXR_OK) write_materials(s);
    /* render settings, cameras and notes */
    if (r == VXR_OK) write_unread(s, "rOBJrCAMNOTE");
    if (r == VXR_OK && s->o.failed) r = vxr_fail(s->err, VXR_ERROR_MEMORY, "out of memory");
    if (r == VXR_OK && s->o.n - 20 > INT32_MAX)
        r = vxr_fail(s->err, VXR_ERROR_LIMIT, "%zu bytes of chunks: more than .vox holds (2^31)",
                     s->o.n - 20);
    if (r == VXR_OK) vxr_put32(s->o.p + 16, (uint32_t)(s->o.n - 20));
    return r;
}

vxr_result vxr_save_vox(const vxr_scene *scene, uint8_t **data, size_t *size, vxr_error *err) {
    *data = NULL;
    *size = 0;
    saver s = {0};
    s.scene = scene;
    s.err = err;
    vxr_result r = save(&s);
    free(s.rgba);
    free(s.pieces);
    free(s.first);
    free(s.count);
    free(s.file_size);
    if (r != VXR_OK) {
        free(s.o.p);
        return r;
    }
    *data = s.o.p;
    *size = s.o.n;
    return VXR_OK;
}
