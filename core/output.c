/* Output files that land whole or not at all (vxr/formats.h): a temporary
 * file beside the destination, renamed over it once written.
 *
 * A temporary's name is the destination's directory, then
 * ".PREFIX.HASH.tmp.PID.N": PREFIX the destination's file name cut to what
 * leaves room for the rest within NAME_MAX bytes, HASH 16 hex digits of
 * the whole file name (FNV-1a, 64 bits), PID the writer's process and N a
 * counter. So a temporary's name fits wherever the destination's does,
 * and ".PREFIX.HASH.tmp." names exactly the temporaries of one destination:
 * opening a destination removes the ones whose writer is gone (a process
 * killed with SIGKILL), never a live writer's.
 *
 * Every open temporary is in a fixed registry that a signal handler can
 * read (vxr_output_cleanup_on_signals): slots of PATH_MAX bytes, each
 * claimed and released through an atomic state, the signals blocked in the
 * thread that changes one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler reads the registry lock-free");

/* ---- the registry of open temporaries ---- */

enum { SLOTS = 64 }; /* temporaries open at once that a signal removes */
enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };
static char slot_path[SLOTS][PATH_MAX];
static atomic_int slot_state[SLOTS];

static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGTERM};
enum { CLEANUP_SIGNALS = sizeof cleanup_signals / sizeof cleanup_signals[0] };

/* Blocks the cleanup signals in this thread (their handler never runs
 * while it changes a slot); *old receives the mask to restore. */
static void block_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < CLEANUP_SIGNALS; i++) sigaddset(&set, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* A slot holding path: its index, or -1 when path is too long or every
 * slot is taken (the temporary is then not removed on a signal; the next
 * write to its destination still does). */
static int slot_add(const char *path) {
    size_t len = strlen(path);
    if (len >= PATH_MAX) return -1;
    sigset_t old;
    block_signals(&old);
    int slot = -1;
    for (int i = 0; i < SLOTS && slot < 0; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, SLOT_FILLING)) slot = i;
    }
    if (slot >= 0) {
        memcpy(slot_path[slot], path, len + 1);
        atomic_store(&slot_state[slot], SLOT_LIVE);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return slot;
}

static void slot_remove(int slot) {
    if (slot < 0) return;
    sigset_t old;
    block_signals(&old);
    atomic_store(&slot_state[slot], SLOT_FREE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static struct sigaction default_action; /* SIG_DFL, set before any handler */

/* Removes every registered temporary, then dies of signo as if there were
 * no handler (status 128 + signo in a shell). Async-signal-safe: atomic
 * loads, unlink, sigaction and raise. */
static void on_cleanup_signal(int signo) {
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slot_state[i]) == SLOT_LIVE) unlink(slot_path[i]);
    sigaction(signo, &default_action, NULL);
    /* pending until the handler returns (signo is blocked in it), then
     * delivered with the default action */
    raise(signo);
}

void vxr_output_cleanup_on_signals(void) {
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (int i = 0; i < CLEANUP_SIGNALS; i++) {
        struct sigaction old;
        /* a signal ignored (nohup) or handled by the host stays so */
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_cleanup_signal;
        sigemptyset(&sa.sa_mask);
        for (int k = 0; k < CLEANUP_SIGNALS; k++) sigaddset(&sa.sa_mask, cleanup_signals[k]);
        sa.sa_flags = SA_RESTART;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* ---- temporary names ---- */

enum {
    HASH_DIGITS = 16,
    NUMBER_DIGITS = 10,                                               /* a PID or N: 32 bits */
    SUFFIX = 1 + HASH_DIGITS + 5 + NUMBER_DIGITS + 1 + NUMBER_DIGITS, /* .HASH.tmp.PID.N */
    PREFIX_MAX = NAME_MAX - 1 - SUFFIX                                /* after the leading '.' */
};

/* ".PREFIX.HASH.tmp." of file name base into stem (NAME_MAX + 1 bytes). */
static void temp_stem(const char *base, char *stem) {
    size_t len = strlen(base), keep = len < PREFIX_MAX ? len : PREFIX_MAX;
    /* not through a UTF-8 character */
    while (keep > 0 && keep < len && ((unsigned char)base[keep] & 0xC0) == 0x80) keep--;
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)base[i]) * 1099511628211u;
    snprintf(stem, NAME_MAX + 1, ".%.*s.%016llx.tmp.", (int)keep, base, (unsigned long long)h);
}

/* Reads 1..NUMBER_DIGITS decimal digits (no leading zero) from *s
 * (advancing it): the value, or -1. */
static long long read_number(const char **s) {
    const char *p = *s;
    long long v = 0;
    int n = 0;
    if (p[0] == '0' && p[1] >= '0' && p[1] <= '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++, n++) {
        if (n == NUMBER_DIGITS) return -1;
        v = v * 10 + (*p - '0');
    }
    *s = p;
    return n ? v : -1;
}

/* Removes the temporaries of stem in dir ("" the working directory)
 * whose writer process no longer exists: "STEM.PID.N" exactly, regular
 * files only. Failures are ignored: this only tidies up. */
