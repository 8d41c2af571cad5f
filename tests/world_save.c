/* Writing a streamed world back (vxr_world_save), against the edited scene
 * in memory as the oracle: after edits inside chunks, past their sides
 * (into chunks that exist and chunks that do not) and clearing a chunk
 * whole, the world read again holds the edited scene's world voxels, the
 * streamed scene still does, every chunk file holds only its own cells and
 * an emptied chunk leaves index and disk; a cell two edited chunks fill
 * takes the colour moved into its owner, on disk as in memory. Under a
 * budget an edited chunk is written back before it is evicted. A process killed (SIGKILL) at
 * random times (half of them just after a write-back starts) while it
 * writes back edits over and over leaves every
 * chunk file the old or the new one, and a world that opens. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "vxr/edit.h"
#include "vxr/formats.h"
#include "vxr/world.h"
#include "vxr_test.h"
#include "internal.h"
#include "format_records.h"

enum { SIDE = 16, MARKS = 8, TRIALS = 40 };
static char work[256];

static void run_cmd(const char *fmt, const char *a, const char *b) {
    char cmd[900];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    CHECK(system(cmd) == 0);
}

/* A fresh world of store8 in chunks of SIDE at work/name. */
static void make_world(const char *name, char *dir, size_t size) {
    snprintf(dir, size, "%s/%s", work, name);
    run_cmd("rm -rf '%s'%s", dir, "");
    vxr_scene *s = load_file(VXR_TEST_DATA "/mmmm__scene_store8.vox");
    CHECK(s && vxr_world_build(s, dir, SIDE, 0, NULL, NULL) == VXR_OK);
    vxr_scene_destroy(s);
}

static vxr_world *open_all(const char *dir, uint64_t budget) {
    vxr_world *w = NULL;
    const vxr_world_desc desc = {dir, 0, budget, 2, 0};
    vxr_error err = {{0}};
    CHECK(vxr_world_open(&desc, &w, &err) == VXR_OK);
    if (w && vxr_world_make_resident(w, &err) != VXR_OK) {
        fprintf(stderr, "  %s\n", err.message);
        CHECK(0);
    }
    return w;
}

/* The instance of the streamed scene at chunk c, or -1. */
static int64_t instance_at(const vxr_scene *s, const int32_t c[3]) {
    for (uint32_t i = 0; i < s->instance_count; i++) {
        const vxr_instance *in = &s->instances[i];
        if (in->flags & VXR_INSTANCE_REMOVED) continue;
        bool same = true;
        for (int k = 0; k < 3; k++)
            same = same && in->transform.translation[k] == (float)(c[k] * SIDE);
        if (same) return i;
    }
    return -1;
}

/* The first instance whose chunk a has a chunk at x - 1 (left), or -1. */
static int64_t chunk_with_left(const vxr_scene *s, int32_t a[3], int32_t left[3]) {
    for (uint32_t i = 0; i < s->instance_count; i++) {
        for (int k = 0; k < 3; k++)
            a[k] = (int32_t)(s->instances[i].transform.translation[k] / SIDE);
        memcpy(left, a, 3 * sizeof *a);
        left[0]--;
        if (instance_at(s, left) >= 0) return i;
    }
    return -1;
}

/* Sets (attr != 0) or clears the model cell (x, y, z) of instance i's model. */
static void edit_cell(vxr_scene *s, int64_t i, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    CHECK(i >= 0);
    if (i < 0) return;
    const uint32_t m = s->instances[i].model;
    CHECK(vxr_octree_make_live(&s->models[m]) == VXR_OK);
    if (attr)
        CHECK(vxr_octree_set_voxel(&s->models[m], x, y, z, attr, false, NULL) == VXR_OK);
    else
        CHECK(vxr_octree_clear_voxel(&s->models[m], x, y, z, NULL) == VXR_OK);
    CHECK(vxr_scene_touch_model(s, m, NULL) == VXR_OK);
}

