/* vxr bench spheres: the sphere tree's query, insert, remove and move
 * against a brute-force scan, on the random sets of sphere_sets.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "sphere_sets.h"
#include "vxr/spheres.h"

typedef struct bench_buf {
    uint32_t *ids;
    size_t n;
} bench_buf;

static void bench_add(void *ctx, uint32_t handle, uint64_t user) {
    bench_buf *b = ctx;
    (void)user;
    b->ids[b->n++] = handle;
}

/* Sphere/point pairs the brute-force scan finds and the tree misses (and
 * the other way round) over count points. */
static void verify(const vxr_spheres *t, const float *s, const unsigned char *live, size_t n,
                   const float *pts, size_t count, uint32_t *a, uint32_t *b, uint64_t *missed,
                   uint64_t *extra) {
    for (size_t j = 0; j < count; j++) {
        bench_buf tb = {a, 0};
        vxr_spheres_query(t, pts + 3 * j, true, bench_add, &tb);
        size_t nb = 0;
        for (size_t i = 0; i < n; i++)
            if (live[i] && vxr_sphere_contains(s + 4 * i, s[4 * i + 3], pts + 3 * j))
                b[nb++] = (uint32_t)i;
        qsort(a, tb.n, sizeof *a, cli_cmp_u32);
        size_t x = 0, y = 0;
        while (x < tb.n || y < nb) {
            if (y == nb || (x < tb.n && a[x] < b[y])) {
                (*extra)++;
                x++;
            } else if (x == tb.n || b[y] < a[x]) {
                (*missed)++;
                y++;
            } else {
                x++;
                y++;
            }
        }
    }
}

