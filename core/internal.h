/* Private helpers shared by core/ sources. */
#ifndef VXR_INTERNAL_H
#define VXR_INTERNAL_H

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include "vxr/formats.h"
#include "vxr/world.h"

/* Formats a one-line reason into err (may be NULL) and returns r. */
static inline vxr_result vxr_fail(vxr_error *err, vxr_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline vxr_result vxr_fail(vxr_error *err, vxr_result r, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return r;
}

/* Worker threads (core/pool.c). fn(user, begin, end) runs over disjoint
 * ranges covering [0, count), at most chunk indices each, on up to threads
 * threads (the caller's included; 1: all on the caller); returns when all
 * are done. A range runs on one thread; which thread runs which range
 * varies, so fn's results must depend on the indices only. When another
 * thread's job has the pool, everything runs on the caller. */
typedef void (*vxr_range_fn)(void *user, size_t begin, size_t end);
void vxr_parallel_for(size_t count, size_t chunk, uint32_t threads, vxr_range_fn fn, void *user);
/* The online CPUs (1 .. 64). */
uint32_t vxr_cpu_count(void);

/* core/svo_build_v3.c's entries (svo_build.c's dispatch calls them);
 * box_min and box_max are vxr_model_src's box, or both NULL. */
vxr_result vxr_svo_build_list_v3(const vxr_voxel *voxels, size_t count, const int32_t *box_min,
                                 const int32_t *box_max, uint32_t attr_size, uint32_t threads,
                                 vxr_octree *dest, vxr_error *err);
vxr_result vxr_svo_build_gen_v3(const struct vxr_model_gen *g, uint32_t attr_size, uint32_t threads,
                                vxr_octree *dest, vxr_error *err);

/* SWAR popcount: the baseline x86-64 target has no POPCNT instruction and
 * the compiler's fallback is an out-of-line call on hot paths. */
static inline int vxr_popcount64(uint64_t v) {
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((v * 0x0101010101010101ull) >> 56);
}

static inline int vxr_popcount32(uint32_t v) {
    return vxr_popcount64(v);
}

/* Spreads the low 21 bits of v to every third bit (bit i -> bit 3i). */
static inline uint64_t vxr_spread3(uint32_t v) {
    uint64_t x = v & 0x1fffffu;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

/* Number of significant bits of v (0 for 0). */
static inline uint32_t vxr_bitlen64(uint64_t v) {
    return v ? 64u - (uint32_t)__builtin_clzll(v) : 0u;
}

/* Checks a voxel list for a build: attr_size 1 or 4, palette indices 1..255,
 * coordinates within +-2^20. Writes the seed's initial depth (root edge 2h =
 * 2^depth0, h the smallest power of two >= 2 with abs_svo(c) < h) and the
 * tight bounds into dest. */
vxr_result vxr_octree_prepare(const vxr_voxel *voxels, size_t count, uint32_t attr_size,
                              vxr_octree *dest, uint32_t *depth0, vxr_error *err);

/* vxr_octree_foreach over the voxels in the box lo <= cell < hi only,
 * visiting no subtree outside it (read-only: safe from several threads). */
void vxr_octree_foreach_box(const vxr_octree *t, const int64_t lo[3], const int64_t hi[3],
                            void (*fn)(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr),
                            void *user);

/* A scene of `models` zeroed models and `instances` zeroed instances, with
 * its version arrays; NULL when out of memory. */
vxr_scene *vxr_scene_alloc(uint32_t models, uint32_t instances);

/* core/journal.c: appends an entry to the scene's journal (vxr/journal.h);
 * out of memory, the journal starts afresh and readers resync. */
void vxr_journal_note(vxr_scene *s, vxr_change_kind kind, uint32_t id, uint32_t start,
                      uint32_t count);
/* Moves model id's octree changes since the last call (all of it when
 * laid out afresh, not live or removed) into the journal. */
void vxr_journal_model(vxr_scene *s, uint32_t id);

/* vxr_scene_touch_instance for a change of flags only (the culler's):
 * the instance did not move. id < instance_count. */
void vxr_scene_touch_flags(vxr_scene *s, uint32_t id);

/* True when id names a model of s that was not removed. */
bool vxr_scene_has_model(const vxr_scene *s, uint32_t id);
/* True when r (row-major) is orthonormal to float precision: R R^T = I. */
bool vxr_rotation_orthonormal(const float r[9]);
/* Checks an instance against the model count: model index, finite
 * transform with an orthonormal rotation, scale > 0, view distance >= 0
 * (INFINITY allowed). VXR_ERROR_FORMAT with a reason. */
vxr_result vxr_instance_check(const vxr_instance *in, uint32_t index, uint32_t models,
                              vxr_error *err);

/* Frees every pointer given (NULL ones too): the destructors' arrays. */
static inline void vxr_free_each(void *const *p, size_t n) {
    for (size_t i = 0; i < n; i++) free(p[i]);
}
#define VXR_FREE(...)                                                                              \
    vxr_free_each((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

/* True-colour loaders (.vl32, .qb, .cub): colours become palette entries
 * while a source has at most 255 of them (zeroed: none yet). */
typedef struct vxr_color_map {
    uint32_t key[512];
    uint8_t index[512];
    uint32_t count;
    bool rgba; /* a 256th colour came: every voxel is RGBA8 */
} vxr_color_map;
/* The attribute of a voxel of colour rgba in src: its palette entry (added
 * to src's palette when new) while there are at most 255 colours; at the
 * 256th, every voxel src holds turns into its RGBA8 colour, the palette is
 * cleared, and from then on the attribute is rgba itself. The source's
 * attr_size is then m->rgba ? 4 : 1. */
uint32_t vxr_color_attr(vxr_color_map *m, vxr_scene_src *src, uint32_t rgba);

/* Writers of world cells (.vl32, .qb): whether t places cells on cells (a
 * signed axis permutation, scale 1, whole translation within 2^24), and
 * then its rotation R and translation tr. */
int vxr_integer_placement(const vxr_transform *t, int32_t R[9], int64_t tr[3]);
/* The world cell w of model cell v under such a placement: the cell
 * [v, v+1) maps to [min, min+1) with min = R v + t, less one where the
 * row's sign is negative. */
static inline void vxr_place_cell(const int32_t R[9], const int64_t t[3], const int64_t v[3],
                                  int64_t w[3]) {
    for (int i = 0; i < 3; i++) {
        w[i] = t[i];
        for (int k = 0; k < 3; k++) {
            w[i] += R[3 * i + k] * v[k];
            if (R[3 * i + k] < 0) w[i] -= 1;
        }
    }
}

/* The solid voxels a run-length coded file (.qb, .binvox) may name: the
 * fuzz build lowers it (tests/fuzz/CMakeLists.txt), as a few bytes of runs
 * reach it and a fuzzer wants thousands of inputs a second. */
#ifndef VXR_RLE_VOXEL_LIMIT
#define VXR_RLE_VOXEL_LIMIT VXR_RLE_MAX_VOXELS
#endif

/* Grows the box lo..hi (both inclusive) to hold cell c. */
static inline void vxr_box_grow(int64_t lo[3], int64_t hi[3], const int64_t c[3]) {
    for (int k = 0; k < 3; k++) {
        if (c[k] < lo[k]) lo[k] = c[k];
        if (c[k] > hi[k]) hi[k] = c[k];
    }
}

/* Little-endian 32-bit stores and loads for the file formats. */
static inline void vxr_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t vxr_get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t vxr_get16(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Orders two cells (or chunk coordinates) by x, then y, then z. */
static inline int vxr_cell_cmp(const int32_t *a, const int32_t *b) {
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Seconds on the monotonic clock. */
static inline double vxr_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A growing byte buffer for the writers (.vox, .qb): appends, with a
 * sticky failure when memory runs out (core/output.c). */
typedef struct vxr_bytes {
    uint8_t *p;
    size_t n, cap;
    bool failed;
} vxr_bytes;
void vxr_bytes_put(vxr_bytes *o, const void *data, size_t n);
static inline void vxr_bytes_put32(vxr_bytes *o, uint32_t v) {
    uint8_t b[4];
    vxr_put32(b, v);
    vxr_bytes_put(o, b, 4);
}

/* A reader over a file's bytes (.qb, .qbt, .qbcl): vxr_cursor_need fails,
 * naming what and the byte, when fewer than n bytes are left (core/qb.c). */
typedef struct vxr_cursor {
    const uint8_t *data;
    size_t size, at;
    vxr_error *err;
} vxr_cursor;
vxr_result vxr_cursor_need(vxr_cursor *c, size_t n, const char *what);
/* The next little-endian uint32; the caller has made sure of the bytes. */
static inline uint32_t vxr_cursor_u32(vxr_cursor *c) {
    const uint32_t v = vxr_get32(c->data + c->at);
    c->at += 4;
    return v;
}

/* A Qubicle matrix being read (.qb, .qbt, .qbcl; core/qb.c): one model,
 * then one instance at its least vxr cell. Qubicle is Y-up; a right-handed
 * matrix's cell (x, y, z) is vxr's (x, -z-1, y), a left-handed one's
 * (-x-1, z, y). */
typedef struct vxr_qb_matrix {
    uint32_t model;
    bool right;
    int64_t pos[3], corner[3];
} vxr_qb_matrix;
/* Adds the model of a matrix of n cells at pos (the file's axes); fails
 * (err names `where`) when it leaves vxr's coordinate range of +-2^20. */
vxr_result vxr_qb_matrix_begin(vxr_scene_src *dest, bool right, const int64_t pos[3],
                               const uint32_t n[3], const char *where, vxr_qb_matrix *m,
                               vxr_error *err);
/* Pushes the matrix's cell (x, y, z) (from its corner); VXR_ERROR_MEMORY
 * without a message. */
vxr_result vxr_qb_matrix_put(vxr_scene_src *dest, const vxr_qb_matrix *m, uint64_t x, uint64_t y,
                             uint64_t z, uint32_t color);
/* Adds the matrix's instance, hidden or not. */
vxr_result vxr_qb_matrix_end(vxr_scene_src *dest, const vxr_qb_matrix *m, bool hidden,
                             vxr_error *err);

/* The format table's mesh writers (core/mesh_write.c): greedy meshes. */
vxr_result vxr_save_glb(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err);
vxr_result vxr_save_gltf(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err);
vxr_result vxr_save_obj(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err);
vxr_result vxr_save_ply(const vxr_scene *s, uint8_t **data, size_t *size, vxr_error *err);

/* A tag of Minecraft's NBT (core/nbt.c): its type and payload
 * data[at..end). vxr_nbt_root checks the whole tree (bounds, types, 512
 * levels at most), so the walkers below trust what it accepted. */
typedef struct vxr_nbt {
    const uint8_t *data;
    uint8_t type; /* 1 byte .. 12 long array; 10 compound, 9 list */
    size_t at, end;
} vxr_nbt;
bool vxr_nbt_root(const uint8_t *data, size_t size, vxr_nbt *root);
/* The next child of a compound (*cursor 0 at first) and its name. */
bool vxr_nbt_next(const vxr_nbt *compound, size_t *cursor, vxr_nbt *child, const uint8_t **name,
                  size_t *name_len);
/* The child called name, when it has that type. */
bool vxr_nbt_get(const vxr_nbt *compound, const char *name, uint8_t type, vxr_nbt *child);
bool vxr_nbt_int(const vxr_nbt *compound, const char *name, int32_t *v);
/* The element count of a list or array, a list's element type, the next
 * element of a list, long i of a long array, a string's bytes. */
uint32_t vxr_nbt_count(const vxr_nbt *array);
uint8_t vxr_nbt_list_type(const vxr_nbt *list);
bool vxr_nbt_list_next(const vxr_nbt *list, size_t *cursor, vxr_nbt *item);
uint64_t vxr_nbt_long(const vxr_nbt *array, uint32_t i);
const uint8_t *vxr_nbt_string(const vxr_nbt *s, size_t *len);

/* A gzip file of NBT (.litematic, .schematic): refused unless gzip (what
 * names the format in the message), unpacked up to 1 GiB, then given to
 * load (core/nbt.c). */
vxr_result vxr_load_gzip_nbt(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err,
                             const char *what,
                             vxr_result (*load)(const uint8_t *, size_t, vxr_scene_src *,
                                                vxr_error *));

/* A .litematic's NBT once unzipped (core/litematic.c; its fuzz target's
 * entry, as a fuzzer cannot forge gzip's CRC). */
vxr_result vxr_load_litematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err);

/* A .schematic's NBT once unzipped (core/schematic.c; its fuzz target's
 * entry). */
vxr_result vxr_load_schematic_nbt(const uint8_t *nbt, size_t n, vxr_scene_src *dest,
                                  vxr_error *err);

/* A Minecraft block's colour (RGBA8) by its name (namespace optional), 0
 * for air; *known is false where no rule of core/mc_blocks.c names it (it
 * is then stone grey). */
uint32_t vxr_mc_block_color(const uint8_t *name, size_t len, bool *known);

/* The survey of a file of format f (core/survey.c). */
void vxr_survey_file(const vxr_format *f, const uint8_t *data, size_t size, vxr_file_survey *out);

/* A file of the format table (not a world) into src, or for a format of
 * built octrees into *scene (when scene is not NULL); *format and *survey
 * (each may be NULL) as vxr_scene_load_options says (core/formats.c). */
vxr_result vxr_load_any_file(const char *path, const vxr_load_options *options, vxr_scene_src *src,
                             vxr_scene **scene, const vxr_format **format, vxr_file_survey *survey,
                             vxr_error *err);

/* A world index's chunk (core/world.c). */
typedef struct vxr_world_entry {
    int32_t c[3];
    uint64_t voxels;
} vxr_world_entry;
/* Parses a world index (vxr/world.h) from memory; path names it in
 * messages. On failure *entries is NULL and *count 0. */
vxr_result vxr_world_parse_index(const uint8_t *data, size_t size, const char *path, uint32_t *side,
                                 vxr_world_entry **entries, uint32_t *count, vxr_error *err);

/* The instance of chunk c (side cells): model under a translation to the
 * chunk's first cell, always visible. */
vxr_instance vxr_world_chunk_instance(const int32_t c[3], uint32_t side, uint32_t model);
/* The world's directory from a SCENE path (the directory, or its
 * world.vxw) into dir (PATH_MAX bytes at least). */
vxr_result vxr_world_index_path(const char *path, char *dir, size_t size, vxr_error *err);
/* dir's world.vxw, parsed; *entries malloc'd. */
vxr_result vxr_world_read_index(const char *dir, uint32_t *side, vxr_world_entry **entries,
                                uint32_t *count, vxr_error *err);
/* dir's palette.vxo: dest's palette, materials and colour size. */
vxr_result vxr_world_read_palette(const char *dir, vxr_scene *dest, vxr_error *err);
/* vxr_octree_coarse (vxr/svo.h) with the tree's node colours given
 * (vxr_lod_colors of it): a tree coarsened at several levels colours its
 * nodes once. */
vxr_result vxr_octree_coarse_from(const vxr_octree *tree, const uint32_t *fine_colors,
                                  uint32_t level, vxr_octree *dest, vxr_error *err);
/* Chunk e's file (core/world_chunk.c): its octree into *tree (the caller
 * frees it) and the bytes read into *bytes, after checking it is chunk e
 * of a world of world's colours (not its voxel count: see vxr/world.h).
 * With `level` (may be NULL: the whole chunk) asking for a coarse form of
 * at most *level, the coarsest such form stored is read alone, with its
 * node colours (tree->lod_colors), in cells of 2^*level; *level is set to
 * the level read, 0 for the whole chunk. *whole (may be NULL): the whole
 * chunk's voxels. Safe on any thread (reads world's palette only). */
vxr_result vxr_world_read_chunk(const char *dir, uint32_t side, const vxr_world_entry *e,
                                const vxr_scene *world, uint32_t *level, vxr_octree *tree,
                                uint64_t *bytes, uint32_t *whole, vxr_error *err);
/* A world build's start: checks the chunk side and the path, makes dir
 * (which must not exist) and dir/chunks. */
vxr_result vxr_world_begin(const char *dir, uint32_t chunk, vxr_error *err);
/* Its end, after the chunk files of e[0..written) (r: how they went):
 * palette.vxo from colours, then the index; on any failure everything the
 * build wrote is removed. Adds the bytes to st and sets its chunk count. */
vxr_result vxr_world_finish(vxr_result r, const vxr_scene *colours, const char *dir, uint32_t chunk,
                            const vxr_world_entry *e, uint32_t written, vxr_world_stats *st,
                            vxr_error *err);
/* chunks/CX.CY.CZ.vxc of world dir (its levels and the whole chunk), or
 * when plain, the .vxo of the whole chunk alone that worlds written before
 * the levels hold. */
void vxr_world_chunk_path(char *dest, size_t size, const char *dir, const int32_t c[3], bool plain);
/* dir's world.vxw written anew (atomically) from count entries. */
vxr_result vxr_world_write_index(const char *dir, uint32_t side, const vxr_world_entry *e,
                                 uint32_t count, vxr_error *err);

/* Chunks being filled: a map from chunk coordinates to voxel lists in
 * chunk cells (core/world.c). */
typedef struct vxr_chunk_bucket {
    int32_t c[3];
    vxr_model_src m;
} vxr_chunk_bucket;
typedef struct vxr_chunk_map {
    vxr_chunk_bucket *b;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: bucket index + 1, 0 empty */
    uint32_t slots; /* a power of two, at least twice n */
    bool failed;
} vxr_chunk_map;
/* Chunk c's bucket, made (empty) when new; NULL when memory runs out or
 * past VXR_WORLD_MAX_CHUNKS. Pointers last until the next new bucket. */
vxr_chunk_bucket *vxr_chunk_map_get(vxr_chunk_map *m, const int32_t c[3]);
void vxr_chunk_map_free(vxr_chunk_map *m);
/* A vxr_octree_foreach callback that cuts a model's voxels, placed by R and
 * t on whole cells, into map's buckets; map.failed on running out. */
typedef struct vxr_chunk_cutter {
    vxr_chunk_map map;
    uint32_t shift; /* log2 of the chunk side */
    int32_t R[9];
    int64_t t[3];
    vxr_chunk_bucket *last; /* the bucket of the voxel before: neighbours share one */
} vxr_chunk_cutter;
void vxr_chunk_cut_voxel(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr);
/* Bucket b's voxels (taken: its list is left empty) as chunk file b->c of
 * world dir (its .vxc, coarse forms first; core/world_chunk.c), with
 * colours' palette, built on `threads` threads; adds the file's size to
 * *bytes and sets *whole_bytes to its whole chunk's .vxo part (what a
 * whole read reads; either may be NULL) and *voxels (a cell listed twice
 * takes the later colour and counts once). A .vxo of the chunk written
 * before the levels is left to the caller (vxr_world_save removes it once
 * the .vxc is synced). */
vxr_result vxr_world_write_chunk(const vxr_scene *colours, const char *dir, uint32_t side,
                                 uint32_t threads, vxr_chunk_bucket *b, uint64_t *bytes,
                                 uint64_t *whole_bytes, uint64_t *voxels, vxr_error *err);

/* One shape a .vox scene graph places at a frame, as the writer's graph
 * patcher (core/vox_graph.c) needs it. */
typedef struct vxr_vox_shape {
    int32_t shp, trn, trn_up; /* node ids: the nSHP; the nTRN right above it
                                 (-1: none); the node above that (-1: none) */
    int32_t model, entry;     /* the file model shown; its index in the nSHP's list */
    int32_t trn_frame;        /* the index of the nTRN's key frame shown (-1: none) */
    int32_t R[9];             /* what the nodes above the nTRN compose */
    int64_t t[3];
    bool hidden_above;             /* hidden by a node or layer above the nTRN */
    bool layer_hidden, own_hidden; /* the nTRN's layer is hidden; its own _hidden */
} vxr_vox_shape;
typedef vxr_result (*vxr_vox_shape_fn)(void *user, const vxr_vox_shape *shape);
/* Walks the scene graph among `chunks` (MAIN's children: SIZE, nTRN, nGRP,
 * nSHP and LAYR are read, the others skipped) at animation frame `frame`
 * as vxr_load_vox_frame does, calling fn for each shape in the order the
 * reader makes instances. Fails where the reader fails on the same graph,
 * or with fn's failure. */
vxr_result vxr_vox_walk(const uint8_t *chunks, size_t size, uint32_t frame, vxr_vox_shape_fn fn,
                        void *user, vxr_error *err);

/* A MATL chunk's content as the .vox reader takes it: the material id and
 * the material (core/vox.c); false when malformed. */
bool vxr_vox_parse_material(const uint8_t *chunk, size_t size, int32_t *id, vxr_material *dest);

/* MagicaVoxel's default palette (RGBA8, as vxr_rgba packs it; core/vox.c). */
const uint32_t *vxr_vox_default_palette(void);

/* zlib (gzip false) or gzip (true) data src[0..n) inflated into a new
 * malloc'd buffer (*out, *out_n) of at most max bytes (core/inflate.c,
 * the system's zlib). On failure nothing is kept and *why says what went
 * wrong: VXR_ERROR_FORMAT (bad or cut data, or more than max bytes),
 * VXR_ERROR_LIMIT or VXR_ERROR_MEMORY. */
vxr_result vxr_inflate(const uint8_t *src, size_t n, bool gzip, size_t max, uint8_t **out,
                       size_t *out_n, const char **why);

/* Big-endian ones (.vl32). */
static inline void vxr_put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t vxr_get_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
