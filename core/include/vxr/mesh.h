/* Meshes of a scene's voxels for raster engines: the faces between solid
 * and empty cells as quads (greedy-merged or one per face), and writers of
 * glTF 2.0 (.glb, .gltf), Wavefront .obj and binary .ply. */
#ifndef VXR_MESH_H
#define VXR_MESH_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxr_mesh_mode {
    /* coplanar faces of one colour merged into rectangles, row runs first,
     * then runs of equal extent across rows (greedy meshing) */
    VXR_MESH_GREEDY,
    /* one quad per exposed voxel face */
    VXR_MESH_CUBES,
} vxr_mesh_mode;

/* A model's surface: quads of 4 vertices each (2 triangles), wound
 * counter-clockwise seen from outside, in model cells (a voxel (x, y, z)
 * fills [x, x+1) x [y, y+1) x [z, z+1)). Every face between a solid cell
 * and an empty one is covered exactly once; no quad covers anything else. */
typedef struct vxr_mesh {
    float *positions;     /* 3 per vertex */
    float *normals;       /* 3 per vertex, unit axis vectors */
    uint32_t *colors;     /* RGBA8 per vertex (vxr_rgba), alpha 255 */
    uint32_t *indices;    /* 6 per quad */
    size_t quad_count;    /* vertices: 4 * quad_count */
    float min[3], max[3]; /* bounds of the positions (0 when empty) */
} vxr_mesh;

/* Builds the mesh of scene->models[model]. On failure (VXR_ERROR_MEMORY,
 * VXR_ERROR_ARGUMENT for a bad model) *out is zeroed and err says why.
 * Free with vxr_mesh_free. */
VXR_API vxr_result vxr_mesh_build(const vxr_scene *scene, uint32_t model, vxr_mesh_mode mode,
                                  vxr_mesh *out, vxr_error *err);
/* Frees a mesh's arrays and zeroes it; NULL is a no-op. */
VXR_API void vxr_mesh_free(vxr_mesh *mesh);

typedef enum vxr_mesh_format {
    VXR_MESH_GLB,  /* binary glTF: one mesh per model, a node per instance */
    VXR_MESH_GLTF, /* the same as JSON, the buffer as a base64 data URI */
    VXR_MESH_OBJ,  /* world positions, an object per instance, colours as
                    * "v x y z r g b" */
    VXR_MESH_PLY,  /* binary little-endian, world positions, colours */
} vxr_mesh_format;

/* The mesh file of a scene's visible instances, in world placement (glTF:
 * instance transforms as node matrices; .obj and .ply: applied), into a
 * new malloc'd buffer (*data, *size). Fails with VXR_ERROR_LIMIT where a
 * count passes what the format holds (2^32 indices), VXR_ERROR_MEMORY. */
VXR_API vxr_result vxr_save_mesh(const vxr_scene *scene, vxr_mesh_format format, vxr_mesh_mode mode,
                                 uint8_t **data, size_t *size, vxr_error *err);

#ifdef __cplusplus
}
#endif

#endif
