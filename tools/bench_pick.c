/* vxr bench pick: the instance hierarchy against the seed's loop over
 * instances, on the rays of the orbit cameras or (--rays FILE) the user's.
 * The pick outputs are touched before anything is timed: a first touch of
 * a page costs more than a pick on some machines. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#ifdef VXR_HAVE_PEERS
#include "peers/peer.h"
#endif

/* The rays per orbit camera; the loop's timing sample and the time it may
 * take at most (a stride through the rays keeps it there). */
enum { WIDTH = 160, HEIGHT = 120, LOOP_PROBE_RAYS = 2000 };
#define LOOP_SECONDS 20.0

/* Rays of the orbit cameras around the scene, w x h pixels each, and
 * each camera's level of detail at bias. */
static vxr_ray *orbit_rays(const vxr_scene *s, uint32_t w, uint32_t h, float bias, size_t *n,
                           vxr_lod lods[CLI_ORBIT_VIEWS]) {
    const int cameras = CLI_ORBIT_VIEWS;
    *n = (size_t)cameras * w * h;
    vxr_ray *rays = malloc(*n * sizeof *rays);
    if (!rays) return NULL;
    size_t k = 0;
    for (int c = 0; c < cameras; c++) {
        vxr_camera cam = {0};
        cli_orbit_camera(s, c, &cam);
        cam.width = w;
        cam.height = h;
        vxr_camera_setup(&cam);
        lods[c] = vxr_camera_lod(&cam, bias);
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) vxr_camera_ray(&cam, i, j, &rays[k++]);
    }
    return rays;
}

/* The rays [first, first + count) that share one level of detail. */
typedef struct ray_group {
    size_t first, count;
    const vxr_lod *lod; /* NULL: full resolution */
} ray_group;

/* Ray i's level of detail (groups of equal counts). */
static const vxr_lod *lod_of_ray(const ray_group *groups, size_t i) {
    return groups[i / groups[0].count].lod;
}

int cmd_bench_pick(int argc, char **argv) {
    const char *path = NULL, *rays_path = NULL;
    bool json = false, lod_given = false, pixel_given = false;
    float bias = 0;
    /* the level of detail's pixel for rays from a file: pick's */
    vxr_camera pixel = {
        .eye = {0, 0, 0}, .target = {1, 0, 0}, .width = CLI_WIDTH, .height = CLI_HEIGHT};
    for (int i = 0, taken; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--rays") && i + 1 < argc) {
            rays_path = argv[++i];
        } else if (!strcmp(argv[i], "--lod") && i + 1 < argc) {
            if (!cli_lod_arg("bench pick", argv[++i], &bias)) return EXIT_USAGE;
            lod_given = true;
        } else if ((taken = cli_pixel_arg("bench pick", argc, argv, &i, &pixel)) != 0) {
            if (taken < 0) return EXIT_USAGE;
            pixel_given = true;
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage("bench pick: unknown or incomplete option '%s'", CLI_SHOWN(argv[i]));
        else if (!path)
            path = argv[i];
        else
            return cli_usage("bench pick: more than one SCENE");
    }
    if (!path)
        return cli_usage("bench pick: expected SCENE [--rays FILE [--fov DEG] [--size WxH]] "
                         "[--lod BIAS] [--json]");
    if (pixel_given && !rays_path)
        return cli_usage("bench pick: --fov and --size go with --rays (the orbit cameras have "
                         "their own)");
    if (!lod_given) bias = cli_lod_default(path);
    size_t n;
    vxr_ray *rays;
    vxr_scene *scene;
    int status = cli_rays_and_scene(rays_path, true, path, &rays, &n, &scene);
    if (status != EXIT_OK) return status;
    const uint32_t w = WIDTH, h = HEIGHT;
    vxr_lod lods[CLI_ORBIT_VIEWS];
    ray_group groups[CLI_ORBIT_VIEWS];
    uint32_t n_groups = 1;
    if (!rays_path) {
        rays = orbit_rays(scene, w, h, bias, &n, lods);
        n_groups = CLI_ORBIT_VIEWS;
    } else {
        vxr_camera_setup(&pixel);
        lods[0] = vxr_camera_lod(&pixel, bias);
    }
    for (uint32_t g = 0; g < n_groups; g++)
        groups[g] = (ray_group){g * (n / n_groups), n / n_groups, bias > 0.0f ? &lods[g] : NULL};
    vxr_picker *picker = NULL;
    vxr_pick *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!rays || !a || !b || vxr_picker_create(scene, &picker) != VXR_OK) {
        free(rays);
        free(a);
        free(b);
        vxr_scene_destroy(scene);
        return cli_fail(path, VXR_ERROR_MEMORY, NULL);
    }
    memset(a, 0, n * sizeof *a); /* first touches, outside the timed runs */
    memset(b, 0, n * sizeof *b);