typedef struct clearer {
    vxr_scene *s;
    int64_t i;
    int32_t cells[4096][3];
    int n;
} clearer;

static void note_cell(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    clearer *c = user;
    (void)attr;
    if (c->n < 4096) c->cells[c->n][0] = x, c->cells[c->n][1] = y, c->cells[c->n++][2] = z;
}

/* Chunk files under dir/chunks hold only cells 0..SIDE-1: vxr_world_load
 * checks it; their voxel counts are the index's. */
static void check_world(const char *dir, const uint8_t *want, size_t n_want) {
    vxr_scene *back = NULL;
    vxr_error err = {{0}};
    CHECK(vxr_world_load(dir, &back, &err) == VXR_OK);
    if (!back) {
        fprintf(stderr, "  %s\n", err.message);
        return;
    }
    size_t n = 0;
    uint8_t *got = records(back, &n);
    CHECK_EQ_INT(n, n_want);
    CHECK(got && n == n_want && !memcmp(got, want, 16 * n));
    uint32_t side = 0, count = 0;
    vxr_world_entry *e = NULL;
    CHECK(vxr_world_read_index(dir, &side, &e, &count, NULL) == VXR_OK);
    CHECK_EQ_INT(count, back->model_count);
    for (uint32_t i = 0; e && i < count && i < back->model_count; i++)
        CHECK_EQ_INT(e[i].voxels, back->models[i].voxel_count);
    free(e);
    free(got);
    vxr_scene_destroy(back);
}

static bool file_exists(const char *dir, int x, int y, int z) {
    char path[700];
    snprintf(path, sizeof path, "%s/chunks/%d.%d.%d.vxc", dir, x, y, z);
    return access(path, F_OK) == 0;
}

static void test_write_back(void) {
    char dir[300];
    make_world("back", dir, sizeof dir);
    vxr_world *w = open_all(dir, 0);
    if (!w) return;
    vxr_scene *s = vxr_world_scene(w);
    /* chunk a, with a chunk at x - 1; above it, no chunk */
    int32_t a[3] = {0, 0, 0}, left[3] = {0, 0, 0}, above[3];
    int64_t ia = chunk_with_left(s, a, left);
    memcpy(above, a, sizeof a);
    above[2] += 40;
    CHECK(ia >= 0 && instance_at(s, above) < 0);
    /* inside a chunk; past its side into a chunk that exists and one that does not */
    edit_cell(s, ia, 3, 4, 5, 7);
    edit_cell(s, ia, 3, 4, 5, 0);
    edit_cell(s, ia, 2, 2, 2, 9);
    edit_cell(s, ia, -1, 0, 0, 11);
    edit_cell(s, ia, 0, 0, 40 * SIDE + 3, 12);
    /* a chunk cleared whole */
    static clearer c;
    c.s = s;
    c.n = 0;
    int64_t victim = -1;
    int32_t vc[3] = {0, 0, 0};
    for (uint32_t i = 0; i < s->instance_count && victim < 0; i++) {
        const vxr_octree *m = &s->models[s->instances[i].model];
        if (i != ia && i != instance_at(s, left) && m->voxel_count > 0 && m->voxel_count < 200)
            victim = i;
    }
    CHECK(victim >= 0);
    if (victim >= 0) {
        for (int k = 0; k < 3; k++)
            vc[k] = (int32_t)(s->instances[victim].transform.translation[k] / SIDE);
        vxr_octree_foreach(&s->models[s->instances[victim].model], note_cell, &c);
        for (int k = 0; k < c.n; k++)
            edit_cell(s, victim, c.cells[k][0], c.cells[k][1], c.cells[k][2], 0);
    }
    size_t n_want = 0;
    uint8_t *want = records(s, &n_want);
    vxr_world_status st;
    const float eye[3] = {0, 0, 0};
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK);
    CHECK(st.unsaved >= 2);
    uint32_t written = 0;
    vxr_error err = {{0}};
    CHECK(vxr_world_save(w, &written, &err) == VXR_OK);
    if (err.message[0]) fprintf(stderr, "  %s\n", err.message);
    CHECK(written >= 4); /* a, its neighbour below x, the new chunk above, the emptied one */
    CHECK(vxr_world_update(w, eye, &st, NULL) == VXR_OK && st.unsaved == 0);
    /* the streamed scene holds the same world; the moved cells left chunk a */
    size_t n = 0;
    uint8_t *now = records(s, &n);
    CHECK_EQ_INT(n, n_want);
    CHECK(now && n == n_want && !memcmp(now, want, 16 * n));
    free(now);
    const vxr_octree *m = &s->models[s->instances[ia].model];
    for (int k = 0; k < 3; k++) CHECK(m->vmin[k] >= 0 && m->vmax[k] <= SIDE);
    CHECK(file_exists(dir, above[0], above[1], above[2]));
    CHECK(!file_exists(dir, vc[0], vc[1], vc[2]));
    CHECK(vxr_world_save(w, &written, NULL) == VXR_OK && written == 0); /* nothing left */
    vxr_world_close(w);
    check_world(dir, want, n_want);
    /* opened again: the new chunk streams in, the emptied one is not asked for */
    w = open_all(dir, 0);
    if (w) {
        s = vxr_world_scene(w);
        CHECK(instance_at(s, above) >= 0 && instance_at(s, vc) < 0);
        now = records(s, &n);
        CHECK(now && n == n_want && !memcmp(now, want, 16 * n));
        free(now);
    }
    vxr_world_close(w);
    free(want);
}

