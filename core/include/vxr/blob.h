/* The GPU blob of a scene: one read-only linear layout with offsets instead
 * of pointers (vxr_layout.h has the diagram): header, model table, instance
 * records, palette, nodes, brick attribute bases, attributes. */
#ifndef VXR_BLOB_H
#define VXR_BLOB_H

#include "vxr/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Size in bytes of the scene's blob. */
VXR_API size_t vxr_scene_blob_size(const vxr_scene *scene);
/* Writes the blob: dest must hold vxr_scene_blob_size bytes. */
VXR_API void vxr_scene_write_blob(const vxr_scene *scene, void *dest);
/* The model table entry of an octree whose nodes, brick attribute bases and
 * attributes start at node_base, battr_base (entries) and attr_base (bytes)
 * of the GPU's sections; brick_attr_base is set so that brick node n
 * (model-relative) finds its base at brick_attr_base + n (uint wrap). */
VXR_API void vxr_gpu_model_record(const vxr_octree *tree, uint32_t node_base, uint32_t battr_base,
                                  uint32_t attr_base, vxr_gpu_model *dest);

#ifdef __cplusplus
}
#endif
#endif
