/* The scene graph a .vox was read with, written back by vxr_save_vox.
 *
 * A scene read from a .vox keeps the file's graph in vxr_scene.vox_chunks:
 * node names and other attributes, groups, layers and every animation
 * frame. Saving walks that graph again at the frame it was read at
 * (vxr_vox_walk), which meets the shapes in the order the reader made the
 * instances: shape i is instance i. Every node and LAYR chunk is written as
 * it was, except where the scene changed:
 *  - the nTRN right above a shape takes the instance's placement at the
 *    read frame (relative to the nodes above it); its other key frames
 *    follow the pivot of the model shown at their time when that model's
 *    SIZE or offset changed, so they still put its voxels where they were;
 *  - that nTRN's _hidden follows the instance's hidden flag;
 *  - nSHP model indices follow the written models, and a shape shows the
 *    instance's model at the read frame;
 *  - a removed instance's nTRN and nSHP leave their group;
 *  - instances added since join the root group, on the first shown layer.
 * A scene that no longer fits the graph gets the saver's own graph instead
 * (*kept false): a node shared by several paths above a shape, a model
 * split into 256^3 blocks, an instance shown under a hidden group or
 * layer, a model of another frame that was removed. */
#include <stdlib.h>
#include "vox_parse.h"
#include "vox_write.h"

typedef struct kchunk {
    const uint8_t *id, *p; /* the chunk and its content */
    size_t n, whole;
    int32_t node; /* the node id of nTRN, nGRP, nSHP; -1 otherwise */
} kchunk;

typedef struct graph {
    saver *s;
    kchunk *c;
    uint32_t n_chunks;
    int32_t (*by_id)[2]; /* node id, chunk index: sorted by id */
    uint32_t n_nodes;
    vxr_vox_shape *shapes;
    uint32_t n_shapes, cap_shapes;
    vxr_bytes *repl; /* per chunk: its rewritten bytes (p NULL: as it was) */
    uint8_t *state;  /* per chunk: 0 not yet asked for, 1 as it was, 2 rewritten */
    bool *drop;
    int32_t (*unlinked)[2]; /* (nGRP, nTRN) links of removed instances, sorted */
    uint32_t n_unlinked;
} graph;

