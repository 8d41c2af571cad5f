/* Light (DESIGN.md §5 "Light"): the settings of a lit frame, the data both
 * sides read, and the CPU reference of a lit pixel.
 *
 * Models: `flat` (the palette colour times one fixed directional term, the
 * image of earlier versions byte for byte), `lit` (a sun with shadow rays,
 * a sky with ambient-occlusion rays, emission) and `path` (progressive path
 * tracing). Palette colours are sRGB-encoded: lit and path decode them,
 * light in linear and encode the result again (vxr_srgb.h's tables), so a
 * target receives sRGB-encoded colour whatever the model.
 *
 * Exactness: the GPU (shaders/trace.comp) and vxr_light_pixel compute every
 * float of a lit pixel with the same operations in the same order from the
 * same vxr_gpu_frame (shaders/vxr_light.h), so on lavapipe they agree bit
 * for bit. */
#ifndef VXR_LIGHT_API_H
#define VXR_LIGHT_API_H

#include "vxr/camera.h"
#include "vxr/pick.h"
#include "vxr/vxr_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A frame's light. vxr_light_defaults gives the defaults of `vxr render`.
 *   model        VXR_LIGHT_FLAT, VXR_LIGHT_LIT or VXR_LIGHT_PATH
 *   samples      samples per pixel the frame adds (>= 1)
 *   sun_azimuth, sun_elevation  degrees: the direction towards the sun,
 *                azimuth from +X towards +Y, elevation above the XY plane
 *   sun_diameter degrees, 0 (hard shadows) to 90
 *   sun_color    linear radiance of the sun (colour times intensity)
 *   zenith, horizon  linear sky radiance straight up and at (and below) the
 *                horizon, linear in between in the direction's z; equal
 *                for a constant sky
 *   ao_radius    occlusion rays' reach in world units; 0: no occlusion (the
 *                sky lights every face unshadowed) */
typedef struct vxr_light {
    uint32_t model;
    uint32_t samples;
    float sun_azimuth, sun_elevation, sun_diameter;
    float sun_color[3];
    float zenith[3], horizon[3];
    float ao_radius;
} vxr_light;

VXR_API void vxr_light_defaults(vxr_light *dest);

/* The frame data of a light (what the GPU reads), with the previous
 * frame's camera for motion vectors (NULL: none, motion 0). Angles become
 * vectors here, once, so both sides read the same floats.
 * VXR_ERROR_ARGUMENT, with the reason, for a bad model, 0 samples, a sun
 * diameter outside [0, 90], a negative radius or any value
 * that is not finite or is negative (colours). */
VXR_API vxr_result vxr_light_frame(const vxr_light *light, const vxr_camera *previous,
                                   vxr_gpu_frame *dest, vxr_error *err);

/* One pixel of a lit frame, as the GPU writes it. */
typedef struct vxr_lit_pixel {
    uint32_t rgba;                /* sRGB-encoded colour, red in the low byte, alpha 255 */
    float color[3];               /* linear colour */
    float albedo[3];              /* linear albedo of the hit voxel, 0 on a miss */
    float emit[3];                /* its emission (linear), 0 on a miss */
    float normal[3];              /* world normal, 0 on a miss or an origin inside */
    uint32_t instance;            /* VXR_PICK_MISS on a miss */
    float sun, ao;                /* averaged over the samples; -1 on a miss */
    float motion[2];              /* pixels to the previous frame's position */
    float sums[VXR_ACCUM_FLOATS]; /* the sums the frame keeps */
} vxr_lit_pixel;

/* The CPU reference of pixel (i, j) of camera cam under light data `data`
 * (vxr_light_frame) after `samples` samples (0 .. samples - 1, whatever
 * frames they came in): colour, sums and outputs as the GPU writes them.
 * The picker must be up to date with the scene. VXR_ERROR_ARGUMENT for a
 * pixel outside the camera or 0 samples. */
VXR_API vxr_result vxr_light_pixel(const vxr_picker *picker, const vxr_camera *cam,
                                   const vxr_gpu_frame *data, uint32_t i, uint32_t j,
                                   uint32_t samples, vxr_lit_pixel *dest);

#ifdef __cplusplus
}
#endif
#endif