int cmd_bench_spheres(int argc, char **argv) {
    size_t n = 0;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            uint64_t v;
            if (!cli_uint_option("bench spheres", "--n", argv[++i], 1, 50000000, &v))
                return EXIT_USAGE;
            n = (size_t)v;
        } else {
            return cli_usage("bench spheres: unknown or incomplete option '%s'",
                             CLI_SHOWN(argv[i]));
        }
    }
    if (!n) return cli_usage("bench spheres: expected --n N");
    const size_t queries = 200000, moves = n < 100000 ? n : 100000;
    size_t brute_queries = (size_t)(3e8 / (double)n);
    if (brute_queries < 50) brute_queries = 50;
    if (brute_queries > 2000) brute_queries = 2000;
    sphere_set_params prm = sphere_set_default(n);
    float *s = malloc(4 * n * sizeof *s), *pts = malloc(3 * queries * sizeof *pts);
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *h = malloc(n * sizeof *h);
    unsigned char *live = malloc(n);
    vxr_spheres *t = NULL;
    if (!s || !pts || !a || !b || !h || !live || vxr_spheres_create(&t) != VXR_OK) {
        free(s), free(pts), free(a), free(b), free(h), free(live);
        return cli_fail("bench spheres", VXR_ERROR_MEMORY, NULL);
    }
    bool progress = cli_progress(json);
    sphere_set_spheres(&prm, 7, n, s);
    sphere_set_points(&prm, 8, s, n, queries, pts);
    memset(live, 1, n);
    if (progress) fprintf(stderr, "inserting %zu spheres ...\r", n);
    double t0 = cli_now();
    for (size_t i = 0; i < n; i++) vxr_spheres_insert(t, s + 4 * i, s[4 * i + 3], i, &h[i]);
    double insert_s = cli_now() - t0;

    if (progress) fprintf(stderr, "\033[K%zu tree queries ...\r", queries);
    uint64_t found = 0;
    t0 = cli_now();
    for (size_t j = 0; j < queries; j++) {
        bench_buf tb = {a, 0};
        vxr_spheres_query(t, pts + 3 * j, true, bench_add, &tb);
        found += tb.n;
    }
    double tree_s = cli_now() - t0;

    if (progress) fprintf(stderr, "\033[K%zu brute-force scans ...\r", brute_queries);
    t0 = cli_now();
    for (size_t j = 0; j < brute_queries; j++) {
        const float *p = pts + 3 * j;
        size_t nb = 0;
        for (size_t i = 0; i < n; i++) { /* an inline distance test, the predicate on a pass */
            const float *c = s + 4 * i;
            double dx = (double)p[0] - c[0], dy = (double)p[1] - c[1], dz = (double)p[2] - c[2];
            if (dx * dx + dy * dy + dz * dz <= (double)c[3] * c[3] &&
                vxr_sphere_contains(c, c[3], p))
                b[nb++] = (uint32_t)i;
        }
        found += nb; /* keeps the scan from being optimised away */
    }
    double brute_s = cli_now() - t0;
    uint64_t missed = 0, extra = 0;
    verify(t, s, live, n, pts, brute_queries, a, b, &missed, &extra);

    /* Remove and put back a random sample; then small moves of the same. */
    if (progress) fprintf(stderr, "\033[Kremoving, reinserting, moving %zu spheres ...\r", moves);
    uint64_t rng = 99;
    uint32_t *pick = malloc(n * sizeof *pick);
    for (size_t i = 0; pick && i < n; i++) pick[i] = (uint32_t)i;
    for (size_t i = 0; pick && i < moves; i++) { /* partial Fisher-Yates shuffle */
        size_t j = i + (size_t)(sphere_set_uniform(&rng) * (double)(n - i));
        uint32_t x = pick[i];
        pick[i] = pick[j];
        pick[j] = x;
    }
    double remove_s = 0, move_s = 0;
    if (pick) {
        t0 = cli_now();
        for (size_t i = 0; i < moves; i++) vxr_spheres_remove(t, h[pick[i]]);
        remove_s = cli_now() - t0;
        for (size_t i = 0; i < moves; i++)
            vxr_spheres_insert(t, s + 4 * (size_t)pick[i], s[4 * (size_t)pick[i] + 3], pick[i],
                               &h[pick[i]]);
        for (size_t i = 0; i < moves; i++) { /* offsets of up to a tenth of the radius */
            float *c = s + 4 * (size_t)pick[i];
            for (int k = 0; k < 3; k++)
                c[k] += (float)((2 * sphere_set_uniform(&rng) - 1) * 0.1 * c[3]);
        }
        t0 = cli_now();
        for (size_t i = 0; i < moves; i++)
            vxr_spheres_update(t, h[pick[i]], s + 4 * (size_t)pick[i], s[4 * (size_t)pick[i] + 3]);
        move_s = cli_now() - t0;
        /* Handles were reissued on reinsertion: check against them. */
        for (size_t i = 0; i < n; i++) live[i] = 0;
        float *byh = malloc(4 * n * sizeof *byh);
        if (byh) {
            for (size_t i = 0; i < n; i++) {
                memcpy(byh + 4 * (size_t)h[i], s + 4 * i, 4 * sizeof *s);
                live[h[i]] = 1;
            }
            verify(t, byh, live, n, pts + 3 * brute_queries, brute_queries / 4 + 1, a, b, &missed,
                   &extra);
            free(byh);
        }
    }
    if (progress) fprintf(stderr, "\033[K");
    double tree_ns = tree_s / (double)queries * 1e9,
           brute_ns = brute_s / (double)brute_queries * 1e9;
    size_t mem = vxr_spheres_memory(t);
    if (json)
        printf("{\"n\":%zu,\"queries\":%zu,\"tree_query_ns\":%.1f,\"brute_query_ns\":%.1f,"
               "\"speedup\":%.1f,\"insert_ns\":%.1f,\"remove_ns\":%.1f,\"move_ns\":%.1f,"
               "\"false_negatives\":%llu,\"false_positives\":%llu,\"brute_queries\":%zu,"
               "\"memory_bytes\":%zu}\n",
               n, queries, tree_ns, brute_ns, brute_ns / tree_ns, insert_s / (double)n * 1e9,
               remove_s / (double)moves * 1e9, move_s / (double)moves * 1e9,
               (unsigned long long)missed, (unsigned long long)extra, brute_queries, mem);
    else
        printf("%zu spheres, %zu queries (%zu brute-force scans)\n"
               "  tree query   %10.1f ns\n  brute force  %10.1f ns  (speedup %.1fx)\n"
               "  insert %.1f ns, remove %.1f ns, small move %.1f ns\n"
               "  false negatives %llu, false positives %llu, memory %zu bytes\n",
               n, queries, brute_queries, tree_ns, brute_ns, brute_ns / tree_ns,
               insert_s / (double)n * 1e9, remove_s / (double)moves * 1e9,
               move_s / (double)moves * 1e9, (unsigned long long)missed, (unsigned long long)extra,
               mem);
    (void)found;
    vxr_spheres_destroy(t);
    free(s), free(pts), free(a), free(b), free(h), free(live), free(pick);
    return missed || extra ? EXIT_INPUT : EXIT_OK;
}
