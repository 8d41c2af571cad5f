/* vxr spheres query: which spheres hold each point (the view-distance
 * sphere tree of vxr/spheres.h, or --brute force). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "vxr/spheres.h"

typedef struct printer {
    uint32_t *ids;
    size_t n;
    const size_t *lines; /* handle -> 1-based line of the SPHERES file */
} printer;

static void print_ids(printer *p, bool json) {
    qsort(p->ids, p->n, sizeof *p->ids, cli_cmp_u32);
    fputs(json ? "{\"ids\":[" : "", stdout);
    for (size_t i = 0; i < p->n; i++) printf(i ? (json ? ",%u" : " %u") : "%u", p->ids[i]);
    fputs(json ? "]}\n" : "\n", stdout);
}

static void add_id(void *ctx, uint32_t handle, uint64_t user) {
    printer *p = ctx;
    (void)handle;
    p->ids[p->n++] = (uint32_t)user;
}

int cmd_spheres_query(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL};
    bool json = false, brute = false;
    int npaths = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--brute"))
            brute = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage("spheres query: unknown option '%s'", CLI_SHOWN(argv[i]));
        else if (npaths < 2)
            paths[npaths++] = argv[i];
        else
            return cli_usage("spheres query: expected SPHERES POINTS");
    }
    if (npaths != 2) return cli_usage("spheres query: expected SPHERES POINTS");
    float *s = NULL, *p = NULL;
    size_t ns = 0, np = 0, *lines = NULL;
    int status = cli_read_floats(paths[0], 4, "x y z r", &s, &ns, &lines);
    if (status == EXIT_OK) status = cli_read_floats(paths[1], 3, "x y z", &p, &np, NULL);
    vxr_spheres *tree = NULL;
    printer pr = {malloc((ns ? ns : 1) * sizeof *pr.ids), 0, lines};
    if (status == EXIT_OK && !pr.ids) status = cli_fail(paths[0], VXR_ERROR_MEMORY, NULL);
    if (status == EXIT_OK && vxr_spheres_create(&tree) != VXR_OK)
        status = cli_fail(paths[0], VXR_ERROR_MEMORY, NULL);
    for (size_t i = 0; status == EXIT_OK && i < ns; i++) {
        uint32_t h;
        vxr_result r = vxr_spheres_insert(tree, s + 4 * i, s[4 * i + 3], lines[i] - 1, &h);
        if (r == VXR_ERROR_ARGUMENT) {
            fprintf(stderr, "vxr: %s:%zu: the radius must be finite and >= 0\n", paths[0],
                    lines[i]);
            status = EXIT_INPUT;
        } else if (r != VXR_OK) {
            status = cli_fail(paths[0], r, NULL);
        }
    }
    for (size_t j = 0; status == EXIT_OK && j < np; j++) {
        pr.n = 0;
        if (brute) {
            for (size_t i = 0; i < ns; i++)
                if (vxr_sphere_contains(s + 4 * i, s[4 * i + 3], p + 3 * j))
                    pr.ids[pr.n++] = (uint32_t)(lines[i] - 1);
        } else {
            vxr_spheres_query(tree, p + 3 * j, true, add_id, &pr);
        }
        print_ids(&pr, json);
    }
    vxr_spheres_destroy(tree);
    free(pr.ids);
    free(s);
    free(p);
    free(lines);
    return status;
}
