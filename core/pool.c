/* The core's worker threads (internal.h: vxr_parallel_for). One pool per
 * process, made on first use with a worker per online CPU but one (the
 * caller is the last), and kept until the process ends. One job at a
 * time: a caller that finds the pool busy (another thread's job) runs its
 * range alone, so calls from several threads never wait on each other. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

enum { MAX_WORKERS = 63 };

typedef struct job {
    vxr_range_fn fn;
    void *user;
    size_t count, chunk;
    atomic_size_t next; /* the first index not yet taken */
} job;

static struct {
    pthread_once_t once;
    pthread_mutex_t lock; /* the fields below */
    pthread_cond_t wake;  /* a job was posted */
    pthread_cond_t idle;  /* a worker left the job */
    pthread_mutex_t run;  /* held by the caller whose job this is */
    uint64_t posted;      /* jobs posted so far */
    bool open;            /* the job takes workers */
    uint32_t joined, max_join, active;
    job job;
} pool = {.once = PTHREAD_ONCE_INIT,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .idle = PTHREAD_COND_INITIALIZER,
          .run = PTHREAD_MUTEX_INITIALIZER};

/* Takes chunks of j until none is left. */
static void drain(job *j) {
    for (;;) {
        size_t b = atomic_fetch_add(&j->next, j->chunk);
        if (b >= j->count) return;
        size_t e = j->count - b < j->chunk ? j->count : b + j->chunk;
        j->fn(j->user, b, e);
    }
}

/* Whether the job posted last wants another worker. */
static bool job_open(void) {
    return pool.open && pool.joined < pool.max_join;
}

static void *worker(void *arg) {
    (void)arg;
    uint64_t seen = 0; /* the last job this worker joined or passed over */
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.posted == seen || !job_open()) {
            if (pool.posted != seen) /* closed or full already: wait for the next */
                seen = pool.posted;
            else
                pthread_cond_wait(&pool.wake, &pool.lock);
        }
        seen = pool.posted;
        pool.joined++;
        pool.active++;
        pthread_mutex_unlock(&pool.lock);
        drain(&pool.job);
        pthread_mutex_lock(&pool.lock);
        if (--pool.active == 0) pthread_cond_signal(&pool.idle);
    }
    return NULL;
}

uint32_t vxr_cpu_count(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 1 ? (uint32_t)(cpus < MAX_WORKERS + 1 ? cpus : MAX_WORKERS + 1) : 1;
}

static void start_workers(void) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    const uint32_t workers = vxr_cpu_count() - 1;
    for (uint32_t i = 0; i < workers; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0) break; /* fewer workers */
    }
    pthread_attr_destroy(&attr);
}

void vxr_parallel_for(size_t count, size_t chunk, uint32_t threads, vxr_range_fn fn, void *user) {
    if (chunk == 0) chunk = 1;
    if (threads <= 1 || count <= chunk || pthread_mutex_trylock(&pool.run) != 0) {
        if (count) fn(user, 0, count);
        return;
    }
    pthread_once(&pool.once, start_workers);
    pthread_mutex_lock(&pool.lock);
    pool.job.fn = fn;
    pool.job.user = user;
    pool.job.count = count;
    pool.job.chunk = chunk;
    atomic_store(&pool.job.next, 0);
    pool.joined = 0;
    pool.max_join = threads - 1;
    pool.open = true;
    pool.posted++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    drain(&pool.job);
    /* Every index is taken; close the job to late workers and wait for
     * those in it to finish their chunks. */
    pthread_mutex_lock(&pool.lock);
    pool.open = false;
    while (pool.active) pthread_cond_wait(&pool.idle, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.run);
}

uint32_t vxr_build_threads(uint32_t threads) {
    return threads ? threads : vxr_cpu_count();
}
