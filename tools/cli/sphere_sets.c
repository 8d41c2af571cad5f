/* Random sphere sets (see sphere_sets.h). */
#include "sphere_sets.h"
#include <math.h>

double sphere_set_uniform(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

static double gaussian(uint64_t *s) {
    double u = sphere_set_uniform(s), v = sphere_set_uniform(s);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

static double log_uniform(uint64_t *s, double lo, double hi) {
    return lo * pow(hi / lo, sphere_set_uniform(s));
}

sphere_set_params sphere_set_default(size_t n) {
    sphere_set_params p = {.extent = 1e6,
                           .spread = 2e4,
                           .per_cluster = 10000,
                           .r_min = 0.1,
                           .r_max = 1000,
                           .big_r_min = 1e5,
                           .big_r_max = 1e6,
                           .big = 3 + n / 100000,
                           .far_extent = 1e8};
    return p;
}

void sphere_set_spheres(const sphere_set_params *p, uint64_t seed, size_t n, float *xyzr) {
    uint64_t s = seed;
    size_t clusters = n / (p->per_cluster ? p->per_cluster : 1) + 1;
    double centre[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        float *o = xyzr + 4 * i;
        double r = log_uniform(&s, p->r_min, p->r_max);
        if (i < p->big) r = log_uniform(&s, p->big_r_min, p->big_r_max);
        if (i % 100 == 99) {
            for (int k = 0; k < 3; k++)
                o[k] = (float)((2 * sphere_set_uniform(&s) - 1) * p->far_extent);
        } else {
            /* Spheres of one cluster are spread over the set, not contiguous. */
            uint64_t pick = (uint64_t)(sphere_set_uniform(&s) * (double)clusters);
            uint64_t cs = seed ^ (0x5bd1e995ull * (pick + 1));
            for (int k = 0; k < 3; k++) centre[k] = (2 * sphere_set_uniform(&cs) - 1) * p->extent;
            for (int k = 0; k < 3; k++) o[k] = (float)(centre[k] + gaussian(&s) * p->spread);
        }
        o[3] = (float)r;
    }
}

void sphere_set_points(const sphere_set_params *p, uint64_t seed, const float *xyzr, size_t n,
                       size_t count, float *xyz) {
    uint64_t s = seed;
    for (size_t i = 0; i < count; i++) {
        float *o = xyz + 3 * i;
        if (i % 2 == 0 && n > 0) {
            const float *sp = xyzr + 4 * (size_t)(sphere_set_uniform(&s) * (double)n);
            for (int k = 0; k < 3; k++)
                o[k] = (float)(sp[k] + (2 * sphere_set_uniform(&s) - 1) * 1.2 * sp[3]);
        } else {
            for (int k = 0; k < 3; k++)
                o[k] = (float)((2 * sphere_set_uniform(&s) - 1) * 1.2 * p->extent);
        }
    }
}
