/* The light's sample numbers and directions (shaders/vxr_light.h, compiled
 * as core compiles it): the polynomial circle against libm in double, the
 * stratification of a tile of pixels counted cell by cell, each pixel's
 * numbers uniform over many samples, the disk and cosine directions
 * against their distributions' moments, and the lit rays' one direction
 * function against the two it stands for. */
#include <math.h>
#include <string.h>
#include "vxr_light.h"
#include "vxr_test.h"

/* cos and sin of 2 pi u within 2e-7 for every u of a dense sweep and at
 * the quadrant and octant seams. */
static void test_circle(void) {
    double worst = 0.0;
    for (uint32_t i = 0; i <= (1u << 20); i++) {
        /* 24-bit numbers as vxr_sample_uv makes them, seams included */
        float u = (float)((i * 16u) & 0xffffffu) * (1.0f / 16777216.0f);
        if (i == (1u << 20)) u = 16777215.0f / 16777216.0f;
        vxr_xy c = vxr_circle(u);
        double a = 2.0 * 3.14159265358979323846 * (double)u;
        double e = fmax(fabs(c.x - cos(a)), fabs(c.y - sin(a)));
        if (e > worst) worst = e;
    }
    for (int k = 0; k < 8; k++) {
        vxr_xy c = vxr_circle((float)k / 8.0f);
        double a = 2.0 * 3.14159265358979323846 * k / 8.0;
        CHECK(fabs(c.x - cos(a)) < 2e-7 && fabs(c.y - sin(a)) < 2e-7);
    }
    CHECK(worst < 2e-7);
    if (!(worst < 2e-7)) fprintf(stderr, "circle: worst error %.3g\n", worst);
}

/* The cell (0..15) of a sample's numbers in the 4 x 4 grid. */
static int cell_of(vxr_xy u) {
    return (int)(u.y * 4.0f) * 4 + (int)(u.x * 4.0f);
}

/* Every 4 x 4 tile takes all 16 cells and every aligned 2 x 2 block of it
 * one cell in each quadrant, for every sample and role; the numbers are in
 * [0, 1) with 24 bits. */
static void test_strata(void) {
    int bad_tiles = 0, bad_blocks = 0, bad_numbers = 0;
    for (uint32_t ty = 0; ty < 12; ty++)
        for (uint32_t tx = 0; tx < 12; tx++)
            for (uint32_t k = 0; k < 40; k++)
                for (uint32_t role = 0; role < 3; role++) {
                    int seen = 0, quads[4] = {0, 0, 0, 0};
                    for (uint32_t j = 0; j < 16; j++) {
                        uint32_t x = 4 * tx + (j & 3), y = 4 * ty + (j >> 2);
                        vxr_xy u = vxr_sample_uv(x, y, k, role);
                        float sx = u.x * 16777216.0f, sy = u.y * 16777216.0f;
                        if (!(u.x >= 0.0f && u.x < 1.0f && u.y >= 0.0f && u.y < 1.0f) ||
                            sx != floorf(sx) || sy != floorf(sy))
                            bad_numbers++;
                        int c = cell_of(u);
                        seen |= 1 << c;
                        int block = (int)((y >> 1) & 1) * 2 + (int)((x >> 1) & 1);
                        int quad = (c >> 3) * 2 + ((c & 3) >> 1);
                        quads[block] |= 1 << quad;
                    }
                    bad_tiles += seen != 0xffff;
                    for (int b = 0; b < 4; b++) bad_blocks += quads[b] != 15;
                }
    CHECK_EQ_INT(bad_tiles, 0);
    CHECK_EQ_INT(bad_blocks, 0);
    CHECK_EQ_INT(bad_numbers, 0);
}

/* One pixel's numbers over 16,384 samples: each cell about 1/16 of them
 * (chi-square with 15 degrees of freedom under 50; its 0.001 point is
 * 37.7) and the mean about 1/2 (its standard error 0.0023). Different
 * pixels of a tile, and different roles, must not repeat each other. */
static void test_pixel_uniform(void) {
    const uint32_t n = 16384;
    const uint32_t pixels[4][2] = {{0, 0}, {5, 2}, {1023, 767}, {77, 301}};
    for (int p = 0; p < 4; p++) {
        double count[16] = {0}, mean_x = 0.0, mean_y = 0.0;
        int same = 0;
        for (uint32_t k = 0; k < n; k++) {
            vxr_xy u = vxr_sample_uv(pixels[p][0], pixels[p][1], k, 1);
            vxr_xy v = vxr_sample_uv(pixels[p][0], pixels[p][1], k, 0);
            count[cell_of(u)] += 1.0;
            mean_x += u.x;
            mean_y += u.y;
            same += u.x == v.x && u.y == v.y;
        }
        double chi = 0.0, e = n / 16.0;
        for (int c = 0; c < 16; c++) chi += (count[c] - e) * (count[c] - e) / e;
        CHECK(chi < 50.0);
        CHECK(fabs(mean_x / n - 0.5) < 0.012 && fabs(mean_y / n - 0.5) < 0.012);
        CHECK(same == 0);
    }
}

/* Disk points: inside the unit disk, E[r^2] = 1/2, E[x] = E[y] = 0;
 * cosine directions: unit length, above the surface, E[cos] = 2/3 and
 * E[cos^2] = 1/2 (density cos / pi); over a 256 x 256 image of pixels. */
