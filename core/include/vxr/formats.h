/* vxr scene files and built-in scenes.
 *
 * One table (vxr_formats) says how each file format is recognised (leading
 * bytes, else the file name's extension) and what reads and writes it;
 * vxr_scene_load, `vxr convert` and the viewer's drop all go through it.
 * A new format is one row there (core/formats.c) plus its reader/writer.
 *
 * Loaders read from memory so that they can be fuzzed. On failure every
 * loader leaves *dest empty, frees what it allocated, and writes a one-line
 * reason to err that says what is wrong and where (byte offsets for binary
 * formats); callers prefix the file name.
 */
#ifndef VXR_FORMATS_H
#define VXR_FORMATS_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MagicaVoxel .vox, versions 150 and 200 (see core/vox.c for what is read). */
VXR_API vxr_result vxr_load_vox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
/* .vl32: headerless big-endian int32 x, y, z, then ARGB; alpha 0 is empty.
 * One model, one identity instance; up to 255 distinct colours become a
 * palette, more keep RGBA8. */
VXR_API vxr_result vxr_load_vl32(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                 vxr_error *err);
/* vxr's own octree file; everything is validated, nothing is rebuilt. */
VXR_API vxr_result vxr_load_vxo(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err);

/* Savers write into a new malloc'd buffer (*data, *size); on failure both
 * are NULL/0 and err says why. */

/* .vxo: the bytes depend only on the scene, so load-then-save reproduces a
 * file. Only VXR_ERROR_MEMORY can fail. */
VXR_API vxr_result vxr_save_vxo(const vxr_scene *scene, uint8_t **data, size_t *size,
                                vxr_error *err);
/* .vl32: the visible instanced voxels in world cells (one record per
 * instanced voxel, instance order; a later record wins on reading). Fails
 * with VXR_ERROR_LIMIT for non-integer placements (rotations other than
 * axis permutations, or scale != 1). */
VXR_API vxr_result vxr_save_vl32(const vxr_scene *scene, uint8_t **data, size_t *size,
                                 vxr_error *err);

/* MagicaVoxel .vox, version 200: a SIZE/XYZI pair per model, the scene
 * graph (root nTRN -> nGRP -> per instance an nTRN with rotation and
 * translation over an nSHP; hidden instances get "_hidden" 1), one LAYR and
 * the palette. Loading the file places every voxel at the same world cell
 * with the same colour; models keep their own cells when those lie in
 * 0..255 and are otherwise moved into that range, the translation making up
 * for it; a model wider than 256 cells is written as blocks of 256^3 under
 * one nGRP per instance. Removed instances, and removed models no instance
 * names, are left out (model indices close up). An RGBA8 scene gets a
 * palette of its distinct colours, sorted; a paletted one keeps its own.
 * View distances are not kept (.vox has none). Works on live (edited)
 * models. Fails with VXR_ERROR_LIMIT, naming the instance, for a placement
 * .vox cannot hold (scale != 1, a rotation other than a signed axis
 * permutation, a translation off whole cells or beyond +-2^24), and for an
 * RGBA8 scene of more than 255 colours; VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_save_vox(const vxr_scene *scene, uint8_t **data, size_t *size,
                                vxr_error *err);

/* One file format. Exactly one of load_src (voxel lists, built afterwards)
 * and load (a built scene) is set; save is NULL when vxr cannot write it. */
typedef struct vxr_format {
    const char *name;      /* "MagicaVoxel", ... */
    const char *extension; /* ".vox", lower case */
    const char *magic;     /* leading bytes, or NULL: known by extension only */
    size_t magic_size;
    vxr_result (*load_src)(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err);
    vxr_result (*load)(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err);
    vxr_result (*save)(const vxr_scene *scene, uint8_t **data, size_t *size, vxr_error *err);
} vxr_format;

/* The table; *count receives its length. */
VXR_API const vxr_format *vxr_formats(size_t *count);
/* The format of a file from its leading bytes, else from the extension of
 * path (case-insensitive); NULL when neither says. */
VXR_API const vxr_format *vxr_format_detect(const char *path, const uint8_t *data, size_t size);
/* The writable format an output path names by its extension; NULL when
 * none. */
VXR_API const vxr_format *vxr_format_for_output(const char *path);
/* The writable formats' extensions, "a, b or c", into dest (for messages). */
VXR_API void vxr_format_output_list(char *dest, size_t size);

/* Generates a built-in scene from its spec without the '@': "demo",
 * "menger:L" (L 0..6), "terrain:N" (N 1..8192, an N x N heightfield),
 * "world:K" (K 1..1000000 objects with finite view distances over a terrain). */
VXR_API vxr_result vxr_scene_generate(const char *spec, vxr_scene_src *dest, vxr_error *err);

/* Reads a whole file into a new malloc'd buffer. */
VXR_API vxr_result vxr_read_file(const char *path, uint8_t **data, size_t *size, vxr_error *err);
/* Writes a buffer to a file, through a temporary file and a rename, so a
 * failed write never leaves a partial file behind. */
VXR_API vxr_result vxr_write_file(const char *path, const void *data, size_t size, vxr_error *err);

/* Loads a scene source (voxel lists) from a file of a format with load_src,
 * or from "@spec". A .vxo file holds built octrees, not voxel lists:
 * VXR_ERROR_ARGUMENT. */
VXR_API vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err);
/* Loads any scene argument (a file of any format of the table, or "@spec")
 * and builds it. The file is read once. err's message does not repeat the
 * path. */
VXR_API vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err);

#ifdef __cplusplus
}
#endif
#endif
