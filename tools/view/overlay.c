/* The viewer's pick overlay as geometry (overlay.h). Corners are placed in
 * double precision: the outline must sit on the rendered cube's edges even
 * far from the origin. */
#include "overlay.h"
#include <string.h>

/* The edge band's width and the corner square's side, as fractions of the
 * face's side. */
#define BAND   0.125
#define SQUARE 0.25

static uint32_t put(view_vertex *v, uint32_t n, const double p[3], const float eye[3],
                    uint32_t color) {
    for (int k = 0; k < 3; k++) v[n].pos[k] = (float)(p[k] - (double)eye[k]);
    v[n].color = color;
    return n + 1;
}

/* p + s * (q - p) */
static void toward(const double p[3], const double q[3], double s, double dest[3]) {
    for (int k = 0; k < 3; k++) dest[k] = p[k] + s * (q[k] - p[k]);
}

/* The two corners of face f next to corner c (ids differ in one bit). */
static void face_neighbours(int f, int c, int dest[2]) {
    int n = 0;
    for (int i = 0; i < 4; i++) {
        int o = vxr_face_corners[f][i], x = o ^ c;
        if (x && !(x & (x - 1)) && n < 2) dest[n++] = o;
    }
}

void view_overlay(const vxr_pick *p, const vxr_transform *t, const vxr_camera *cam, bool crosshair,
                  view_vertex *v, uint32_t *tri, uint32_t *line) {
    const float *eye = cam->eye;
    uint32_t n = 0;
    double w[8][3];
    if (p->hit) {
        for (int c = 0; c < 8; c++) {
            double l[3] = {(double)p->voxel[0] + (double)p->size * (c >> 2 & 1),
                           (double)p->voxel[1] + (double)p->size * (c >> 1 & 1),
                           (double)p->voxel[2] + (double)p->size * (c & 1)};
            for (int i = 0; i < 3; i++)
                w[c][i] = (double)t->scale * ((double)t->rotation[3 * i] * l[0] +
                                              (double)t->rotation[3 * i + 1] * l[1] +
                                              (double)t->rotation[3 * i + 2] * l[2]) +
                          (double)t->translation[i];
        }
    }
    if (p->hit && p->face >= 0) {
        const uint8_t *fc = vxr_face_corners[p->face];
        const int quad[6] = {fc[0], fc[1], fc[3], fc[0], fc[3], fc[2]};
        for (int i = 0; i < 6; i++) n = put(v, n, w[quad[i]], eye, VIEW_FACE_TINT);
        if (p->edge >= 0) { /* a band along the edge, an eighth of the face wide */
            int e0 = vxr_edge_corners[p->edge][0], e1 = vxr_edge_corners[p->edge][1], n0[2], n1[2];
            face_neighbours(p->face, e0, n0);
            face_neighbours(p->face, e1, n1);
            int o0 = n0[0] == e1 ? n0[1] : n0[0], o1 = n1[0] == e0 ? n1[1] : n1[0];
            double b0[3], b1[3];
            toward(w[e0], w[o0], BAND, b0);
            toward(w[e1], w[o1], BAND, b1);
            const double *band[6] = {w[e0], w[e1], b1, w[e0], b1, b0};
            for (int i = 0; i < 6; i++) n = put(v, n, band[i], eye, VIEW_EDGE_BAND);
        }
        if (p->corner >= 0) { /* a square at the corner, a quarter of the face */
            int c = p->corner, nb[2];
            face_neighbours(p->face, c, nb);
            double s0[3], s1[3], s2[3];
            toward(w[c], w[nb[0]], SQUARE, s0);
            toward(w[c], w[nb[1]], SQUARE, s1);
            for (int k = 0; k < 3; k++) s2[k] = s0[k] + s1[k] - w[c][k];
            const double *sq[6] = {w[c], s0, s2, w[c], s2, s1};
            for (int i = 0; i < 6; i++) n = put(v, n, sq[i], eye, VIEW_CORNER_MARK);
        }
    }
    *tri = n;
    if (p->hit) {
        for (int e = 0; e < 12; e++)
            for (int i = 0; i < 2; i++) n = put(v, n, w[vxr_edge_corners[e][i]], eye, VIEW_OUTLINE);
        if (p->face >= 0 && p->edge >= 0)
            for (int i = 0; i < 2; i++)
                n = put(v, n, w[vxr_edge_corners[p->edge][i]], eye, VIEW_EDGE_LINE);
    }
    if (crosshair) { /* at depth 1 */
        float s = VIEW_CROSSHAIR_PIXELS * 2.0f * cam->tan_half_fov / (float)cam->height;
        for (int axis = 0; axis < 2; axis++)
            for (int sign = -1; sign <= 1; sign += 2) {
                const float *dir = axis ? cam->up : cam->right;
                double q[3];
                for (int k = 0; k < 3; k++)
                    q[k] = (double)eye[k] + (double)cam->forward[k] +
                           (double)(s * (float)sign) * (double)dir[k];
                n = put(v, n, q, eye, VIEW_CROSSHAIR);
            }
    }
    *line = n - *tri;
}

void view_proj(const vxr_camera *c, float dest[16]) {
    memset(dest, 0, 16 * sizeof *dest);
    for (int j = 0; j < 3; j++) {
        dest[4 * j + 0] = c->right[j] / (c->tan_half_fov * c->aspect);
        dest[4 * j + 1] = -c->up[j] / c->tan_half_fov;
        dest[4 * j + 3] = c->forward[j];
    }
    dest[14] = VIEW_NEAR;
}