static int cmp_id(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Node id's chunk index, or -1. */
static int64_t node_at(const graph *g, int32_t id) {
    const int32_t key[2] = {id, 0};
    const int32_t(*at)[2] = bsearch(key, g->by_id, g->n_nodes, sizeof *g->by_id, cmp_id);
    return at ? (*at)[1] : -1;
}

static const kchunk *node(const graph *g, int32_t id) {
    const int64_t k = node_at(g, id);
    return k < 0 ? NULL : &g->c[k];
}

static bool is(const kchunk *c, const char *id) {
    return c && !memcmp(c->id, id, 4);
}

static vxr_result collect_shape(void *user, const vxr_vox_shape *shape) {
    graph *g = user;
    if (g->n_shapes == g->cap_shapes) {
        const uint32_t cap = g->cap_shapes ? 2 * g->cap_shapes : 64;
        vxr_vox_shape *p = realloc(g->shapes, cap * sizeof *p);
        if (!p) return VXR_ERROR_MEMORY;
        g->shapes = p;
        g->cap_shapes = cap;
    }
    g->shapes[g->n_shapes++] = *shape;
    return VXR_OK;
}

/* Chunk k as one shape wants it written: o holds its new bytes (p NULL:
 * as it was). Shapes that share the chunk must want the same; false when
 * one wants other bytes than an earlier one. Takes o's buffer. */
static bool agree(graph *g, uint32_t k, out *o) {
    if (o->failed) {
        free(o->p);
        return false;
    }
    if (!g->state[k]) {
        g->state[k] = o->p ? 2 : 1;
        g->repl[k] = *o;
        return true;
    }
    const bool same = g->state[k] == 1
                          ? !o->p
                          : o->p && o->n == g->repl[k].n && !memcmp(o->p, g->repl[k].p, o->n);
    free(o->p);
    return same;
}

/* A DICT written back with keys[i] set to vals[i] (NULL: dropped), in
 * place where the key was, appended where it was not. */
static void put_dict_with(out *o, const span *d, size_t pos, const char *const *keys,
                          const char *const *vals, int n) {
    /* n <= 2 */
    int32_t pairs = 0;
    rd_i32(d, &pos, &pairs);
    bool seen[4] = {false, false, false, false};
    const size_t count_at = o->n;
    int32_t written = 0;
    put_i32(o, 0);
    for (int32_t i = 0; i < pairs; i++) {
        const uint8_t *k = NULL, *v = NULL;
        uint32_t kl = 0, vl = 0;
        rd_str(d, &pos, &k, &kl);
        rd_str(d, &pos, &v, &vl);
        int at = -1;
        for (int j = 0; j < n; j++)
            if (kl == strlen(keys[j]) && !memcmp(k, keys[j], kl)) at = j;
        if (at >= 0 && (seen[at] || !vals[at])) continue;
        if (at >= 0) seen[at] = true;
        put_i32(o, (int32_t)kl);
        vxr_bytes_put(o, k, kl);
        if (at >= 0) {
            put_str(o, vals[at]);
        } else {
            put_i32(o, (int32_t)vl);
            vxr_bytes_put(o, v, vl);
        }
        written++;
    }
    for (int j = 0; j < n; j++)
        if (!seen[j] && vals[j]) {
            put_str(o, keys[j]);
            put_str(o, vals[j]);
            written++;
        }
    if (!o->failed) vxr_put32(o->p + count_at, (uint32_t)written);
}

/* A dict's end, or 0 when malformed. */
static size_t skip_dict(const span *d, size_t pos) {
    const uint8_t *v;
    uint32_t vl;
    int found;
    return rd_dict(d, &pos, NULL, &v, &vl, &found) ? pos : 0;
}

/* The file model and key of each entry of an nSHP; false when malformed. */
typedef struct entries {
    int32_t *model;
    int64_t *key;
    size_t *dict; /* offsets of the entries' dicts */
    int32_t n;
    size_t attr, list; /* offsets of the node's dict and of its entry count */
} entries;

static bool read_entries(const kchunk *c, entries *e) {
    const span d = {c->p, c->n, 0};
    size_t pos = 4;
    int32_t n;
    e->attr = pos;
    if (!(pos = skip_dict(&d, pos))) return false;
    e->list = pos;
    if (!rd_i32(&d, &pos, &n) || n < 0 || (size_t)n > c->n / 8) return false;
    e->n = n;
    e->model = malloc(((size_t)n + 1) * sizeof *e->model);
    e->key = malloc(((size_t)n + 1) * sizeof *e->key);
    e->dict = malloc(((size_t)n + 1) * sizeof *e->dict);
    if (!e->model || !e->key || !e->dict) return false;
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *v;
        uint32_t vl;
        int found;
        e->dict[i] = pos + 4;
        e->key[i] = 0;
        if (!rd_i32(&d, &pos, &e->model[i]) || !rd_dict(&d, &pos, "_f", &v, &vl, &found) ||
            (found && parse_ints(v, vl, &e->key[i], 1) != 1))
            return false;
    }
    return true;
}

static void free_entries(entries *e) {
    VXR_FREE(e->model, e->key, e->dict);
}

/* The written model (its first piece) of file model j; false when it is
 * not written as one piece of its own. */
static bool file_piece(const saver *s, int32_t j, uint32_t *dest) {
    const vxr_scene *sc = s->scene;
    if (j < 0 || (uint32_t)j >= s->file_models || (uint32_t)j >= sc->model_count ||
        sc->model_added[j] || s->count[j] != 1)
        return false;
    *dest = s->first[j];
    return true;
}

