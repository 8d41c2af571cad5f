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
size_t vxr_scene_blob_size(const vxr_scene *scene);
/* Writes the blob: dest must hold vxr_scene_blob_size bytes. */
void vxr_scene_write_blob(const vxr_scene *scene, void *dest);

#ifdef __cplusplus
}
#endif
#endif