#ifdef VXR_HAVE_PEERS
    /* OpenVDB's first hits on the same rays (peers/peer.h): its world grid
     * built untimed, then its runs alternating with the BVH's. */
    char peer_err[256] = "";
    uint8_t *peer_hit = malloc(n);
    peer_openvdb_world *world = NULL;
    if (bias > 0.0f)
        snprintf(peer_err, sizeof peer_err, "a level of detail (its peer picks voxels: --lod 0)");
    else if (!peer_hit)
        snprintf(peer_err, sizeof peer_err, "out of memory");
    else if ((world = peer_openvdb_world_create(scene, peer_err, sizeof peer_err)))
        memset(peer_hit, 0, n); /* first touches, outside the timed runs */
    double best_peer = 1e30;
    size_t peer_hits = 0, peer_differ = 0;
#endif
    if (cli_progress(json)) fprintf(stderr, "picking %zu rays with the BVH ...\r", n);
    double best_bvh = 1e30, best_loop = 1e30;
    const uint32_t threads = vxr_picker_threads(picker);
    for (int run = 0; run < 3; run++) {
        double t0 = cli_now();
        for (uint32_t g = 0; g < n_groups; g++) {
            const ray_group *gr = &groups[g];
            for (size_t i = gr->first; i < gr->first + gr->count; i++)
                vxr_pick_ray_lod(picker, &rays[i], 1, gr->lod, &a[i]);
        }
        double dt = cli_now() - t0;
        if (dt < best_bvh) best_bvh = dt;
#ifdef VXR_HAVE_PEERS
        if (!world) continue;
        t0 = cli_now();
        peer_hits = peer_openvdb_first_hits(world, rays, n, peer_hit);
        dt = cli_now() - t0;
        if (dt < best_peer) best_peer = dt;
#endif
    }
    /* The same picks over the core's threads (vxr_pick_rays), into b: the
     * records must be those of one thread. */
    if (cli_progress(json)) fprintf(stderr, "picking %zu rays on %u threads ...\r", n, threads);
    double best_mt = 1e30;
    size_t differ = 0;
    for (int run = 0; run < 3; run++) {
        double t0 = cli_now();
        for (uint32_t g = 0; g < n_groups; g++)
            vxr_pick_rays_lod(picker, rays + groups[g].first, groups[g].count, 1, groups[g].lod,
                              b + groups[g].first);
        double dt = cli_now() - t0;
        if (dt < best_mt) best_mt = dt;
    }
    for (size_t i = 0; i < n; i++) differ += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
    if (cli_progress(json)) fprintf(stderr, "picking %zu rays with the loop ...\r", n);
    /* The loop is slow on large scenes: one run, or a sample of the rays
     * when even that would take long. */
    size_t stride = 1;
    {
        double t0 = cli_now();
        size_t probe = n < LOOP_PROBE_RAYS ? n : LOOP_PROBE_RAYS;
        for (size_t i = 0; i < probe; i++)
            vxr_pick_ray_loop_lod(picker, &rays[i * (n / probe)], 1,
                                  lod_of_ray(groups, i * (n / probe)), &b[0]);
        double est = (cli_now() - t0) / (double)probe * (double)n;
        while (est / (double)stride > LOOP_SECONDS) stride *= 2;
    }
    size_t looped = 0, hits = 0;
    double t0 = cli_now();
    for (size_t i = 0; i < n; i += stride, looped++)
        vxr_pick_ray_loop_lod(picker, &rays[i], 1, lod_of_ray(groups, i), &b[i]);
    best_loop = cli_now() - t0;
    for (size_t i = 0; i < n; i += stride) differ += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
    for (size_t i = 0; i < n; i++) hits += a[i].hit != 0;