/* nSHP chunk k with each entry's model as written; shown (>= 0) is the
 * entry that shows model `shown_model` of the scene. */
static bool patch_shp(graph *g, uint32_t k, int32_t shown, uint32_t shown_model) {
    const kchunk *c = &g->c[k];
    entries e = {0};
    bool ok = read_entries(c, &e), same = true;
    uint32_t *written = ok ? malloc(((size_t)e.n + 1) * sizeof *written) : NULL;
    ok = ok && written;
    for (int32_t i = 0; ok && i < e.n; i++) {
        if (i == shown) {
            ok = g->s->count[shown_model] == 1;
            written[i] = g->s->first[shown_model];
        } else {
            ok = file_piece(g->s, e.model[i], &written[i]);
        }
        same = same && (int32_t)written[i] == e.model[i];
    }
    out o_ = {0}, *o = &o_;
    if (ok && !same) {
        const span d = {c->p, c->n, 0};
        const size_t at = chunk_begin(o, "nSHP");
        vxr_bytes_put(o, c->p, e.list); /* id, attributes */
        put_i32(o, e.n);
        for (int32_t i = 0; i < e.n; i++) {
            put_i32(o, (int32_t)written[i]);
            vxr_bytes_put(o, c->p + e.dict[i], skip_dict(&d, e.dict[i]) - e.dict[i]);
        }
        chunk_end(o, at);
    }
    free(written);
    free_entries(&e);
    if (!ok) free(o->p);
    return ok && agree(g, k, o);
}

/* The offset at which the model of entry i's written piece moved its
 * pivot: shift + floor(S'/2) - floor(S/2), S the file's SIZE; false when
 * the entry's model is not a file's model written whole. */
static bool pivot_move(const graph *g, const entries *e, int32_t i, int32_t shown,
                       uint32_t shown_model, int64_t dest[3]) {
    const saver *s = g->s;
    uint32_t p = 0;
    if (!file_piece(s, e->model[i], &p)) return false;
    if (i == shown && s->count[shown_model] != 1) return false;
    if (i == shown) p = s->first[shown_model];
    const int32_t *S = s->file_size[e->model[i]];
    for (int k = 0; k < 3; k++)
        dest[k] = (int64_t)s->pieces[p].shift[k] + s->pieces[p].size[k] / 2 - S[k] / 2;
    return true;
}

/* One key frame of an nTRN: its offset, rotation and translation. */
typedef struct keyframe {
    size_t dict;
    int64_t key, t[3];
    int32_t R[9];
    bool has_r, has_t;
} keyframe;

static bool read_keyframe(const span *d, size_t *pos, keyframe *f) {
    const uint8_t *v;
    uint32_t vl;
    int found;
    int64_t rb = IDENTITY_ROTATION;
    memset(f, 0, sizeof *f);
    f->dict = *pos;
    size_t p = *pos;
    if (!rd_dict(d, &p, "_f", &v, &vl, &found) || (found && parse_ints(v, vl, &f->key, 1) != 1))
        return false;
    p = *pos;
    rd_dict(d, &p, "_r", &v, &vl, &found);
    f->has_r = found;
    if (found && (parse_ints(v, vl, &rb, 1) != 1 || rb < 0)) return false;
    if (!decode_rotation((uint32_t)rb, f->R)) return false;
    p = *pos;
    rd_dict(d, &p, "_t", &v, &vl, &found);
    f->has_t = found;
    if (found && parse_ints(v, vl, f->t, 3) != 3) return false;
    *pos = p;
    return true;
}

/* A key frame's dict with rotation R and translation t: a value that did
 * not change keeps its bytes (an absent one stays absent). */