/* Two edited chunks give one cell two colours: the one moved in wins, on
 * disk as in memory. */
static void test_conflict(void) {
    char dir[300];
    make_world("conflict", dir, sizeof dir);
    vxr_world *w = open_all(dir, 0);
    if (!w) return;
    vxr_scene *s = vxr_world_scene(w);
    int32_t a[3] = {0, 0, 0}, left[3] = {0, 0, 0};
    int64_t ia = chunk_with_left(s, a, left), il = instance_at(s, left);
    CHECK(ia >= 0 && il >= 0);
    if (ia < 0 || il < 0) return;
    edit_cell(s, il, SIDE - 1, 0, 0, 13); /* the owner's colour */
    edit_cell(s, ia, -1, 0, 0, 11);       /* the same world cell, from chunk a */
    CHECK(vxr_world_save(w, NULL, NULL) == VXR_OK);
    uint32_t attr = 0;
    il = instance_at(s, left);
    ia = instance_at(s, a);
    CHECK(vxr_octree_lookup(&s->models[s->instances[il].model], SIDE - 1, 0, 0, &attr) &&
          attr == 11);
    CHECK(!vxr_octree_lookup(&s->models[s->instances[ia].model], -1, 0, 0, &attr));
    vxr_world_close(w);
    vxr_scene *back = NULL;
    CHECK(vxr_world_load(dir, &back, NULL) == VXR_OK);
    const int64_t jl = back ? instance_at(back, left) : -1;
    CHECK(jl >= 0 &&
          vxr_octree_lookup(&back->models[back->instances[jl].model], SIDE - 1, 0, 0, &attr) &&
          attr == 11);
    vxr_scene_destroy(back);
}

/* Under a budget, a chunk edited and then left behind is written back
 * before it goes. */