#ifdef VXR_HAVE_PEERS
    for (size_t i = 0; world && i < n; i++) peer_differ += (a[i].hit != 0) != peer_hit[i];
    double peer = (double)n / best_peer * 1e-6;
#endif
    if (cli_progress(json)) fprintf(stderr, "\033[K");
    double bvh = (double)n / best_bvh * 1e-6, loop = (double)looped / best_loop * 1e-6,
           mt = (double)n / best_mt * 1e-6;
    if (json) {
        printf("{\"scene\":\"");
        cli_print_json_string(stdout, path);
        printf("\",\"instances\":%u,\"rays\":%zu,\"hits\":%zu,\"bvh_mrays_s\":%.3f,"
               "\"loop_mrays_s\":%.4f,\"loop_rays\":%zu,\"speedup\":%.1f,\"differ\":%zu,"
               "\"threads\":%u,\"bvh_threads_mrays_s\":%.3f,\"lod\":%g",
               scene->instance_count, n, hits, bvh, loop, looped, bvh / loop, differ, threads, mt,
               (double)bias);
#ifdef VXR_HAVE_PEERS
        if (world)
            printf(",\"openvdb\":{\"mrays_s\":%.3f,\"hits\":%zu,\"differ\":%zu,"
                   "\"vxr_over_openvdb\":%.2f}",
                   peer, peer_hits, peer_differ, bvh / peer);
        else {
            printf(",\"openvdb\":{\"skipped\":\"");
            cli_print_json_string(stdout, peer_err);
            printf("\"}");
        }
#endif
        printf("}\n");
    } else {
        char from[600];
        if (rays_path)
            snprintf(from, sizeof from, "from %s", rays_path);
        else
            snprintf(from, sizeof from, "%d cameras of %ux%u", CLI_ORBIT_VIEWS, w, h);
        if (bias > 0.0f)
            snprintf(from + strlen(from), sizeof from - strlen(from), ", --lod %g", (double)bias);
        printf("%s: %zu rays (%s), %zu hits\n  BVH  %.3f Mrays/s (one thread), %.3f on %u "
               "threads\n  loop %.4f Mrays/s (seed: every instance in turn; %zu rays)\n  "
               "speedup %.1fx, %zu results differ\n",
               path, n, from, hits, bvh, mt, threads, loop, looped, bvh / loop, differ);
#ifdef VXR_HAVE_PEERS
        if (world)
            printf("  OpenVDB %.3f Mrays/s (one thread: VolumeRayIntersector leaf spans, voxel "
                   "DDA), BVH %.2fx its speed, %zu hit/miss differ\n",
                   peer, bvh / peer, peer_differ);
        else
            printf("  OpenVDB skipped: %s\n", peer_err);
#endif
    }
#ifdef VXR_HAVE_PEERS
    peer_openvdb_world_destroy(world);
    free(peer_hit);
#endif
    vxr_picker_destroy(picker);
    free(rays);
    free(a);
    free(b);
    vxr_scene_destroy(scene);
    return differ ? EXIT_INPUT : EXIT_OK;
}