static void put_keyframe(out *o, const span *d, const keyframe *f, const int32_t R[9],
                         const int64_t t[3]) {
    char rs[16], ts[80];
    snprintf(rs, sizeof rs, "%u", encode_rotation(R));
    snprintf(ts, sizeof ts, "%lld %lld %lld", (long long)t[0], (long long)t[1], (long long)t[2]);
    const char *keys[2], *vals[2];
    int n = 0;
    if (memcmp(R, f->R, sizeof f->R)) keys[n] = "_r", vals[n++] = rs;
    if (memcmp(t, f->t, sizeof f->t)) keys[n] = "_t", vals[n++] = ts;
    put_dict_with(o, d, f->dict, keys, vals, n);
}

/* nTRN chunk k of shape sh, given instance i's placement: its shown key
 * frame places the instance, the others follow their models' pivots. */
static bool patch_trn(graph *g, uint32_t k, const vxr_vox_shape *sh, uint32_t i) {
    const saver *s = g->s;
    const vxr_instance *in = &s->scene->instances[i];
    const kchunk *c = &g->c[k];
    const span d = {c->p, c->n, 0};
    size_t pos = 4, attr = 4;
    int32_t child, reserved, layer, n;
    if (!(pos = skip_dict(&d, pos)) || !rd_i32(&d, &pos, &child) || !rd_i32(&d, &pos, &reserved) ||
        !rd_i32(&d, &pos, &layer) || !rd_i32(&d, &pos, &n) || n < 0 || (size_t)n > c->n / 4)
        return false;
    const size_t frames_at = pos;
    placement pl;
    if (vxr_vox_get_placement(in, i, &pl, NULL) != VXR_OK || s->count[in->model] != 1) return false;
    const piece *pc = &s->pieces[s->first[in->model]];
    /* Shown frame: R' = Rp^T Rw, t' = Rp^T (Tw - tp + Rw (shift + floor(S'/2))). */
    int32_t R[9];
    int64_t t[3], u[3];
    for (int a = 0; a < 3; a++) {
        u[a] = pl.t[a]; /* where the reader composes the nTRN to: within its limit */
        for (int b = 0; b < 3; b++) {
            u[a] += pl.R[3 * a + b] * ((int64_t)pc->shift[b] + pc->size[b] / 2);
            R[3 * a + b] = 0;
            for (int j = 0; j < 3; j++) R[3 * a + b] += sh->R[3 * j + a] * pl.R[3 * j + b];
        }
        if (u[a] < -MAX_TRANSLATION || u[a] > MAX_TRANSLATION) return false;
        u[a] -= sh->t[a];
    }
    for (int a = 0; a < 3; a++) {
        t[a] = 0;
        for (int j = 0; j < 3; j++) t[a] += sh->R[3 * j + a] * u[j];
    }
    const kchunk *shp = node(g, sh->shp);
    entries e = {0};
    bool ok = shp && read_entries(shp, &e);
    keyframe *kf = ok ? calloc((size_t)n + 1, sizeof *kf) : NULL;
    ok = ok && kf && e.n > 0;
    /* Key frames span the nSHP's models: they follow a pivot all of them
     * moved by alike (core/vox_save.c keeps pivots where it can). */
    int64_t mv[3] = {0, 0, 0}, other[3];
    ok = ok && pivot_move(g, &e, 0, sh->entry, in->model, mv);
    for (int32_t j = 1; ok && j < e.n; j++)
        ok = pivot_move(g, &e, j, sh->entry, in->model, other) && !memcmp(mv, other, sizeof mv);
    bool changed = false;
    for (int32_t f = 0; ok && f < n; f++) {
        ok = read_keyframe(&d, &pos, &kf[f]);
        if (!ok) break;
        int64_t nt[3];
        int32_t nR[9];
        memcpy(nR, kf[f].R, sizeof nR);
        if (f == sh->trn_frame) {
            memcpy(nR, R, sizeof nR);
            memcpy(nt, t, sizeof nt);
        } else {
            for (int a = 0; a < 3; a++) {
                nt[a] = kf[f].t[a];
                for (int b = 0; b < 3; b++) nt[a] += kf[f].R[3 * a + b] * mv[b];
                ok = ok && nt[a] >= -MAX_TRANSLATION && nt[a] <= MAX_TRANSLATION;
            }
        }
        changed = changed || memcmp(nR, kf[f].R, sizeof nR) || memcmp(nt, kf[f].t, sizeof nt);
        memcpy(kf[f].R, nR, sizeof nR); /* the new values, kept beside the old bytes */
        memcpy(kf[f].t, nt, sizeof nt);
    }
    /* No key frame: the shown placement must be the identity. */
    static const int32_t I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ok = ok && (n > 0 || (!memcmp(R, I, sizeof R) && !t[0] && !t[1] && !t[2]));
    /* Hidden: the instance's flag; one shown under a hidden node or layer cannot be. */
    const bool hide = (in->flags & VXR_INSTANCE_HIDDEN) != 0,
               was = sh->hidden_above || sh->layer_hidden || sh->own_hidden;
    ok = ok && (hide || !(sh->hidden_above || sh->layer_hidden));
    out o_ = {0}, *o = &o_;
    if (ok && (changed || hide != was)) {
        const size_t at = chunk_begin(o, "nTRN");
        put_i32(o, sh->trn);
        const char *const key[1] = {"_hidden"};
        const char *const val[1] = {hide ? "1" : NULL};
        put_dict_with(o, &d, attr, key, val, hide != was ? 1 : 0);
        vxr_bytes_put(o, c->p + frames_at - 16, 16); /* child, reserved, layer, frames */
        size_t p = frames_at;
        for (int32_t f = 0; f < n; f++) {
            keyframe old;
            read_keyframe(&d, &p, &old); /* read once above */
            put_keyframe(o, &d, &old, kf[f].R, kf[f].t);
        }
        chunk_end(o, at);
    }
    free(kf);
    free_entries(&e);
    if (!ok) free(o->p);
    return ok && agree(g, k, o);
}