static void test_evict_writes_back(void) {
    char dir[300];
    make_world("evict", dir, sizeof dir);
    vxr_world *w = NULL;
    /* a budget of 1 byte: only the wanted chunks stay */
    const vxr_world_desc desc = {dir, 20, 1, 2, 0};
    CHECK(vxr_world_open(&desc, &w, NULL) == VXR_OK);
    if (!w) return;
    vxr_scene *s = vxr_world_scene(w);
    vxr_world_status st;
    const int32_t a[3] = {0, 0, 0};
    const float near[3] = {8, 8, 8}, far[3] = {8, 8, 4000};
    for (int k = 0; k < 100 && instance_at(s, a) < 0; k++) {
        CHECK(vxr_world_update(w, near, &st, NULL) == VXR_OK);
        vxr_world_wait(w);
    }
    const int64_t ia = instance_at(s, a);
    edit_cell(s, ia, 1, 1, 1, 5);
    uint32_t attr = 0;
    CHECK(vxr_world_update(w, far, &st, NULL) == VXR_OK);
    CHECK(st.unsaved == 0 && st.resident == 0 && instance_at(s, a) < 0);
    vxr_world_close(w);
    vxr_scene *back = NULL;
    CHECK(vxr_world_load(dir, &back, NULL) == VXR_OK);
    if (back) {
        const int64_t i = instance_at(back, a);
        CHECK(i >= 0 &&
              vxr_octree_lookup(&back->models[back->instances[i].model], 1, 1, 1, &attr) &&
              attr == 5);
    }
    vxr_scene_destroy(back);
}

/* ---- killed while writing back ---- */

static const int32_t MARK_CHUNK[3] = {0, 0, 40};
static int32_t marks[MARKS][6]; /* chunk (3), cell (3): cells empty in the original world */

/* One write-back: the marks set (and a voxel into MARK_CHUNK, made new) when
 * absent, cleared (MARK_CHUNK emptied) when present. */
static int saving_fd = -1; /* the child says here that a write-back starts */

static void toggle(const char *dir) {
    vxr_world *w = open_all(dir, 0);
    if (!w) _exit(3);
    vxr_scene *s = vxr_world_scene(w);
    const int64_t im = instance_at(s, MARK_CHUNK);
    for (int k = 0; k < MARKS; k++) {
        const int64_t i = instance_at(s, marks[k]);
        edit_cell(s, i, marks[k][3], marks[k][4], marks[k][5], im < 0 ? 20 + (uint32_t)k : 0);
    }
    if (im < 0) /* a cell of MARK_CHUNK, from the first mark's chunk */
        edit_cell(s, instance_at(s, marks[0]), (MARK_CHUNK[0] - marks[0][0]) * SIDE,
                  (MARK_CHUNK[1] - marks[0][1]) * SIDE, (MARK_CHUNK[2] - marks[0][2]) * SIDE, 30);
    else
        edit_cell(s, im, 0, 0, 0, 0);
    if (saving_fd >= 0 && write(saving_fd, "s", 1) != 1) _exit(5);
    if (vxr_world_save(w, NULL, NULL) != VXR_OK) _exit(4);
    vxr_world_close(w);
}

typedef struct file_bytes {
    uint8_t *p;
    size_t n;
} file_bytes;

static file_bytes read_chunk_file(const char *dir, const int32_t c[3]) {
    char path[700];
    snprintf(path, sizeof path, "%s/chunks/%d.%d.%d.vxc", dir, c[0], c[1], c[2]);
    file_bytes f = {NULL, 0};
    if (vxr_read_file(path, &f.p, &f.n, NULL) != VXR_OK) f.p = NULL;
    return f;
}

static bool same(file_bytes a, file_bytes b) {
    return a.p && b.p && a.n == b.n && !memcmp(a.p, b.p, a.n);
}

