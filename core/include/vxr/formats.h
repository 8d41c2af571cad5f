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
 *
 * Input limits: a scene file is read once (a file, pipe, FIFO, /dev/stdin or
 * "-" for standard input), its format sniffed from the first bytes read (else
 * the name's extension), and the rest read up to that format's limit below;
 * a larger input fails with VXR_ERROR_LIMIT, "file too large (over N bytes)",
 * without reading on (a regular file: at once, from its size). An input of
 * no known format is read through up to the largest limit only to say which
 * of "too large" and "unknown format" it is. Directories fail. Each loader
 * then checks every count in the file against the bytes present before it
 * allocates for it.
 */
#ifndef VXR_FORMATS_H
#define VXR_FORMATS_H

#include <stdio.h>
#include "vxr/camera.h"
#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MagicaVoxel .vox, versions 150 and 200 (see core/vox.c for what is read). */
VXR_API vxr_result vxr_load_vox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
/* vxr_load_vox at animation frame `frame`: every nTRN and nSHP takes its
 * frame with the largest _f <= frame (a frame without _f counts as 0), else
 * its smallest; vxr_load_vox is frame 0. */
VXR_API vxr_result vxr_load_vox_frame(const uint8_t *data, size_t size, uint32_t frame,
                                      vxr_scene_src *dest, vxr_error *err);
/* .vl32: headerless big-endian int32 x, y, z, then ARGB; alpha 0 is empty.
 * One model, one identity instance; up to 255 distinct colours become a
 * palette, more keep RGBA8. */
VXR_API vxr_result vxr_load_vl32(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                 vxr_error *err);
/* Qubicle Binary .qb (core/qb.c): every matrix one model and one instance,
 * Y-up mapped to Z-up by the file's z-axis orientation (a right-handed
 * file's (x, y, z) is vxr's (x, -z, y), a left-handed one's (-x, z, y)); RLE
 * and the visibility mask read; up to 255 distinct colours become a
 * palette, more keep RGBA8. At most VXR_RLE_MAX_VOXELS solid voxels. */
VXR_API vxr_result vxr_load_qb(const uint8_t *data, size_t size, vxr_scene_src *dest,
                               vxr_error *err);
/* .qb out: every visible instance with voxels one matrix of its world
 * cells (left-handed, RGBA, run-length coded, no visibility mask), so
 * vxr_load_qb gives back the same world voxels and colours. Fails with
 * VXR_ERROR_LIMIT for non-integer placements (as vxr_save_vl32) and for an
 * instance whose box spans more than VXR_RLE_MAX_VOXELS cells. */
VXR_API vxr_result vxr_save_qb(const vxr_scene *scene, uint8_t **data, size_t *size,
                               vxr_error *err);
/* binvox (core/binvox.c): one model of the solid cells, palette entry 1
 * (grey 180, binvox has no colours); Y-up mapped to Z-up as a right-handed
 * file: (x, y, z) is vxr's (x, -z, y). The cells sit at translate + index
 * where the file's scale makes a cell one unit (scale = D = H = W, whole
 * translate, as vxr writes), else at their indices. At most
 * VXR_RLE_MAX_VOXELS solid voxels. */
VXR_API vxr_result vxr_load_binvox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                   vxr_error *err);
/* binvox out: the visible instanced voxels (colours dropped: binvox has
 * none) in the smallest cube holding them, at most 512 on a side, with a
 * translate and scale that vxr_load_binvox reads back as the same world
 * cells. VXR_ERROR_LIMIT for non-integer placements and larger scenes. */
VXR_API vxr_result vxr_save_binvox(const vxr_scene *scene, uint8_t **data, size_t *size,
                                   vxr_error *err);
/* CubeWorld .cub (core/cub.c): one model; Z-up, its cell (x, y, z) is
 * vxr's (-x-1, y, z); black is empty; up to 255 distinct colours become a
 * palette, more keep RGBA8. */