/* MAIN's children as kept, and the nodes by id; false when malformed or a
 * node id repeats. */
static bool list_chunks(graph *g) {
    const vxr_scene *sc = g->s->scene;
    const uint8_t *id, *p;
    size_t at = 0, n;
    uint32_t count = 0, nodes = 0;
    while (vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &p, &n)) count++;
    if (at != sc->vox_chunks_size || !count) return false;
    g->c = calloc(count, sizeof *g->c);
    g->repl = calloc(count, sizeof *g->repl);
    g->drop = calloc(count, sizeof *g->drop);
    g->state = calloc(count, sizeof *g->state);
    g->by_id = calloc(count, sizeof *g->by_id);
    if (!g->c || !g->repl || !g->drop || !g->state || !g->by_id) return false;
    size_t at0 = 0;
    for (at = 0; vxr_vox_next_chunk(sc->vox_chunks, sc->vox_chunks_size, &at, &id, &p, &n);
         at0 = at) {
        kchunk *c = &g->c[g->n_chunks];
        *c = (kchunk){id, p, n, at - at0, -1};
        const bool is_node = is(c, "nTRN") || is(c, "nGRP") || is(c, "nSHP");
        if (is_node && (n < 4 || (int32_t)vxr_get32(p) < 0)) return false;
        if (is_node) {
            c->node = (int32_t)vxr_get32(p);
            g->by_id[nodes][0] = c->node;
            g->by_id[nodes++][1] = (int32_t)g->n_chunks;
        }
        g->n_chunks++;
    }
    g->n_nodes = nodes;
    qsort(g->by_id, nodes, sizeof *g->by_id, cmp_id);
    for (uint32_t i = 1; i < nodes; i++)
        if (g->by_id[i][0] == g->by_id[i - 1][0]) return false;
    return nodes > 0;
}

