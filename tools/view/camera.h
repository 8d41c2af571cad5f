/* The viewer's camera control: pure functions on a vxr_camera's eye and
 * target (and, where they move along the view, the frame the last
 * vxr_camera_setup derived). No window, no GPU: tests/unit_view.c holds
 * them to their contracts. */
#ifndef VXR_VIEW_CAMERA_H
#define VXR_VIEW_CAMERA_H

#include <stdbool.h>
#include "vxr/camera.h"

/* Orbit: the eye turns about the target by dyaw (about +Z) and dpitch
 * (radians; pitch stays within VIEW_MAX_PITCH of the horizon, so up stays
 * +Z); the distance stays. */
void view_orbit(vxr_camera *cam, float dyaw, float dpitch);
/* Look: the target turns about the eye likewise. */
void view_look(vxr_camera *cam, float dyaw, float dpitch);
/* Moves eye and target by `by`. */
void view_move(vxr_camera *cam, const float by[3]);
/* Pan by dx, dy pixels: what lies at the target's depth follows the mouse
 * (right and up from the last setup). */
void view_pan(vxr_camera *cam, double dx, double dy);
/* Zoom by steps (wheel clicks; positive closer): the distance to the target
 * scales by VIEW_ZOOM_STEP^steps, down to VIEW_MIN_DISTANCE. */
void view_zoom(vxr_camera *cam, double steps);
/* Fly: moves eye and target by dist along forward * fwd + right * side
 * (from the last setup) plus +Z * rise. */
void view_fly(vxr_camera *cam, float fwd, float side, float rise, float dist);
/* Frames a pick made along ray: the entry point becomes the target and the
 * eye moves along the ray to VIEW_FRAME_DIAGONALS cube diagonals from it
 * (at least VIEW_FRAME_MIN, at most where it was): along that ray the view
 * was clear, so the cube stays in sight. False (camera unchanged) when
 * there is nothing to frame. */
bool view_frame_pick(vxr_camera *cam, const vxr_pick *pick, const vxr_ray *ray);

#define VIEW_MAX_PITCH       1.5620697f /* 89.5 degrees */
#define VIEW_ZOOM_STEP       0.85f
#define VIEW_MIN_DISTANCE    0.05f
#define VIEW_FRAME_DIAGONALS 3.0f
#define VIEW_FRAME_MIN       2.0f

#endif