VXR_API vxr_result vxr_load_cub(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
/* Qubicle's tree formats (core/qbt.c): the exchange format .qbt ("QB 2")
 * and the project format .qbcl ("QBCL"), zlib-compressed matrices in a
 * node tree. Every matrix one model and one instance, Y-up left-handed as
 * .qb's: its cell (x, y, z) is vxr's (-x-1, z, y); .qbt positions are
 * relative to the parent node. A .qbcl's hidden matrices are hidden
 * instances. At most VXR_RLE_MAX_VOXELS cells per matrix. */
VXR_API vxr_result vxr_load_qbt(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
VXR_API vxr_result vxr_load_qbcl(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                 vxr_error *err);
/* Goxel .gox version 2 (core/gox.c): every layer with blocks one model and
 * one instance (hidden with its layer); Z-up right-handed as vxr, cells at
 * their block corners plus their place in the block. Clone layers and
 * layer matrices are not read. At most VXR_RLE_MAX_VOXELS voxels placed. */
VXR_API vxr_result vxr_load_gox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
/* The two .vxl formats (core/vxl.c). Westwood's voxel models ("Voxel
 * Animation"): every limb one model and one instance at its min bound
 * (rounded), Z-up as vxr; an all-zero palette (the game's) becomes
 * MagicaVoxel's default. Ace of Spades maps (512 x 512 x 64, no magic: a
 * .vxl without Westwood's is one when its columns fill it exactly): one
 * model of every solid cell, Voxlap's axes as .kvx's: (x, 511-y, 63-z);
 * cells without a colour take the one above them. */
VXR_API vxr_result vxr_load_westwood_vxl(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                         vxr_error *err);
VXR_API vxr_result vxr_load_aos_vxl(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                    vxr_error *err);
/* Litematica .litematic (core/litematic.c): every region one model and one
 * instance; Minecraft's Y-up cell (x, y, z) is vxr's (x, -z-1, y); block
 * names become colours through the table of core/mc_blocks.c (Minecraft's
 * map colours), air is empty. At most VXR_RLE_MAX_VOXELS cells a region
 * and blocks in all. */
VXR_API vxr_result vxr_load_litematic(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                      vxr_error *err);
/* MCEdit and Schematica's .schematic (core/schematic.c): one model of the
 * non-air blocks, Minecraft's pre-1.13 numeric ids (and data values for
 * dyed and wooden blocks) named, then coloured as a .litematic's; Y-up as
 * Minecraft. At most VXR_RLE_MAX_VOXELS cells. */
VXR_API vxr_result vxr_load_schematic(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                      vxr_error *err);
/* VoxEdit .vxm, versions 4 to 12 (core/vxm.c): every layer one model and
 * one instance (hidden with its layer); Y-up left-handed, a cell (x, y, z)
 * is vxr's (x, z, y). At most VXR_RLE_MAX_VOXELS cells. */
VXR_API vxr_result vxr_load_vxm(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
/* Ken Silverman's formats (core/kvx.c): the Build engine's .kvx (first mip
 * level), Slab6 and Voxlap's .kv6, and SLAB6's raw .vox (no magic, told
 * from MagicaVoxel's by its "VOX " and SLAB6's exact size). One model and
 * one instance. Build's axes (x east, y south, z down) turned half about x:
 * the file's (x, y, z) is vxr's (x, ysiz-1-y, zsiz-1-z); the origin is the
 * file's pivot rounded to a cell corner (SLAB6's .vox: its cells). .kvx and
 * .kv6 hold surface voxels only, as their tools write them. */
VXR_API vxr_result vxr_load_kvx(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
VXR_API vxr_result vxr_load_kv6(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                vxr_error *err);
VXR_API vxr_result vxr_load_slab6_vox(const uint8_t *data, size_t size, vxr_scene_src *dest,
                                      vxr_error *err);
/* vxr's own octree file; everything is validated, nothing is rebuilt.
 * Instance rotations must be signed axis permutations (core/vxo.c). */
VXR_API vxr_result vxr_load_vxo(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err);

/* Savers write into a new malloc'd buffer (*data, *size); on failure both
 * are NULL/0 and err says why. */

/* .vxo: the bytes depend only on the scene, so load-then-save reproduces a
 * file. Fails with VXR_ERROR_LIMIT, naming the instance, for a rotation
 * other than a signed axis permutation (the loader accepts no other), and
 * VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_save_vxo(const vxr_scene *scene, uint8_t **data, size_t *size,
                                vxr_error *err);
/* .vl32: the visible instanced voxels in world cells (one record per
 * instanced voxel, instance order; a later record wins on reading). Fails
 * with VXR_ERROR_LIMIT for non-integer placements (rotations other than
 * axis permutations, or scale != 1). */
VXR_API vxr_result vxr_save_vl32(const vxr_scene *scene, uint8_t **data, size_t *size,
                                 vxr_error *err);
/* The most records a .vl32 that vxr writes may hold (64 GiB of 16-byte
 * records): vxr reads a .vl32 back as one model, whose voxel count is
 * 32-bit. */
#define VXR_VL32_MAX_RECORDS 4294967295u
/* The size in bytes of scene's .vl32 (16 per visible instanced voxel),
 * computed without building it. VXR_ERROR_LIMIT for a placement .vl32
 * cannot hold (as vxr_save_vl32) and for more than VXR_VL32_MAX_RECORDS
 * records, saying how many it would be. Every .vl32 saver checks this
 * before it allocates or writes anything. */
VXR_API vxr_result vxr_vl32_size(const vxr_scene *scene, uint64_t *size, vxr_error *err);
/* The records of vxr_save_vl32, streamed to f instance by instance through
 * a small buffer: memory stays bounded whatever the instance count.
 * VXR_ERROR_IO for a failed write (f's error flag set). */
VXR_API vxr_result vxr_write_vl32(const vxr_scene *scene, FILE *f, vxr_error *err);
/* vxr_write_vl32 into a new file at path, whole or not at all
 * (vxr_output_*); nothing is created when vxr_vl32_size fails. *size (may
 * be NULL) receives the bytes written (0 on failure). */
VXR_API vxr_result vxr_save_vl32_file(const vxr_scene *scene, const char *path, uint64_t *size,
                                      vxr_error *err);

/* Output files that land whole or not at all. vxr_output_open creates a
 * temporary file beside path (same directory: the rename is atomic) with
 * the permissions of the file it will replace (else 0666 less the umask);
 * VXR_ERROR_IO when it cannot (no such directory, no permission, path is
 * a directory, a file name over NAME_MAX bytes). Write through
 * vxr_output_file. vxr_output_finish flushes, fsyncs and closes it and
 * reports any write error (a full disk); vxr_output_commit finishes it if
 * need be, renames it over path and frees it, removing it instead on
 * failure. vxr_output_abort (NULL is fine) removes and frees it. A command
 * with several outputs opens and writes them all and finishes them all
 * before it commits any, so a failure leaves none of them behind. A
 * character device or FIFO (/dev/null, a pipe) is written in place: it
 * cannot be renamed over.
 *
 * The temporary is named ".NAME.HASH.tmp.PID.N" in path's directory: NAME
 * path's file name, cut short so that the whole fits in NAME_MAX (255)
 * bytes (any name that fits works), HASH 16 hex digits of the whole file
 * name, PID the writing process. vxr_output_open first removes path's
 * temporaries (that NAME and HASH) whose process no longer exists, left
 * by a writer killed outright (SIGKILL); other files, and the temporaries
 * of live processes, are never touched. */
typedef struct vxr_output vxr_output;
VXR_API vxr_result vxr_output_open(const char *path, vxr_output **out, vxr_error *err);
VXR_API FILE *vxr_output_file(vxr_output *out);
VXR_API vxr_result vxr_output_finish(vxr_output *out, vxr_error *err);
VXR_API vxr_result vxr_output_commit(vxr_output *out, vxr_error *err);
VXR_API void vxr_output_abort(vxr_output *out);
/* Makes SIGINT, SIGTERM and SIGHUP remove every open output's temporary
 * file before the process dies of the signal (its default action, raised
 * again: exit status 128 + the signal's number in a shell). It installs a
 * handler only for those of the three whose action is the default: a
 * signal the process ignores (nohup) or handles itself is left alone.
 * Nothing is installed unless this is called: the `vxr` command calls it
 * once at start; a host embedding the library calls it if it wants this
 * (before or after opening outputs), or removes temporaries its own way
 * (without it a signal leaves them, and the next write to the same path
 * removes them). At most 64 temporaries open at once are covered. Not
 * thread-safe against other changes of these signals' actions. */
VXR_API void vxr_output_cleanup_on_signals(void);

/* MagicaVoxel .vox, version 200: a SIZE/XYZI pair per model, the scene
 * graph, the palette and materials. A scene read from a .vox
 * (scene->vox_chunks) gets that file's scene graph back (node names,
 * groups, layers, every animation frame), patched where the scene changed:
 * instance i is the i-th shape the graph places at the frame it was read
 * at (scene->vox_frame); a moved instance changes that frame's key frame,
 * edited models keep their pivots where they can so that the other key
 * frames still place them, hidden ones get "_hidden" 1 on their nTRN,
 * removed ones leave their group, added ones join the root group. The
 * file's MATL chunks come back while their materials are unchanged, and
 * its IMAP, rOBJ, rCAM and NOTE as they were. A scene the graph cannot
 * hold (a node shared by several paths whose instances moved apart, a
 * model split into blocks, an instance shown under a hidden group or
 * layer) and any other scene get vxr's own graph: root nTRN -> nGRP -> per
 * instance an nTRN with rotation and translation over an nSHP, one LAYR.
 * Loading the file places every voxel at the same world cell
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

/* A render camera a .vox file keeps (rCAM, MagicaVoxel's camera slots),
 * as the format's extension document names its attributes. */
typedef struct vxr_file_camera {
    int32_t id;     /* the slot */
    char mode[8];   /* _mode: "pers", "free", "pano", "orth" or "iso" */
    float focus[3]; /* _focus: the point looked at, world units */
    float angle[3]; /* _angle: Euler angles in degrees (pitch, yaw, roll) */
    float radius;   /* _radius: the eye's distance from the focus */
    float fov_deg;  /* _fov: the vertical field of view */
} vxr_file_camera;
/* The rCAM cameras of the .vox a scene was read from (scene->vox_chunks),
 * in file order: up to max of them into dest (may be NULL with max 0).
 * Returns how many the file has; cameras whose chunk is malformed or whose
 * numbers are not finite are left out. */
VXR_API uint32_t vxr_scene_file_cameras(const vxr_scene *scene, vxr_file_camera *dest,
                                        uint32_t max);
/* Sets cam's eye, target and fov (a pinhole camera, DESIGN.md §2) from a
 * file camera: target = focus, eye = focus + radius (cos p sin y,
 * cos p cos y, sin p) for pitch p and yaw y, roll ignored (the up axis
 * stays +Z), the conventions vengi's MagicaVoxel reader uses; no file
 * with a camera set and a MagicaVoxel render of it was at hand to check
 * them against. Fails with VXR_ERROR_ARGUMENT, err saying why, for a mode
 * other than "pers" or "free" (vxr draws file cameras in perspective) or a
 * radius of 0 (the unset slots MagicaVoxel writes). Leaves cam's size; call
 * vxr_camera_setup after. */
VXR_API vxr_result vxr_file_camera_apply(const vxr_file_camera *fc, vxr_camera *cam,
                                         vxr_error *err);

/* Input limits, in bytes. A .vox holds up to 16 full 256^3 models (64 MiB
 * each); a .vl32 128 Mi voxel records; a .vxo the octrees of several
 * hundred million voxels. Real files are far smaller (tens of MB). */
#define VXR_VOX_MAX_BYTES       (1ull << 30) /* 1 GiB */
#define VXR_VL32_MAX_BYTES      (1ull << 31) /* 2 GiB */
#define VXR_VXO_MAX_BYTES       (1ull << 32) /* 4 GiB */
#define VXR_QB_MAX_BYTES        (1ull << 30) /* 1 GiB */
#define VXR_BINVOX_MAX_BYTES    (1ull << 30) /* 1 GiB */
#define VXR_CUB_MAX_BYTES       (1ull << 30) /* 1 GiB */
#define VXR_QBT_MAX_BYTES       (1ull << 30) /* 1 GiB, .qbt and .qbcl */
#define VXR_GOX_MAX_BYTES       (1ull << 30) /* 1 GiB */
#define VXR_VXL_MAX_BYTES       (1ull << 28) /* 256 MiB, both .vxl */
#define VXR_LITEMATIC_MAX_BYTES (1ull << 28) /* 256 MiB of gzip, .litematic and .schematic */
#define VXR_VXM_MAX_BYTES       (1ull << 30) /* 1 GiB */
#define VXR_KVX_MAX_BYTES       (1ull << 28) /* 256 MiB: 1024 x 1024 x 256 */
#define VXR_KV6_MAX_BYTES       (1ull << 30) /* 1 GiB */
#define VXR_SLAB6_MAX_BYTES     (1ull << 30) /* 1 GiB */
/* The runs of a .qb or .binvox can name many cells in few bytes: their
 * solid voxels are bounded apart (2^27, what a .vl32 at its byte limit
 * holds). */
#define VXR_RLE_MAX_VOXELS (1ull << 27)

/* One file format. At most one of load_src (voxel lists, built afterwards)
 * and load (a built scene) is set, neither for the meshes vxr only writes
 * (.glb, .gltf, .obj, .ply); save is NULL when vxr cannot write it. */
typedef struct vxr_format {
    const char *name;      /* "MagicaVoxel", ... */
    const char *extension; /* ".vox", lower case */
    const char *magic;     /* leading bytes, or NULL: known by extension only */
    size_t magic_size;
    vxr_result (*load_src)(const uint8_t *data, size_t size, vxr_scene_src *dest, vxr_error *err);
    vxr_result (*load)(const uint8_t *data, size_t size, vxr_scene **dest, vxr_error *err);
    vxr_result (*save)(const vxr_scene *scene, uint8_t **data, size_t *size, vxr_error *err);
    uint64_t max_size; /* the input limit, VXR_*_MAX_BYTES */
    /* streams the save to a file in bounded memory, or NULL: save, then
     * vxr_write_file */
    vxr_result (*save_file)(const vxr_scene *scene, const char *path, uint64_t *size,
                            vxr_error *err);
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

/* Reads a whole file ("-": standard input) into a new malloc'd buffer, once
 * and in one pass, so pipes and FIFOs work. Directories fail with
 * VXR_ERROR_IO; more than max bytes with VXR_ERROR_LIMIT, "file too large
 * (over max bytes)". vxr_read_file has no limit. */
VXR_API vxr_result vxr_read_file_max(const char *path, uint64_t max, uint8_t **data, size_t *size,
                                     vxr_error *err);
VXR_API vxr_result vxr_read_file(const char *path, uint8_t **data, size_t *size, vxr_error *err);
/* Writes a buffer to a file whole or not at all, keeping an existing
 * file's permissions (vxr_output_*). */
VXR_API vxr_result vxr_write_file(const char *path, const void *data, size_t size, vxr_error *err);

/* Loads a scene source (voxel lists) from a file ("-": standard input; read
 * once within its format's limit, see the top) of a format with load_src,
 * or from "@spec". A .vxo file holds built octrees, not voxel lists:
 * VXR_ERROR_ARGUMENT. */
VXR_API vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err);
/* Loads any scene argument (a file of any format of the table, or "@spec")
 * and builds it. The file is read once. err's message does not repeat the
 * path. */
VXR_API vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err);
/* vxr_scene_load, also saying which row of the table read the file
 * (*format; NULL for "@spec"). format may be NULL. */
VXR_API vxr_result vxr_scene_load_format(const char *path, vxr_scene **dest,
                                         const vxr_format **format, vxr_error *err);

/* What a chunked file held (.vox: MAIN's children; .gox: its chunks), as
 * lists "ID count, ..." in file order: kept, the chunks the loader reads;
 * saved, those a .vox keeps unread for the .vox writer (rOBJ, rCAM, NOTE,
 * IMAP) and its animation frames besides the one read ("other frames:
 * N", nTRN key frames past each node's first); skipped, the others
 * (PACK, PREV, MATE, CAMR, ...). All empty for other formats and
 * "@spec". */
typedef struct vxr_file_survey {
    char kept[256];
    char skipped[256];
    char saved[256];
} vxr_file_survey;
/* vxr_scene_load_format, also filling *survey (NULL: none) from the bytes
 * it read. */
VXR_API vxr_result vxr_scene_load_survey(const char *path, vxr_scene **dest,
                                         const vxr_format **format, vxr_file_survey *survey,
                                         vxr_error *err);
/* How to read a file: the animation frame of a .vox (0: the first; other
 * formats have one). Zero-initialise for the defaults. */
typedef struct vxr_load_options {
    uint32_t frame;
} vxr_load_options;
/* vxr_scene_src_load with options (NULL: the defaults). */
VXR_API vxr_result vxr_scene_src_load_options(const char *path, const vxr_load_options *options,
                                              vxr_scene_src *dest, vxr_error *err);
/* vxr_scene_load_survey with options (NULL: the defaults). */
VXR_API vxr_result vxr_scene_load_options(const char *path, const vxr_load_options *options,
                                          vxr_scene **dest, const vxr_format **format,
                                          vxr_file_survey *survey, vxr_error *err);

#ifdef __cplusplus
}
#endif
#endif
