/* Targets: where vxr_renderer_render_frame writes (vxr/renderer.h
 * includes this; the context comes from there). */
#ifndef VXR_TARGET_H
#define VXR_TARGET_H

#include <stdbool.h>
#include <vulkan/vulkan.h>
#include "vxr/core.h"
#include "vxr/vxr_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxr_context vxr_context; /* vxr/renderer.h */

/* Target: where frames go. width x height pixels (both
 * 1..VXR_MAX_TARGET_SIZE), either vxr's own image or a rectangle of the
 * host's. A zero-initialised desc besides the size is vxr's own RGBA8 image
 * and nothing else. Each field's default, and what setting it does:
 *   picks     false: no records. true: also write a vxr_gpu_pick per pixel
 *             (row 0 at the top), host-visible (vxr_target_picks)
 *   readback  false: none. true: also copy the colours (and the depth, with
 *             `depth`) into host-visible memory (vxr_target_colors,
 *             vxr_target_depth); own image only
 *   depth     false: no depth. true: keep a float per pixel, the frame's
 *             depth in the camera's convention: what vxr_frame's depth_in
 *             and depth_out copy from and to the host's images
 *   image, view, format  VK_NULL_HANDLE: vxr's own image (below). Else the
 *             host's 2D image, a view of it (one mip level and layer) and
 *             their format: VK_FORMAT_R8G8B8A8_UNORM, B8G8R8A8_UNORM or
 *             R16G16B16A16_SFLOAT (any format with storage support), STORAGE
 *             usage; the device needs shaderStorageImageWriteWithoutFormat.
 *             vxr writes only the rectangle [x, x + width) x [y, y + height)
 *             and never destroys the image; it must outlive the target.
 *   x, y      0: the rectangle's corner in the host image.
 * vxr's own image: VK_FORMAT_R8G8B8A8_UNORM, usage STORAGE | SAMPLED |
 * TRANSFER_SRC, in VK_IMAGE_LAYOUT_GENERAL after a render with its shader
 * writes visible to transfers and to shader reads (sampling) at the compute
 * and fragment stages.
 * Colour space: vxr writes sRGB-encoded colour (the palette's values, shaded),
 * as it is, into any format: right for a UNORM image shown or sampled as
 * it is (or a swapchain that is not _SRGB); a host with a float (linear)
 * pipeline decodes it (the sRGB transfer function) when it reads. */
#define VXR_MAX_TARGET_SIZE 16384u /* pixels per side */

typedef struct vxr_target_desc {
    uint32_t width, height;
    bool picks;
    bool readback;
    bool depth;
    VkImage image;
    VkImageView view;
    VkFormat format;
    uint32_t x, y;
    /* light: the sums of lit and path frames (VXR_ACCUM_FLOATS floats a
     * pixel), which light frames need. aovs (implies light): the per-pixel
     * outputs of light frames (VXR_AOV_FLOATS floats a pixel, planes as
     * vxr_layout.h's VXR_AOV_*), read with vxr_target_aovs after readback
     * or on the GPU from vxr_target_aov_buffer. */
    bool light;
    bool aovs;
} vxr_target_desc;

typedef struct vxr_target vxr_target;

/* VXR_ERROR_ARGUMENT with the reason for a bad size, a rectangle outside
 * 1..VXR_MAX_TARGET_SIZE, readback of a host image, or a host image without
 * its view or format. */
VXR_API vxr_result vxr_target_create(vxr_context *ctx, const vxr_target_desc *desc,
                                     vxr_target **dest, vxr_error *err);
/* The caller makes sure the GPU no longer uses it. NULL is a no-op. */
VXR_API void vxr_target_destroy(vxr_target *t);
/* The colour image: vxr's own (see vxr_target_desc) or the host's. */
VXR_API VkImage vxr_target_image(const vxr_target *t);
/* vxr's own image's view (VK_FORMAT_R8G8B8A8_UNORM, for sampling in
 * GENERAL), or the host's view. */
VXR_API VkImageView vxr_target_view(const vxr_target *t);
/* Records a copy of the target's last frame (recorded before it into cmd
 * or into a command buffer submitted earlier; the target must have been
 * rendered at least once, into vxr's own image) into a host image dst of
 * the target's size: dst goes from dst_layout (UNDEFINED drops its
 * contents) to TRANSFER_DST_OPTIMAL, waiting for earlier work at the
 * transfer stage (where a host waits on a swapchain's acquire semaphore),
 * then a blit (nearest, unscaled, converting the format) writes it; dst is
 * left in TRANSFER_DST_OPTIMAL with the writes done at the transfer stage.
 * dst needs TRANSFER_DST usage and a format with BLIT_DST support. */
VXR_API void vxr_target_blit(vxr_target *t, VkImage dst, VkImageLayout dst_layout,
                             VkCommandBuffer cmd);
/* After the command buffer of the last render completed: width * height
 * RGBA8 pixels (red in the low byte), rows from the top; NULL without
 * readback. */
VXR_API const uint32_t *vxr_target_colors(const vxr_target *t);
/* Likewise the pick records; NULL without picks. */
VXR_API const vxr_gpu_pick *vxr_target_picks(const vxr_target *t);
/* Likewise the depth (width * height floats, rows from the top); NULL
 * without depth and readback. */
VXR_API const float *vxr_target_depth(const vxr_target *t);

/* After the command buffer of the last light frame completed, with aovs
 * and readback: the outputs, VXR_AOV_FLOATS * width * height floats,
 * plane VXR_AOV_X starting at float VXR_AOV_X * width * height, pixels row
 * by row from the top (instance: uint32 bits). NULL otherwise. */
VXR_API const float *vxr_target_aovs(const vxr_target *t);
/* The outputs' buffer (STORAGE and TRANSFER_SRC usage) for a host's own
 * passes, valid while the target lives; VK_NULL_HANDLE without aovs. A
 * light frame's writes are visible to later work as the colour's are. */
VXR_API VkBuffer vxr_target_aov_buffer(const vxr_target *t);
/* The samples per pixel the target's sums hold after the light frames
 * recorded so far (0 before any). */
VXR_API uint32_t vxr_target_samples(const vxr_target *t);

#ifdef __cplusplus
}
#endif
#endif
