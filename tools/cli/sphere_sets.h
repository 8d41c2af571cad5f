/* Random sphere sets for `vxr bench spheres` and the sphere-tree tests:
 * clustered centres (negative coordinates included), radii log-uniform over
 * four orders of magnitude, a few spheres far larger than the rest, a few
 * centres far outside the others, and query points both near objects and
 * in empty space. Deterministic for a given seed. */
#ifndef VXR_SPHERE_SETS_H
#define VXR_SPHERE_SETS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sphere_set_params {
    double extent; /* cluster centres uniform in [-extent, extent]^3 */
    double spread; /* cluster standard deviation */
    size_t per_cluster;
    double r_min, r_max; /* ordinary radii, log-uniform */
    double big_r_min, big_r_max;
    size_t big;        /* that many far larger spheres */
    double far_extent; /* 1 in 100 centres uniform in [-far, far]^3 */
} sphere_set_params;

/* The benchmark's world: 10^4 spheres per cluster of spread 2*10^4 over
 * [-10^6, 10^6]^3, radii 0.1 .. 1000, 3 + n / 10^5 spheres of radius
 * 10^5 .. 10^6, far centres within 10^8. */
sphere_set_params sphere_set_default(size_t n);

/* Fills xyzr[4 * n] with spheres. */
void sphere_set_spheres(const sphere_set_params *p, uint64_t seed, size_t n, float *xyzr);
/* Fills xyz[3 * count] with query points: even ones near a random sphere of
 * xyzr[4 * n] (within 1.2 radii of its centre on each axis), odd ones
 * uniform over the world. */
void sphere_set_points(const sphere_set_params *p, uint64_t seed, const float *xyzr, size_t n,
                       size_t count, float *xyz);
/* A uniform double in [0, 1) from a splitmix64 state. */
double sphere_set_uniform(uint64_t *state);

#endif
