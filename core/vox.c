/* MagicaVoxel .vox reader, versions 150 and 200.
 *
 * Read: SIZE/XYZI model pairs, RGBA (file entry i is colour i + 1), the
 * default palette when RGBA is absent, the scene graph (nTRN, nGRP, nSHP) at
 * frame 0 (or the frame vxr_load_vox_frame asks for), LAYR and MATL
 * (materials). Kept whole for the writer (vxr_scene_src.vox_chunks): the
 * scene graph with LAYR and the models' SIZE, MATL, and, unread, rOBJ,
 * rCAM, NOTE and IMAP. Skipped: PACK, MATT and any unknown chunk. Formats:
 * ephtracy/voxel-model MagicaVoxel-file-format-vox.txt and
 * MagicaVoxel-file-format-vox-extension.txt.
 *
 * Placement (DESIGN.md §2): a voxel v of a model of size S under a path with
 * composed rotation R and translation t has world cell min
 * floor(R (v + 1/2 - floor(S/2))) + t, i.e. the instance transform
 * world = R local + (t - R floor(S/2)) applied to cells.
 *
 * Hidden nodes and hidden layers hide their subtree; such instances are kept
 * with VXR_INSTANCE_HIDDEN. Voxels with colour index 0 are empty and skipped.
 * Every size and count is checked against the bytes that hold it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vox_parse.h"

static const uint32_t default_palette[256] = {
#include "vox_palette.inc"
};

const uint32_t *vxr_vox_default_palette(void) {
    return default_palette;
}

/* A tree visits each node once; a file that names a node from several
 * parents (a DAG) expands exponentially, so such sharing gets a budget of
 * SHARED_VISITS visits beyond the node count. */
enum {
    MAX_GRAPH_DEPTH = 256,
    MAX_INSTANCES = 1 << 24,
    SHARED_VISITS = 1 << 20,
    MAX_MODEL_SIZE = 256
};
enum { NODE_TRN = 1, NODE_GRP, NODE_SHP };

typedef struct gnode {
    int32_t id;
    int type;
    uint32_t at;      /* file offset of the chunk */
    const uint8_t *p; /* chunk content */
    size_t size;
    int on_path;
} gnode;

typedef struct layer {
    int32_t id;
    int hidden;
} layer;

typedef struct reader {
    vxr_scene_src *src;
    vxr_error *err;
    int32_t (*sizes)[3];
    uint32_t n_sizes, cap_sizes;
    gnode *nodes;
    uint32_t n_nodes, cap_nodes;
    layer *layers;
    uint32_t n_layers, cap_layers;
    int has_palette;
    uint32_t visits, visits_shapes;
    int64_t frame;     /* the animation frame read (0 by default) */
    size_t (*kept)[2]; /* chunks kept for the writer: offset, whole size */
    uint32_t n_kept, cap_kept;
    /* vxr_vox_walk: shapes go to shape() instead of becoming instances */
    vxr_vox_shape_fn shape;
    void *user;
    vxr_vox_shape path; /* the nTRN being walked through, as a shape sees it */
    int32_t up;         /* the node whose child is being visited (-1: none) */
} reader;

static vxr_result fail_at(reader *r, size_t at, const char *what) {
    return vxr_fail(r->err, VXR_ERROR_FORMAT, "byte %zu: %s", at, what);
}

/* A DICT value as a float (MATL's numbers: "0.5", "1e-2"); false for junk. */
static int dict_float(const uint8_t *v, uint32_t n, float *dest) {
    char buf[32];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || !(x >= -1e6 && x <= 1e6)) return 0;
    *dest = (float)x;
    return 1;
}

/* MATL (the extension of the format): material id k describes palette
 * entry k. Kept: _type (_diffuse; _metal, _glass, _emit; the others are
 * taken as diffuse), _rough, _ior (stored as ior - 1), _emit and _flux
 * (emission _emit * 2^_flux). Materials only dress the voxels: a
 * malformed chunk, unknown keys and ids outside 1..255 are skipped. */