static void remove_stale(const char *dir, const char *stem) {
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d) return;
    size_t stem_len = strlen(stem);
    int saved = errno;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, stem, stem_len)) continue;
        const char *p = e->d_name + stem_len;
        long long pid = read_number(&p);
        if (pid <= 0 || pid > INT_MAX || *p++ != '.' || read_number(&p) < 0 || *p) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to ask */
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
    errno = saved;
}

/* ---- output files ---- */

struct vxr_output {
    FILE *f;
    char *path, *tmp; /* tmp NULL: written in place (a device or a FIFO) */
    int slot;         /* tmp's registry slot, -1 none */
    int finished;     /* 1 finished, -1 failed */
};

vxr_result vxr_output_open(const char *path, vxr_output **dest, vxr_error *err) {
    *dest = NULL;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return vxr_fail(err, VXR_ERROR_IO, "is a directory");
    vxr_output *o = calloc(1, sizeof *o);
    size_t len = strlen(path);
    char *name = o ? malloc(len + 1) : NULL;
    if (!name) {
        free(o);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    memcpy(name, path, len + 1);
    o->path = name;
    o->slot = -1;
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        /* /dev/null, /dev/stdout, a pipe: nothing to rename over */
        o->f = fopen(path, "wb");
        if (!o->f) {
            vxr_result r = vxr_fail(err, VXR_ERROR_IO, "cannot open: %s", strerror(errno));
            vxr_output_abort(o);
            return r;
        }
        *dest = o;
        return VXR_OK;
    }
    /* beside path, so that the rename stays within one file system */
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t dir_len = (size_t)(base - path), base_len = len - dir_len;
    if (base_len == 0 || base_len > NAME_MAX) {
        vxr_output_abort(o);
        return vxr_fail(err, VXR_ERROR_IO, "cannot create: %s",
                        strerror(base_len ? ENAMETOOLONG : ENOENT));
    }
    char stem[NAME_MAX + 1], *dir = malloc(dir_len + 1);
    o->tmp = dir ? malloc(dir_len + NAME_MAX + 1) : NULL;
    if (!o->tmp) {
        free(dir);
        vxr_output_abort(o);
        return vxr_fail(err, VXR_ERROR_MEMORY, "out of memory");
    }
    memcpy(dir, path, dir_len);
    dir[dir_len] = 0;
    temp_stem(base, stem);
    remove_stale(dir, stem);
    free(dir);
    int fd = -1;
    static atomic_uint counter;
    errno = 0;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(o->tmp, dir_len + NAME_MAX + 1, "%.*s%s%ld.%u", (int)dir_len, path, stem,
                 (long)getpid(), atomic_fetch_add(&counter, 1u));
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* less the umask */
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        vxr_output_abort(o);
        return vxr_fail(err, VXR_ERROR_IO, "cannot create: %s", strerror(e));
    }
    o->slot = slot_add(o->tmp);
    /* the file it replaces keeps its permissions */
    if ((exists && S_ISREG(st.st_mode) && fchmod(fd, st.st_mode & 07777) != 0) ||
        !(o->f = fdopen(fd, "wb"))) {
        vxr_result r = vxr_fail(err, VXR_ERROR_IO, "cannot create: %s", strerror(errno));
        if (!o->f) close(fd);
        vxr_output_abort(o);
        return r;
    }
    *dest = o;
    return VXR_OK;
}

FILE *vxr_output_file(vxr_output *o) {
    return o->f;
}

vxr_result vxr_output_finish(vxr_output *o, vxr_error *err) {
    if (o->finished) return o->finished > 0 ? VXR_OK : vxr_fail(err, VXR_ERROR_IO, "cannot write");
    int failed = fflush(o->f) != 0 || ferror(o->f);
    int e = failed ? errno : 0;
    if (!failed && o->tmp && fsync(fileno(o->f)) != 0) failed = 1, e = errno;
    if (fclose(o->f) != 0 && !failed) failed = 1, e = errno;
    o->f = NULL;
    o->finished = failed ? -1 : 1;
    return failed ? vxr_fail(err, VXR_ERROR_IO, "cannot write: %s", strerror(e)) : VXR_OK;
}

vxr_result vxr_output_commit(vxr_output *o, vxr_error *err) {
    vxr_result r = vxr_output_finish(o, err);
    if (r == VXR_OK && o->tmp && rename(o->tmp, o->path) != 0)
        r = vxr_fail(err, VXR_ERROR_IO, "cannot write: %s", strerror(errno));
    if (r == VXR_OK) {
        /* a signal from here on finds no file of that name: harmless */
        slot_remove(o->slot);
        o->slot = -1;
        free(o->tmp);
        o->tmp = NULL;
    }
    vxr_output_abort(o);
    return r;
}

void vxr_output_abort(vxr_output *o) {
    if (!o) return;
    if (o->f) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    slot_remove(o->slot);
    free(o->tmp);
    free(o->path);
    free(o);
}

void vxr_bytes_put(vxr_bytes *o, const void *data, size_t n) {
    if (o->failed || n == 0) return;
    if (n > o->cap - o->n) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->n < n) {
            if (cap > SIZE_MAX / 2) {
                o->failed = true;
                return;
            }
            cap *= 2;
        }
        uint8_t *p = realloc(o->p, cap);
        if (!p) {
            o->failed = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->n, data, n);
    o->n += n;
}
