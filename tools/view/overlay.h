/* The viewer's pick overlay as geometry: pure functions from a pick, the
 * picked instance's transform and the camera to vertices and the matrix
 * that projects them like the camera's rays. No window, no GPU:
 * tests/unit_view.c holds them to their contracts. */
#ifndef VXR_VIEW_OVERLAY_H
#define VXR_VIEW_OVERLAY_H

#include <stdbool.h>
#include "vxr/camera.h"

/* One overlay vertex: eye-relative world position, RGBA8 (red low). */
typedef struct view_vertex {
    float pos[3];
    uint32_t color;
} view_vertex;

/* Enough for the most view_overlay writes (36 triangle vertices, 26 line
 * vertices, 4 of the crosshair), with room. */
#define VIEW_MAX_VERTICES 128

/* The colours of the overlay. */
#define VIEW_FACE_TINT   0x5affc83cu /* (60, 200, 255, 90) */
#define VIEW_EDGE_BAND   0xc80096ffu /* (255, 150, 0, 200) */
#define VIEW_CORNER_MARK 0xe62828ffu /* (255, 40, 40, 230) */
#define VIEW_OUTLINE     0xff00e6ffu /* (255, 230, 0, 255) */
#define VIEW_EDGE_LINE   0xff0096ffu /* (255, 150, 0, 255) */
#define VIEW_CROSSHAIR   0xffffffffu

/* Writes into v (VIEW_MAX_VERTICES) the triangles of the entry face's tint,
 * the nearest edge's band (an eighth of the face wide) and the nearest
 * corner's square (a quarter of the face), then the lines of the cube's
 * outline and the nearest edge, then (crosshair) a crosshair of
 * VIEW_CROSSHAIR_PIXELS at the image centre: *tri triangle vertices
 * first, *line line vertices after. Positions are relative to cam's eye;
 * t is the transform of the pick's instance (ignored without a hit). */
void view_overlay(const vxr_pick *pick, const vxr_transform *t, const vxr_camera *cam,
                  bool crosshair, view_vertex *v, uint32_t *tri, uint32_t *line);
#define VIEW_CROSSHAIR_PIXELS 8.0f

/* Clip space of the camera (after vxr_camera_setup) for eye-relative
 * points: x, y as the pixel rays map them (row 0 at the top), w the depth
 * along forward, and a constant z = VIEW_NEAR so that depth = near / w:
 * only points behind the near plane are clipped, and there is no far
 * plane. Column-major. */
void view_proj(const vxr_camera *cam, float dest[16]);
#define VIEW_NEAR 0.01f

#endif