bool vxr_vox_parse_material(const uint8_t *chunk, size_t size, int32_t *id, vxr_material *dest) {
    static const char *const keys[] = {"_type", "_rough", "_ior", "_emit", "_flux"};
    const span sc = {chunk, size, 0}, *c = &sc;
    int32_t mid;
    size_t p = 0;
    if (!rd_i32(c, &p, &mid)) return false;
    const size_t dict = p;
    float num[5] = {0, 0, 0, 0, 0};
    uint32_t kind = VXR_MATERIAL_DIFFUSE;
    for (int k = 0; k < 5; k++) {
        const uint8_t *v;
        uint32_t vl;
        int found;
        p = dict;
        if (!rd_dict(c, &p, keys[k], &v, &vl, &found)) return false;
        if (!found) continue;
        if (k == 0) {
            kind = vl == 6 && !memcmp(v, "_metal", 6)   ? VXR_MATERIAL_METAL
                   : vl == 6 && !memcmp(v, "_glass", 6) ? VXR_MATERIAL_GLASS
                   : vl == 5 && !memcmp(v, "_emit", 5)  ? VXR_MATERIAL_EMIT
                                                        : VXR_MATERIAL_DIFFUSE;
        } else if (!dict_float(v, vl, &num[k])) {
            return false;
        }
    }
    *id = mid;
    vxr_material *m = dest;
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->rough = num[1] < 0 ? 0 : num[1] > 1 ? 1 : num[1];
    m->ior = kind == VXR_MATERIAL_GLASS ? 1.0f + (num[2] > 0 ? num[2] : 0.5f) : 0.0f;
    float flux = num[4] < 0 ? 0 : num[4] > 8 ? 8 : num[4];
    m->emit = kind == VXR_MATERIAL_EMIT && num[3] > 0 ? num[3] * exp2f(flux) : 0.0f;
    return true;
}

static int grow(void **p, uint32_t *cap, uint32_t n, size_t elem) {
    if (n < *cap) return 1;
    uint32_t c = *cap ? *cap * 2 : 16;
    if (c > (1u << 26)) return 0;
    void *q = realloc(*p, c * elem);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

static vxr_result read_model(reader *r, span *chunk, size_t at) {
    size_t pos = 0;
    int32_t n;
    if (r->n_sizes <= r->src->model_count)
        return fail_at(r, at, "XYZI chunk without a SIZE chunk before it");
    const int32_t *size = r->sizes[r->src->model_count];
    if (!rd_i32(chunk, &pos, &n) || n < 0 || (size_t)n > (chunk->size - 4) / 4)
        return fail_at(r, at, "XYZI voxel count exceeds the chunk");
    uint32_t index;
    if (vxr_scene_src_add_model(r->src, &index) != VXR_OK)
        return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
    vxr_model_src *m = &r->src->models[index];
    m->voxels = malloc(((size_t)n ? (size_t)n : 1) * sizeof *m->voxels);
    if (!m->voxels) return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
    m->capacity = (size_t)n;
    for (int k = 0; k < 3; k++) m->box_max[k] = size[k]; /* box_min: 0 */
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *v = chunk->p + 4 + 4 * (size_t)i;
        if (v[0] >= size[0] || v[1] >= size[1] || v[2] >= size[2])
            return vxr_fail(r->err, VXR_ERROR_FORMAT,
                            "byte %zu: voxel %d of model %u at (%u,%u,%u) is outside its size "
                            "%dx%dx%d",
                            at, i, index, v[0], v[1], v[2], size[0], size[1], size[2]);
        if (v[3] == 0) continue;
        m->voxels[m->count++] = (vxr_voxel){v[0], v[1], v[2], v[3]};
    }
    return VXR_OK;
}

/* Chunks the writer (core/vox_save.c) needs whole: the scene graph with
 * the models' sizes, and those it writes back unread. */