static void test_directions(void) {
    const float normals[3][3] = {{0, 0, 1}, {0, -1, 0}, {0.48f, 0.6f, 0.64f}};
    for (int m = 0; m < 3; m++) {
        double r2 = 0.0, mx = 0.0, my = 0.0, c1 = 0.0, c2 = 0.0;
        int outside = 0, bad = 0;
        uint32_t n = 0;
        for (uint32_t y = 0; y < 256; y++)
            for (uint32_t x = 0; x < 256; x++, n++) {
                vxr_xy u = vxr_sample_uv(x, y, (uint32_t)m, 1);
                vxr_xy q = vxr_disk(u);
                double rr = (double)q.x * q.x + (double)q.y * q.y;
                outside += rr > 1.0 + 1e-6;
                r2 += rr;
                mx += q.x;
                my += q.y;
                float d[3];
                vxr_cosine_dir(normals[m], u, d);
                double len = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
                double c =
                    d[0] * normals[m][0] + d[1] * normals[m][1] + (double)d[2] * normals[m][2];
                bad += fabs(len - 1.0) > 1e-6 || c < 0.0;
                c1 += c;
                c2 += c * c;
            }
        CHECK_EQ_INT(outside, 0);
        CHECK_EQ_INT(bad, 0);
        CHECK(fabs(r2 / n - 0.5) < 0.005);
        CHECK(fabs(mx / n) < 0.005 && fabs(my / n) < 0.005);
        CHECK(fabs(c1 / n - 2.0 / 3.0) < 0.005);
        CHECK(fabs(c2 / n - 0.5) < 0.005);
    }
}

/* vxr_lit_dir gives the floats of vxr_sun_dir (role 0) and of
 * vxr_cosine_dir (role 1), bit for bit, with a point sun and a wide one. */
static void test_lit_dir(void) {
    const float normals[4][3] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {0.48f, 0.6f, 0.64f}};
    const float sun[3] = {0.36f, -0.48f, 0.8f}, tan_half[2] = {0.0f, 0.0262f};
    float st[3], sb[3];
    vxr_basis(sun, st, sb);
    int differ = 0, checked = 0;
    for (int m = 0; m < 4; m++)
        for (int w = 0; w < 2; w++)
            for (uint32_t y = 0; y < 64; y++)
                for (uint32_t x = 0; x < 64; x++, checked += 2) {
                    vxr_xy u0 = vxr_sample_uv(x, y, 3, 0), u1 = vxr_sample_uv(x, y, 3, 1);
                    float a[3], b[3];
                    vxr_lit_dir(0, normals[m], sun, st, sb, tan_half[w], u0, a);
                    vxr_sun_dir(sun, st, sb, tan_half[w], u0, b);
                    differ += memcmp(a, b, sizeof a) != 0;
                    vxr_lit_dir(1, normals[m], sun, st, sb, tan_half[w], u1, a);
                    vxr_cosine_dir(normals[m], u1, b);
                    differ += memcmp(a, b, sizeof a) != 0;
                }
    CHECK(checked == 4 * 2 * 64 * 64 * 2);
    CHECK_EQ_INT(differ, 0);
}

/* The shaders' encoding (vxr_scene.glsl's srgb_encode3: a bucket's answer
 * plus one threshold) against the search (vxr_srgb_encode) at every float
 * where either can change: each threshold, each bucket's ends, and the
 * floats next to them, with 0, 1, and values outside [0, 1]. */
static uint32_t bucket_encode(const uint32_t *tables, float v) {
    float w = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f, mid;
    uint32_t bits;
    memcpy(&bits, &w, sizeof bits);
    int b = (int)(bits >> 16) - (int)VXR_SRGB_BUCKET_LO;
    uint32_t pos = tables[VXR_SRGB_BUCKETS - VXR_SRGB_AT + (uint32_t)(b > 0 ? b : 0)];
    memcpy(&mid, &tables[256 + pos], sizeof mid);
    return pos + (mid <= w ? 1u : 0u);
}

static void test_srgb_buckets(void) {
    static uint32_t tables[VXR_PALETTE_WORDS - VXR_SRGB_AT];
    vxr_srgb_tables(tables);
    float at[4 * 255 + 6 * VXR_SRGB_BUCKET_COUNT + 8];
    int n = 0;
    for (int k = 0; k < 255; k++) {
        at[n++] = VXR_SRGB_MID[k];
        at[n++] = nextafterf(VXR_SRGB_MID[k], 0.0f);
        at[n++] = nextafterf(VXR_SRGB_MID[k], 2.0f);
        at[n++] = VXR_SRGB_LINEAR[k];
    }
    for (uint32_t i = 0; i < VXR_SRGB_BUCKET_COUNT; i++) {
        uint32_t lo = (VXR_SRGB_BUCKET_LO + i) << 16, hi = lo | 0xffffu;
        float f[2];
        memcpy(&f[0], &lo, sizeof lo);
        memcpy(&f[1], &hi, sizeof hi);
        for (int e = 0; e < 2; e++) {
            at[n++] = f[e];
            at[n++] = nextafterf(f[e], 0.0f);
            at[n++] = nextafterf(f[e], 2.0f);
        }
    }
    const float edge[8] = {0.0f, -0.0f, 1.0f, -1.0f, 1.5f, 1e-30f, INFINITY, NAN};
    for (int e = 0; e < 8; e++) at[n++] = edge[e];
    CHECK(n == (int)(sizeof at / sizeof at[0]));
    int differ = 0;
    for (int i = 0; i < n; i++) differ += bucket_encode(tables, at[i]) != vxr_srgb_encode(at[i]);
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT((int)bucket_encode(tables, 1.0f), 255);
    CHECK_EQ_INT((int)bucket_encode(tables, VXR_SRGB_LINEAR[128]), 128);
}

VXR_TEST_MAIN(TEST(test_circle), TEST(test_strata), TEST(test_pixel_uniform), TEST(test_directions),
              TEST(test_lit_dir), TEST(test_srgb_buckets))