static int cmp_link(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static bool unlinked(const graph *g, int32_t grp, int32_t trn) {
    const int32_t key[2] = {grp, trn};
    return bsearch(key, g->unlinked, g->n_unlinked, sizeof *g->unlinked, cmp_link) != NULL;
}

/* The first layer not hidden (-1: none), for added instances. */
static int32_t shown_layer(const graph *g) {
    for (uint32_t k = 0; k < g->n_chunks; k++) {
        const span d = {g->c[k].p, g->c[k].n, 0};
        size_t pos = 0;
        int32_t id;
        const uint8_t *v;
        uint32_t vl;
        int found;
        if (is(&g->c[k], "LAYR") && rd_i32(&d, &pos, &id) &&
            rd_dict(&d, &pos, "_hidden", &v, &vl, &found) && !(found && vl == 1 && v[0] == '1'))
            return id;
    }
    return -1;
}

/* nGRP chunk k without the children dropped, with `add` more from `first`
 * on (ids first, first + step, ...). */
static bool patch_grp(graph *g, uint32_t k, const int32_t *add, uint32_t n_add) {
    const kchunk *c = &g->c[k];
    const span d = {c->p, c->n, 0};
    size_t pos = 4;
    int32_t n, child = 0;
    if (!(pos = skip_dict(&d, pos)) || !rd_i32(&d, &pos, &n) || n < 0 ||
        (size_t)n > (c->n - pos) / 4)
        return false;
    const size_t list = pos;
    uint32_t kept = 0;
    for (int32_t i = 0; i < n; i++) {
        rd_i32(&d, &pos, &child);
        kept += !unlinked(g, c->node, child);
    }
    if (kept == (uint32_t)n && !n_add) return true;
    out *o = &g->repl[k];
    const size_t at = chunk_begin(o, "nGRP");
    vxr_bytes_put(o, c->p, list - 4); /* id, attributes */
    put_i32(o, (int32_t)(kept + n_add));
    for (pos = list; pos < list + 4 * (size_t)n;) {
        rd_i32(&d, &pos, &child);
        if (!unlinked(g, c->node, child)) put_i32(o, child);
    }
    for (uint32_t i = 0; i < n_add; i++) put_i32(o, add[i]);
    chunk_end(o, at);
    g->state[k] = 2;
    return !o->failed;
}

/* Prepares every rewritten chunk; false when the scene does not fit the
 * graph. New instances get node ids from *next on. */
static bool fit(graph *g, int32_t *root_grp, int32_t *next, uint32_t *added) {
    saver *s = g->s;
    const vxr_scene *sc = s->scene;
    if (!list_chunks(g) ||
        vxr_vox_walk(sc->vox_chunks, sc->vox_chunks_size, sc->vox_frame, collect_shape, g, NULL) !=
            VXR_OK ||
        g->n_shapes > sc->instance_count)
        return false;
    g->unlinked = malloc(((size_t)g->n_shapes + 1) * sizeof *g->unlinked);
    if (!g->unlinked) return false;
    /* Nodes shared by several paths take each instance's wishes: all must agree. */
    for (uint32_t i = 0; i < g->n_shapes; i++) {
        const vxr_vox_shape *sh = &g->shapes[i];
        const int64_t kt = node_at(g, sh->trn), ks = node_at(g, sh->shp);
        if (sh->trn < 0 || kt < 0 || ks < 0) return false;
        if (vxr_vox_saved(&sc->instances[i])) {
            if (!patch_trn(g, (uint32_t)kt, sh, i) ||
                !patch_shp(g, (uint32_t)ks, sh->entry, sc->instances[i].model))
                return false;
        } else {
            /* a removed instance's nTRN leaves its group, with every path through that link */
            if (!is(node(g, sh->trn_up), "nGRP")) return false;
            g->unlinked[g->n_unlinked][0] = sh->trn_up;
            g->unlinked[g->n_unlinked++][1] = sh->trn;
            g->drop[kt] = g->drop[ks] = true;
        }
    }
    qsort(g->unlinked, g->n_unlinked, sizeof *g->unlinked, cmp_link);
    for (uint32_t i = 0; i < g->n_shapes; i++) {
        const vxr_vox_shape *sh = &g->shapes[i];
        if (!vxr_vox_saved(&sc->instances[i])) continue;
        if (unlinked(g, sh->trn_up, sh->trn)) return false;
        g->drop[node_at(g, sh->trn)] = g->drop[node_at(g, sh->shp)] = false;
    }
    for (uint32_t k = 0; k < g->n_chunks; k++)
        if (is(&g->c[k], "nSHP") && !g->state[k] && !g->drop[k] && !patch_shp(g, k, -1, 0))
            return false;
    /* Added instances join the root nTRN's group. */
    uint64_t shapes = g->n_shapes, id = (uint64_t)g->by_id[g->n_nodes - 1][0] + 1;
    *next = (int32_t)(id <= INT32_MAX ? id : 0);
    *added = 0;
    *root_grp = -1;
    for (uint32_t i = g->n_shapes; i < sc->instance_count; i++)
        if (vxr_vox_saved(&sc->instances[i])) {
            (*added)++;
            shapes += s->count[sc->instances[i].model];
            id += (uint64_t)vxr_vox_subtree_nodes(s, sc->instances[i].model);
        }
    if (shapes > MAX_SHAPES || id > INT32_MAX) return false;
    int32_t *add = NULL;
    if (*added) {
        const kchunk *root = node(g, 0);
        const span d = {root ? root->p : NULL, root ? root->n : 0, 0};
        size_t pos = 4;
        int32_t child = 0;
        if (!is(root, "nTRN") || !(pos = skip_dict(&d, pos)) || !rd_i32(&d, &pos, &child) ||
            !is(node(g, child), "nGRP"))
            return false;
        *root_grp = child;
        add = malloc(*added * sizeof *add);
        if (!add) return false;
        int32_t at = *next;
        for (uint32_t i = g->n_shapes, j = 0; i < sc->instance_count; i++)
            if (vxr_vox_saved(&sc->instances[i])) {
                add[j++] = at;
                at += vxr_vox_subtree_nodes(s, sc->instances[i].model);
            }
    }
    bool ok = true;
    for (uint32_t k = 0; ok && k < g->n_chunks; k++)
        if (is(&g->c[k], "nGRP")) ok = patch_grp(g, k, add, g->c[k].node == *root_grp ? *added : 0);
    free(add);
    return ok;
}

vxr_result vxr_vox_write_kept_graph(saver *s, bool *kept) {
    *kept = false;
    const vxr_scene *sc = s->scene;
    if (!sc->vox_chunks_size) return VXR_OK;
    graph g = {0};
    g.s = s;
    int32_t root_grp, next;
    uint32_t added;
    vxr_result r = VXR_OK;
    if (fit(&g, &root_grp, &next, &added)) {
        *kept = true;
        for (uint32_t k = 0; k < g.n_chunks; k++) {
            const kchunk *c = &g.c[k];
            if (g.drop[k] || !(c->node >= 0 || is(c, "LAYR"))) continue;
            if (g.state[k] == 2)
                vxr_bytes_put(&s->o, g.repl[k].p, g.repl[k].n);
            else
                vxr_bytes_put(&s->o, c->id, c->whole);
        }
        const int32_t layer = shown_layer(&g);
        for (uint32_t i = g.n_shapes; r == VXR_OK && i < sc->instance_count; i++)
            if (vxr_vox_saved(&sc->instances[i])) {
                r = vxr_vox_write_instance(s, i, next, layer);
                next += vxr_vox_subtree_nodes(s, sc->instances[i].model);
            }
    }
    for (uint32_t k = 0; g.repl && k < g.n_chunks; k++) free(g.repl[k].p);
    VXR_FREE(g.c, g.by_id, g.shapes, g.repl, g.drop, g.state, g.unlinked);
    return r;
}