static bool kept_whole(const char *id) {
    static const char ids[][5] = {"SIZE", "nTRN", "nGRP", "nSHP", "LAYR",
                                  "MATL", "rOBJ", "rCAM", "NOTE", "IMAP"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (!memcmp(id, ids[i], 4)) return true;
    return false;
}

static vxr_result read_chunks(reader *r, span *file, size_t pos, size_t end) {
    while (pos < end) {
        size_t at = pos;
        int32_t n = 0, m = 0;
        if (end - pos < 12) return fail_at(r, at, "truncated chunk header");
        char id[5] = {0};
        memcpy(id, file->p + pos, 4);
        /* The id goes into messages, which must stay one printable line. */
        for (int k = 0; k < 4; k++)
            if (id[k] < 0x20 || id[k] > 0x7e) id[k] = '?';
        pos += 4;
        rd_i32(file, &pos, &n);
        rd_i32(file, &pos, &m);
        if (n < 0 || m < 0 || (size_t)n > end - pos || (size_t)m > end - pos - (size_t)n)
            return vxr_fail(r->err, VXR_ERROR_FORMAT,
                            "byte %zu: chunk '%.4s' claims %d + %d bytes, %zu remain", at, id, n, m,
                            end - pos);
        span c = {file->p + pos, (size_t)n, pos};
        vxr_result res = VXR_OK;
        if (!memcmp(id, "SIZE", 4)) {
            size_t p = 0;
            if (!grow((void **)&r->sizes, &r->cap_sizes, r->n_sizes, sizeof *r->sizes))
                return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
            int32_t *s = r->sizes[r->n_sizes];
            if (!rd_i32(&c, &p, &s[0]) || !rd_i32(&c, &p, &s[1]) || !rd_i32(&c, &p, &s[2]))
                return fail_at(r, at, "truncated SIZE chunk");
            for (int k = 0; k < 3; k++)
                if (s[k] < 1 || s[k] > MAX_MODEL_SIZE)
                    return vxr_fail(r->err, VXR_ERROR_FORMAT,
                                    "byte %zu: model size %dx%dx%d (each 1..256)", at, s[0], s[1],
                                    s[2]);
            if (!r->shape && r->n_sizes != r->src->model_count)
                return fail_at(r, at, "SIZE chunk without an XYZI chunk after the previous one");
            r->n_sizes++;
        } else if (!memcmp(id, "XYZI", 4)) {
            res = read_model(r, &c, at);
        } else if (!memcmp(id, "RGBA", 4)) {
            if (n < 1024) return fail_at(r, at, "RGBA chunk shorter than 256 colours");
            for (int i = 0; i < 255; i++) {
                const uint8_t *b = c.p + 4 * i;
                r->src->palette[i + 1] = vxr_rgba(b[0], b[1], b[2], b[3]);
            }
            r->has_palette = 1;
        } else if (!memcmp(id, "nTRN", 4) || !memcmp(id, "nGRP", 4) || !memcmp(id, "nSHP", 4)) {
            size_t p = 0;
            if (!grow((void **)&r->nodes, &r->cap_nodes, r->n_nodes, sizeof *r->nodes))
                return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
            gnode *g = &r->nodes[r->n_nodes++];
            memset(g, 0, sizeof *g);
            g->type = id[1] == 'T' ? NODE_TRN : id[1] == 'G' ? NODE_GRP : NODE_SHP;
            g->at = (uint32_t)at;
            g->p = c.p;
            g->size = c.size;
            if (!rd_i32(&c, &p, &g->id) || g->id < 0)
                return fail_at(r, at, "scene-graph node without a valid id");
        } else if (!memcmp(id, "MATL", 4)) {
            int32_t mid;
            vxr_material mat;
            if (vxr_vox_parse_material(c.p, c.size, &mid, &mat) && mid >= 1 && mid <= 255)
                r->src->materials[mid] = mat;
        } else if (!memcmp(id, "LAYR", 4)) {
            size_t p = 0;
            if (!grow((void **)&r->layers, &r->cap_layers, r->n_layers, sizeof *r->layers))
                return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
            layer *l = &r->layers[r->n_layers];
            const uint8_t *v;
            uint32_t vl;
            int found;
            if (!rd_i32(&c, &p, &l->id) || !rd_dict(&c, &p, "_hidden", &v, &vl, &found))
                return fail_at(r, at, "malformed LAYR chunk");
            l->hidden = found && vl == 1 && v[0] == '1';
            r->n_layers++;
        }
        if (res != VXR_OK) return res;
        if (!r->shape && kept_whole(id)) {
            if (!grow((void **)&r->kept, &r->cap_kept, r->n_kept, sizeof *r->kept))
                return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
            r->kept[r->n_kept][0] = at;
            r->kept[r->n_kept++][1] = 12 + (size_t)n + (size_t)m;
        }
        pos += (size_t)n + (size_t)m;
    }
    return VXR_OK;
}

static int cmp_node(const void *a, const void *b) {
    const gnode *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static gnode *find_node(reader *r, int32_t id) {
    gnode key = {0};
    key.id = id;
    return bsearch(&key, r->nodes, r->n_nodes, sizeof *r->nodes, cmp_node);
}

typedef struct xform {
    int32_t R[9];
    int64_t t[3];
} xform;

static vxr_result visit(reader *r, int32_t id, xform x, int hidden, uint32_t depth);

static vxr_result visit_trn(reader *r, gnode *g, span *c, size_t pos, xform x, int hidden,
                            uint32_t depth, int32_t up) {
    const uint8_t *v;
    uint32_t vl;
    int found;
    int32_t child, reserved, layer_id, frames, shown = -1;
    if (!rd_dict(c, &pos, "_hidden", &v, &vl, &found)) return fail_at(r, g->at, "malformed nTRN");
    const bool own = found && vl == 1 && v[0] == '1';
    if (!rd_i32(c, &pos, &child) || !rd_i32(c, &pos, &reserved) || !rd_i32(c, &pos, &layer_id) ||
        !rd_i32(c, &pos, &frames) || frames < 0)
        return fail_at(r, g->at, "malformed nTRN");
    bool layer_hidden = false;
    for (uint32_t i = 0; i < r->n_layers; i++)
        if (r->layers[i].id == layer_id && r->layers[i].hidden) layer_hidden = true;
    frame_pick fp = {0};
    for (int32_t f = 0; f < frames; f++) {
        size_t start = pos;
        int64_t fv = 0;
        if (!rd_dict(c, &pos, "_f", &v, &vl, &found))
            return fail_at(r, g->at, "malformed nTRN frame");
        if (found && parse_ints(v, vl, &fv, 1) != 1) return fail_at(r, g->at, "bad nTRN _f");
        consider_frame(&fp, start, fv, r->frame);
        if (fp.pos == start) shown = f;
    }
    xform local = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    if (fp.have) {
        size_t p = fp.pos;
        rd_dict(c, &p, "_r", &v, &vl, &found);
        int64_t rb;
        if (found &&
            (parse_ints(v, vl, &rb, 1) != 1 || rb < 0 || !decode_rotation((uint32_t)rb, local.R)))
            return fail_at(r, g->at, "invalid rotation in nTRN");
        p = fp.pos;
        rd_dict(c, &p, "_t", &v, &vl, &found);
        if (found && parse_ints(v, vl, local.t, 3) != 3)
            return fail_at(r, g->at, "invalid translation in nTRN");
    }
    xform out;
    for (int i = 0; i < 3; i++) {
        out.t[i] = x.t[i];
        for (int k = 0; k < 3; k++) {
            out.R[3 * i + k] = x.R[3 * i] * local.R[k] + x.R[3 * i + 1] * local.R[3 + k] +
                               x.R[3 * i + 2] * local.R[6 + k];
            out.t[i] += x.R[3 * i + k] * local.t[k];
        }
        /* Beyond 2^24 float positions stop being exact. */
        if (out.t[i] < -(1ll << 24) || out.t[i] > (1ll << 24))
            return fail_at(r, g->at, "translation beyond +-2^24");
    }
    const vxr_vox_shape outer = r->path;
    r->path = (vxr_vox_shape){.trn = g->id,
                              .trn_up = up,
                              .trn_frame = shown,
                              .hidden_above = hidden,
                              .layer_hidden = layer_hidden,
                              .own_hidden = own};
    memcpy(r->path.R, x.R, sizeof x.R);
    memcpy(r->path.t, x.t, sizeof x.t);
    vxr_result res = visit(r, child, out, hidden || own || layer_hidden, depth + 1);
    r->path = outer;
    return res;
}

static vxr_result add_instance(reader *r, gnode *g, int32_t model, int32_t entry, const xform *x,
                               int hidden) {
    const uint32_t models = r->shape ? r->n_sizes : r->src->model_count;
    if (model < 0 || (uint32_t)model >= models)
        return vxr_fail(r->err, VXR_ERROR_FORMAT, "byte %u: nSHP names model %d of %u", g->at,
                        model, models);
    if (r->visits_shapes++ >= MAX_INSTANCES)
        return fail_at(r, g->at, "the scene graph expands to more than 2^24 instances");
    const int32_t *S = r->sizes[model];
    vxr_instance in = {0};
    in.model = (uint32_t)model;
    in.flags = hidden ? VXR_INSTANCE_HIDDEN : 0;
    in.view_distance = INFINITY;
    in.transform.scale = 1;
    for (int i = 0; i < 3; i++) {
        int64_t t = x->t[i];
        for (int k = 0; k < 3; k++) {
            in.transform.rotation[3 * i + k] = (float)x->R[3 * i + k];
            t -= x->R[3 * i + k] * (S[k] / 2);
        }
        /* Beyond 2^24 float positions stop being exact. */
        if (t < -(1ll << 24) || t > (1ll << 24))
            return fail_at(r, g->at, "instance translation beyond +-2^24");
        in.transform.translation[i] = (float)t;
    }
    if (r->shape) {
        vxr_vox_shape sh = r->path;
        if (sh.trn != r->up) sh = (vxr_vox_shape){.trn = -1, .trn_up = -1, .trn_frame = -1};
        sh.shp = g->id;
        sh.model = model;
        sh.entry = entry;
        return r->shape(r->user, &sh);
    }
    if (vxr_scene_src_add_instance(r->src, &in) != VXR_OK)
        return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
    return VXR_OK;
}

static vxr_result visit(reader *r, int32_t id, xform x, int hidden, uint32_t depth) {
    gnode *g = find_node(r, id);
    if (!g) return vxr_fail(r->err, VXR_ERROR_FORMAT, "scene graph refers to missing node %d", id);
    if (depth > MAX_GRAPH_DEPTH) return fail_at(r, g->at, "scene graph deeper than 256 levels");
    if (++r->visits > r->n_nodes + SHARED_VISITS)
        return vxr_fail(r->err, VXR_ERROR_FORMAT,
                        "byte %u: the scene graph's %u nodes expand to more than 2^20 further "
                        "visits (nodes shared by several parents)",
                        g->at, r->n_nodes);
    if (g->on_path)
        return vxr_fail(r->err, VXR_ERROR_FORMAT, "byte %u: scene graph cycle through node %d",
                        g->at, id);
    span c = {g->p, g->size, 0};
    size_t pos = 4;
    const uint8_t *v;
    uint32_t vl;
    int found;
    vxr_result res = VXR_OK;
    const int32_t up = r->up;
    g->on_path = 1;
    r->up = id;
    if (g->type == NODE_TRN) {
        res = visit_trn(r, g, &c, pos, x, hidden, depth, up);
    } else if (g->type == NODE_GRP) {
        int32_t n = 0, child = 0;
        if (!rd_dict(&c, &pos, "_hidden", &v, &vl, &found) || !rd_i32(&c, &pos, &n) || n < 0 ||
            (size_t)n > (c.size - pos) / 4)
            res = fail_at(r, g->at, "malformed nGRP");
        for (int32_t i = 0; res == VXR_OK && i < n; i++) {
            rd_i32(&c, &pos, &child);
            res = visit(r, child, x, hidden, depth + 1);
        }
    } else {
        int32_t n, model;
        frame_pick fp = {0};
        int32_t chosen = 0, entry = 0;
        r->up = up; /* a shape reports its parent */
        if (!rd_dict(&c, &pos, "_hidden", &v, &vl, &found) || !rd_i32(&c, &pos, &n) || n < 0)
            res = fail_at(r, g->at, "malformed nSHP");
        for (int32_t i = 0; res == VXR_OK && i < n; i++) {
            int64_t fv = 0;
            if (!rd_i32(&c, &pos, &model) || !rd_dict(&c, &pos, "_f", &v, &vl, &found) ||
                (found && parse_ints(v, vl, &fv, 1) != 1)) {
                res = fail_at(r, g->at, "malformed nSHP model entry");
                break;
            }
            consider_frame(&fp, (size_t)i, fv, r->frame);
            if (fp.pos == (size_t)i) {
                chosen = model;
                entry = i;
            }
        }
        /* A negative model index is an error (add_instance says so), not "none". */
        if (res == VXR_OK && fp.have) res = add_instance(r, g, chosen, entry, &x, hidden);
    }
    g->on_path = 0;
    r->up = up;
    return res;
}

/* The chunks read_chunks kept, copied whole into src->vox_chunks. */
static vxr_result keep_chunks(reader *r, const uint8_t *data) {
    size_t total = 0, at = 0;
    for (uint32_t i = 0; i < r->n_kept; i++) total += r->kept[i][1];
    if (!total) return VXR_OK;
    uint8_t *k = malloc(total);
    if (!k) return vxr_fail(r->err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < r->n_kept; at += r->kept[i++][1])
        memcpy(k + at, data + r->kept[i][0], r->kept[i][1]);
    r->src->vox_chunks = k;
    r->src->vox_chunks_size = total;
    return VXR_OK;
}

/* After read_chunks: the instances (or the walk's shapes) of the graph. */
static vxr_result walk_graph(reader *r) {
    xform id = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    vxr_result res = VXR_OK;
    if (r->n_nodes == 0) {
        /* No scene graph (older files): each model once, unrotated. */
        gnode none = {0};
        for (uint32_t i = 0; res == VXR_OK && i < r->n_sizes; i++)
            res = add_instance(r, &none, (int32_t)i, 0, &id, 0);
        return res;
    }
    qsort(r->nodes, r->n_nodes, sizeof *r->nodes, cmp_node);
    for (uint32_t i = 1; i < r->n_nodes; i++)
        if (r->nodes[i].id == r->nodes[i - 1].id)
            return vxr_fail(r->err, VXR_ERROR_FORMAT,
                            "byte %u: scene-graph node id %d appears twice", r->nodes[i].at,
                            r->nodes[i].id);
    r->up = -1;
    r->path = (vxr_vox_shape){.trn = -1, .trn_up = -1, .trn_frame = -1};
    return visit(r, 0, id, 0, 0);
}

vxr_result vxr_vox_walk(const uint8_t *chunks, size_t size, uint32_t frame, vxr_vox_shape_fn fn,
                        void *user, vxr_error *err) {
    vxr_scene_src scratch;
    vxr_scene_src_init(&scratch, 1);
    reader r = {0};
    r.src = &scratch;
    r.err = err;
    r.frame = frame;
    r.shape = fn;
    r.user = user;
    span all = {chunks, size, 0};
    vxr_result res = read_chunks(&r, &all, 0, size);
    if (res == VXR_OK) res = walk_graph(&r);
    VXR_FREE(r.sizes, r.nodes, r.layers);
    vxr_scene_src_free(&scratch);
    return res;
}

vxr_result vxr_load_vox(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err) {
    return vxr_load_vox_frame(data, size, 0, dest, err);
}

vxr_result vxr_load_vox_frame(const uint8_t *data, size_t size, uint32_t frame, vxr_scene_src *dest,
                              vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    reader r = {0};
    r.src = dest;
    r.err = err;
    r.frame = frame;
    span file = {data, size, 0};
    size_t pos = 4;
    int32_t version = 0, n = 0, m = 0;
    vxr_result res = VXR_OK;
    if (size < 8 || memcmp(data, "VOX ", 4)) {
        res = vxr_fail(err, VXR_ERROR_FORMAT, "not a .vox file (no 'VOX ' magic)");
        goto done;
    }
    rd_i32(&file, &pos, &version);
    if (version < 150 || version > 200) {
        res = vxr_fail(err, VXR_ERROR_FORMAT, "unsupported .vox version %d (150..200)", version);
        goto done;
    }
    if (size - pos < 12 || memcmp(data + pos, "MAIN", 4)) {
        res = fail_at(&r, pos, "expected the MAIN chunk");
        goto done;
    }
    pos += 4;
    rd_i32(&file, &pos, &n);
    rd_i32(&file, &pos, &m);
    if (n < 0 || m < 0 || (size_t)n > size - pos || (size_t)m > size - pos - (size_t)n) {
        res = vxr_fail(err, VXR_ERROR_FORMAT,
                       "byte 8: MAIN chunk claims %d + %d bytes, the file has %zu after its header",
                       n, m, size - pos);
        goto done;
    }
    pos += (size_t)n;
    res = read_chunks(&r, &file, pos, pos + (size_t)m);
    if (res != VXR_OK) goto done;
    if (r.n_sizes != dest->model_count) {
        res = vxr_fail(err, VXR_ERROR_FORMAT, "SIZE chunk %u has no XYZI chunk", dest->model_count);
        goto done;
    }
    if (!r.has_palette) memcpy(dest->palette, default_palette, sizeof default_palette);
    dest->palette[0] = 0;
    dest->vox_frame = frame;
    res = walk_graph(&r);
    if (res == VXR_OK) res = keep_chunks(&r, data);
done:
    VXR_FREE(r.sizes, r.nodes, r.layers, r.kept);
    if (res != VXR_OK) vxr_scene_src_free(dest);
    return res;
}