static void test_killed(void) {
    char dir[300], ref[300];
    make_world("killed", dir, sizeof dir);
    make_world("killed-ref", ref, sizeof ref);
    /* MARKS chunks and an empty cell in each */
    vxr_scene *s = NULL;
    CHECK(vxr_world_load(dir, &s, NULL) == VXR_OK);
    if (!s) return;
    CHECK(s->instance_count >= 2 * MARKS);
    for (int k = 0; k < MARKS; k++) {
        uint32_t i = (uint32_t)k * (s->instance_count / MARKS);
        while (s->models[s->instances[i].model].voxel_count == SIDE * SIDE * SIDE) i++; /* full */
        for (int a = 0; a < 3; a++)
            marks[k][a] = (int32_t)(s->instances[i].transform.translation[a] / SIDE);
        uint32_t attr;
        int32_t cell = 0;
        while (vxr_octree_lookup(&s->models[s->instances[i].model], cell % SIDE,
                                 (cell / SIDE) % SIDE, cell / (SIDE * SIDE), &attr))
            cell++;
        marks[k][3] = cell % SIDE, marks[k][4] = (cell / SIDE) % SIDE,
        marks[k][5] = cell / (SIDE * SIDE);
    }
    vxr_scene_destroy(s);
    /* the two states' files: the original and one write-back */
    file_bytes old_f[MARKS + 1], new_f[MARKS + 1];
    toggle(ref);
    for (int k = 0; k <= MARKS; k++) {
        const int32_t *c = k < MARKS ? marks[k] : MARK_CHUNK;
        old_f[k] = read_chunk_file(dir, c);
        new_f[k] = read_chunk_file(ref, c);
        if (!new_f[k].p || (k < MARKS && same(old_f[k], new_f[k])))
            fprintf(stderr, "  mark %d (%d %d %d): new %p, same %d\n", k, c[0], c[1], c[2],
                    (void *)new_f[k].p, same(old_f[k], new_f[k]));
        CHECK(new_f[k].p && (k == MARKS ? !old_f[k].p : old_f[k].p && !same(old_f[k], new_f[k])));
    }
    srand(31);
    int mixed = 0, mark_listed = 0;
    for (int t = 0; t < TRIALS; t++) {
        /* odd trials: a kill at any moment; even ones: within 15 ms of a
         * write-back's start, so that most land inside one */
        int pipe_fd[2];
        CHECK(pipe(pipe_fd) == 0);
        const pid_t pid = fork();
        if (pid == 0) {
            close(pipe_fd[0]);
            saving_fd = pipe_fd[1];
            for (;;) toggle(dir);
        }
        CHECK(pid > 0);
        close(pipe_fd[1]);
        char said;
        if (t % 2 == 0 && read(pipe_fd[0], &said, 1) != 1) CHECK(0);
        struct timespec nap = {0, (long)(t % 2 ? 20 + rand() % 400 : rand() % 15) * 1000000L};
        nanosleep(&nap, NULL);
        kill(pid, SIGKILL);
        close(pipe_fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status)); /* it was still writing back, not failed */
        /* every chunk old or new, and the world opens */
        int n_old = 0, n_new = 0;
        for (int k = 0; k < MARKS; k++) {
            file_bytes f = read_chunk_file(dir, marks[k]);
            n_old += same(f, old_f[k]);
            n_new += same(f, new_f[k]);
            CHECK(same(f, old_f[k]) || same(f, new_f[k]));
            free(f.p);
        }
        file_bytes f = read_chunk_file(dir, MARK_CHUNK);
        CHECK(!f.p || same(f, new_f[MARKS]));
        free(f.p);
        mixed += n_old && n_new;
        vxr_scene *back = NULL;
        vxr_error err = {{0}};
        CHECK(vxr_world_load(dir, &back, &err) == VXR_OK);
        if (!back) fprintf(stderr, "  trial %d: %s\n", t, err.message);
        mark_listed += back && instance_at(back, MARK_CHUNK) >= 0;
        vxr_scene_destroy(back);
    }
    printf("  %d of %d kills left some chunks old and some new; the new chunk listed after %d\n",
           mixed, TRIALS, mark_listed);
    CHECK(mixed > 0); /* the kills landed inside write-backs */
    for (int k = 0; k <= MARKS; k++) free(old_f[k].p), free(new_f[k].p);
}

int run(int argc, char **argv);

int main(int argc, char **argv) {
    snprintf(work, sizeof work, "/tmp/vxr-save-XXXXXX");
    if (!mkdtemp(work)) return 1;
    const int r = run(argc, argv);
    run_cmd("rm -rf '%s'%s", work, "");
    return r;
}

/* the tests' main, as run() */
#define main run
VXR_TEST_MAIN(TEST(test_write_back), TEST(test_conflict), TEST(test_evict_writes_back),
              TEST(test_killed))
