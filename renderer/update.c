/* Scenes that change on the GPU (vxr_renderer_update): each model owns a
 * range of each octree section with room to grow; an update copies what
 * changed through a staging ring and moves, on the GPU, the models that
 * outgrew their ranges. When a section has no free range large enough, it
 * is laid out afresh in new buffers (grown, or compacted) by GPU copies;
 * the old buffers, views, descriptor set and pipelines are retired until
 * the host says the work that may read them completed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "vxr/blob.h"
#include "vxr/bvh.h"
#include "vxr/edit.h"

/* ---- what a model needs ---- */

void vxr_model_needs(const vxr_octree *m, uint64_t need[VXR_SECTIONS]) {
    need[VXR_SEC_NODES] = m->node_count;
    need[VXR_SEC_BATTR] = m->node_count ? vxr_octree_battr_count(m) : 0;
    need[VXR_SEC_ATTRS] =
        m->node_count ? ((uint64_t)vxr_octree_attr_count(m) * m->attr_size + 3) / 4 : 0;
}

void vxr_model_section(const vxr_octree *m, int sec, uint64_t start, uint64_t count, void *dest) {
    uint8_t *out = dest;
    if (!count) return; /* an empty model has no arrays to copy from */
    if (sec == VXR_SEC_NODES) {
        memcpy(out, m->nodes + start, count * sizeof(vxr_node));
    } else if (sec == VXR_SEC_BATTR) {
        memcpy(out, m->brick_attr + start, count * 4);
    } else { /* words of attributes; the last one zero-padded */
        uint64_t bytes = (uint64_t)vxr_octree_attr_count(m) * m->attr_size, at = start * 4;
        uint64_t n = at >= bytes ? 0 : bytes - at < count * 4 ? bytes - at : count * 4;
        if (n) memcpy(out, m->attrs + at, n);
        memset(out + n, 0, count * 4 - n);
    }
}

void vxr_renderer_model_record(const vxr_renderer *r, const vxr_scene *s, uint32_t i,
                               vxr_gpu_model *dest) {
    const vxr_resident *res = &r->res[i];
    if (!res->placed) {
        memset(dest, 0, sizeof *dest);
        return;
    }
    vxr_gpu_model_record(&s->models[i], (uint32_t)res->base[VXR_SEC_NODES],
                         (uint32_t)res->base[VXR_SEC_BATTR],
                         (uint32_t)(res->base[VXR_SEC_ATTRS] * 4), dest);
}

/* ---- ranges ---- */

/* First fit; false when no free range holds count. */
static bool range_alloc(vxr_section *sec, uint64_t count, uint64_t *start) {
    if (count == 0) {
        *start = 0;
        return true;
    }
    for (uint32_t i = 0; i < sec->free_count; i++) {
        vxr_range *f = &sec->free[i];
        if (f->count < count) continue;
        *start = f->start;
        f->start += count;
        f->count -= count;
        if (f->count == 0) {
            memmove(f, f + 1, (sec->free_count - i - 1) * sizeof *f);
            sec->free_count--;
        }
        return true;
    }
    return false;
}

/* Returns a range to the free list, joined with its neighbours. Out of
 * memory for the list: the range stays unused until the next layout. */
static void range_free(vxr_section *sec, uint64_t start, uint64_t count) {
    if (count == 0) return;
    uint32_t i = 0;
    while (i < sec->free_count && sec->free[i].start < start) i++;
    vxr_range *prev = i ? &sec->free[i - 1] : NULL;
    vxr_range *next = i < sec->free_count ? &sec->free[i] : NULL;
    bool join_prev = prev && prev->start + prev->count == start;
    bool join_next = next && start + count == next->start;
    if (join_prev && join_next) {
        prev->count += count + next->count;
        memmove(next, next + 1, (sec->free_count - i - 1) * sizeof *next);
        sec->free_count--;
    } else if (join_prev) {
        prev->count += count;
    } else if (join_next) {
        next->start = start;
        next->count += count;
    } else {
        if (sec->free_count == sec->free_cap) {
            uint32_t cap = sec->free_cap ? sec->free_cap * 2 : 16;
            vxr_range *p = realloc(sec->free, cap * sizeof *p);
            if (!p) return;
            sec->free = p;
            sec->free_cap = cap;
        }
        memmove(&sec->free[i + 1], &sec->free[i], (sec->free_count - i) * sizeof *sec->free);
        sec->free[i] = (vxr_range){start, count};
        sec->free_count++;
    }
}

/* The range a model gets: what it needs, and half again when it is live
 * (edits grow it). */
static uint64_t range_size(const vxr_octree *m, uint64_t need) {
    return m->live ? need + need / 2 + 64 : need;
}

bool vxr_resident_place(vxr_renderer *r, uint32_t i, const vxr_octree *m) {
    vxr_resident *res = &r->res[i];
    uint64_t need[VXR_SECTIONS], base[VXR_SECTIONS];
    vxr_model_needs(m, need);
    for (int k = 0; k < VXR_SECTIONS; k++) {
        if (range_alloc(&r->sec[k], range_size(m, need[k]), &base[k])) continue;
        while (k-- > 0) range_free(&r->sec[k], base[k], range_size(m, need[k]));
        return false;
    }
    for (int k = 0; k < VXR_SECTIONS; k++) {
        res->base[k] = base[k];
        res->cap[k] = range_size(m, need[k]);
        res->used[k] = need[k];
    }
    res->placed = true;
    res->empty = m->voxel_count == 0;
    return true;
}

/* ---- retiring ---- */

static vxr_result retire(vxr_renderer *r, const vxr_retired *what, vxr_error *err) {
    if (r->retired_count == r->retired_cap) {
        uint32_t cap = r->retired_cap ? r->retired_cap * 2 : 32;
        vxr_retired *p = realloc(r->retired, cap * sizeof *p);
        if (!p) return vxr_ctx_fail(r->ctx, err, VXR_ERROR_MEMORY, "out of memory");
        r->retired = p;
        r->retired_cap = cap;
    }
    r->retired[r->retired_count++] = *what;
    return VXR_OK;
}

static void destroy_retired(vxr_context *c, vxr_retired *d) {
    if (d->view) c->vk.vkDestroyBufferView(c->device, d->view, c->alloc);
    vxr_buf_destroy(c, &d->buf);
    if (d->pool) c->vk.vkDestroyDescriptorPool(c->device, d->pool, c->alloc);
}

void vxr_renderer_complete(vxr_renderer *r, uint64_t serial) {
    if (serial > r->serial) serial = r->serial;
    if (serial <= r->completed) return;
    r->completed = serial;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->retired_count; i++) {
        if (r->retired[i].serial <= serial)
            destroy_retired(r->ctx, &r->retired[i]);
        else
            r->retired[kept++] = r->retired[i];
    }
    r->retired_count = kept;
    vxr_ring *g = &r->ring;
    while (g->mark_count && g->marks[g->mark_first].serial <= serial) {
        g->tail = g->marks[g->mark_first].end;
        g->mark_first++;
        g->mark_count--;
    }
    if (!g->mark_count) g->mark_first = 0;
}

void vxr_renderer_update_free(vxr_renderer *r) {
    if (r->bvh) vxr_bvh_free(r->bvh);
    free(r->bvh);
    for (uint32_t i = 0; i < r->retired_count; i++) destroy_retired(r->ctx, &r->retired[i]);
    free(r->retired);
    vxr_buf_destroy(r->ctx, &r->ring.buf);
    free(r->ring.marks);
}

/* Retires binding b's buffer and view (the descriptor set is made anew). */
static vxr_result retire_binding(vxr_renderer *r, uint32_t b, uint64_t serial, vxr_error *err) {
    vxr_retired d = {.serial = serial, .buf = r->buf[b], .view = r->view[b]};
    vxr_result res = retire(r, &d, err);
    if (res != VXR_OK) return res;
    memset(&r->buf[b], 0, sizeof r->buf[b]);
    r->view[b] = VK_NULL_HANDLE;
    return VXR_OK;
}

/* ---- recording copies ---- */

typedef struct update {
    vxr_renderer *r;
    vxr_scene *s;
    VkCommandBuffer cmd;
    uint64_t serial;
    vxr_update_info *info;
    vxr_error *err;
    bool rebind;       /* buffers were replaced */
    VkBuffer src, dst; /* the batch of regions being gathered */
    VkBufferCopy regions[64];
    uint32_t n_regions;
} update;

static void flush(update *u) {
    if (u->n_regions)
        u->r->ctx->vk.vkCmdCopyBuffer(u->cmd, u->src, u->dst, u->n_regions, u->regions);
    u->n_regions = 0;
}

static void copy(update *u, VkBuffer src, VkDeviceSize src_at, VkBuffer dst, VkDeviceSize dst_at,
                 VkDeviceSize bytes) {
    if (!bytes) return;
    if (u->n_regions && (src != u->src || dst != u->dst || u->n_regions == 64)) flush(u);
    u->src = src;
    u->dst = dst;
    u->regions[u->n_regions++] = (VkBufferCopy){src_at, dst_at, bytes};
}

/* Staging bytes from the ring into *at. A ring too small for them is
 * replaced by a larger one (the old one retired with this update). */
static vxr_result ring_alloc(update *u, uint64_t bytes, uint64_t *at) {
    vxr_renderer *r = u->r;
    vxr_ring *g = &r->ring;
    bytes = (bytes + 15) & ~15ull;
    uint64_t size = g->buf.size, pos = size ? g->head % size : 0;
    if (size && pos + bytes > size && g->head + (size - pos) + bytes - g->tail <= size) {
        g->head += size - pos; /* wrap: skip the end */
        pos = 0;
    }
    if (!size || pos + bytes > size || g->head + bytes - g->tail > size) {
        uint64_t want = size ? size * 2 : 1u << 20;
        while (want < 2 * bytes) want *= 2;
        flush(u);
        if (g->buf.buffer) {
            vxr_retired d = {.serial = u->serial, .buf = g->buf};
            vxr_result res = retire(r, &d, u->err);
            if (res != VXR_OK) return res;
        }
        memset(&g->buf, 0, sizeof g->buf);
        g->head = g->tail = 0;
        g->mark_first = g->mark_count = 0;
        vxr_result res = vxr_buf_create(r->ctx, want, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                        &g->buf, u->err);
        if (res != VXR_OK) return res;
        pos = 0;
    }
    g->head += bytes;
    *at = pos;
    return VXR_OK;
}

/* Records the upload of model m's elements [from, from + count) of
 * section k to elements at .. at + count. */
static vxr_result upload_section(update *u, int k, uint64_t at, uint64_t count, const vxr_octree *m,
                                 uint64_t from) {
    vxr_renderer *r = u->r;
    const vxr_section *sec = &r->sec[k];
    uint64_t bytes = count * sec->elem;
    if (!count) return VXR_OK;
    uint64_t off;
    vxr_result res = ring_alloc(u, bytes, &off);
    if (res != VXR_OK) return res;
    vxr_model_section(m, k, from, count, (uint8_t *)r->ring.buf.map + off);
    const uint64_t per = 1ull << sec->shift;
    while (count) {
        uint64_t chunk = at >> sec->shift, in = at & (per - 1);
        uint64_t n = per - in < count ? per - in : count;
        copy(u, r->ring.buf.buffer, off, r->buf[sec->first + chunk].buffer, in * sec->elem,
             n * sec->elem);
        off += n * sec->elem;
        at += n;
        count -= n;
    }
    u->info->upload_bytes += bytes;
    return VXR_OK;
}

/* Records an upload of bytes from data into binding b at byte `at`. */
static vxr_result upload_table(update *u, uint32_t b, uint64_t at, const void *data,
                               uint64_t bytes) {
    if (!bytes) return VXR_OK;
    uint64_t off;
    vxr_result res = ring_alloc(u, bytes, &off);
    if (res != VXR_OK) return res;
    memcpy((uint8_t *)u->r->ring.buf.map + off, data, bytes);
    copy(u, u->r->ring.buf.buffer, off, u->r->buf[b].buffer, at, bytes);
    u->info->upload_bytes += bytes;
    return VXR_OK;
}

/* Records a GPU copy of count elements of section k from `from` in the
 * chunk buffers old[] to `to` in the current ones, split at both sides'
 * chunk boundaries. */
static void move_section(update *u, int k, const vxr_buf *old, uint64_t from, uint64_t to,
                         uint64_t count) {
    const vxr_section *sec = &u->r->sec[k];
    const uint64_t per = 1ull << sec->shift;
    u->info->moved_bytes += count * sec->elem;
    while (count) {
        uint64_t a = from & (per - 1), b = to & (per - 1);
        uint64_t n = count;
        if (per - a < n) n = per - a;
        if (per - b < n) n = per - b;
        copy(u, old[from >> sec->shift].buffer, a * sec->elem,
             u->r->buf[sec->first + (to >> sec->shift)].buffer, b * sec->elem, n * sec->elem);
        from += n;
        to += n;
        count -= n;
    }
}

/* ---- planning ---- */

/* A model this update rewrites. */
typedef struct todo {
    uint32_t model;
    bool all;     /* upload everything (new layout, compact or new model) */
    bool removed; /* the model was removed: its ranges go */
} todo;

static vxr_result grow_models(update *u, uint32_t need) {
    vxr_renderer *r = u->r;
    if (need <= r->model_cap) return VXR_OK;
    uint32_t cap = r->model_cap * 2 > need ? r->model_cap * 2 : need;
    vxr_resident *res = realloc(r->res, cap * sizeof *res);
    if (res) r->res = res;
    vxr_gpu_model *rec = realloc(r->model_rec, cap * sizeof *rec);
    if (rec) r->model_rec = rec;
    if (!res || !rec) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    memset(r->res + r->model_cap, 0, (cap - r->model_cap) * sizeof *res);
    memset(r->model_rec + r->model_cap, 0, (cap - r->model_cap) * sizeof *rec);
    r->model_cap = cap;
    return VXR_OK;
}

/* Lays section k out afresh in new buffers of room for the models'
 * ranges (the todo models' at their new sizes) and half again: every
 * placed model's content moves there on the GPU. */
static vxr_result relayout(update *u, int k, const uint64_t *want, vxr_error *err) {
    vxr_renderer *r = u->r;
    vxr_context *c = r->ctx;
    vxr_section *sec = &r->sec[k];
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->model_count; i++)
        if (r->res[i].placed) total += want[i];
    uint64_t limit = vxr_section_limit(sec, k);
    if (total > limit)
        return vxr_ctx_fail(c, err, VXR_ERROR_LIMIT,
                            "the edited scene needs %llu bytes of one section, more than %u "
                            "bindings of %llu",
                            (unsigned long long)(total * sec->elem), sec->bindings,
                            (unsigned long long)c->max_binding);
    uint64_t capacity = total + total / 2 + 4096;
    if (capacity > limit) capacity = limit;
    vxr_buf old[VXR_ATTR_CHUNKS];
    memcpy(old, &r->buf[sec->first], sec->bindings * sizeof *old);
    uint32_t chunks = (uint32_t)((capacity + (1ull << sec->shift) - 1) >> sec->shift);
    vxr_buf fresh[VXR_ATTR_CHUNKS] = {{0}};
    vxr_result res = VXR_OK;
    for (uint32_t i = 0; i < chunks && res == VXR_OK; i++) {
        uint64_t n = capacity - ((uint64_t)i << sec->shift);
        if (n > 1ull << sec->shift) n = 1ull << sec->shift;
        res =
            vxr_buf_create(c, n * sec->elem,
                           VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &fresh[i], err);
    }
    vxr_range *free_list = malloc(sizeof *free_list);
    if (res == VXR_OK && !free_list) res = vxr_ctx_fail(c, err, VXR_ERROR_MEMORY, "out of memory");
    if (res != VXR_OK) {
        for (uint32_t i = 0; i < chunks; i++) vxr_buf_destroy(c, &fresh[i]);
        free(free_list);
        return res;
    }
    /* old buffers go once the work before this update is done */
    for (uint32_t i = 0; i < sec->bindings; i++) {
        uint32_t b = sec->first + i;
        if (r->buf[b].buffer) {
            vxr_retired d = {.serial = u->serial, .buf = r->buf[b], .view = r->view[b]};
            if ((res = retire(r, &d, err)) != VXR_OK) return res; /* fresh leak: out of memory */
        }
        r->buf[b] = i < chunks ? fresh[i] : (vxr_buf){0};
        r->view[b] = VK_NULL_HANDLE;
    }
    uint64_t top = 0;
    for (uint32_t i = 0; i < r->model_count; i++) {
        vxr_resident *m = &r->res[i];
        if (!m->placed) continue;
        /* the content that is current on the GPU (a todo model's old ranges
         * were noted by the caller before this) */
        move_section(u, k, old, m->base[k], top, m->used[k]);
        m->base[k] = top;
        m->cap[k] = want[i];
        top += want[i];
    }
    free(sec->free);
    sec->free = free_list;
    sec->free[0] = (vxr_range){top, capacity - top};
    sec->free_count = sec->free[0].count ? 1 : 0;
    sec->free_cap = 1;
    sec->capacity = capacity;
    u->rebind = true;
    u->info->relayout = true;
    return VXR_OK;
}

static void barrier(update *u, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
    flush(u);
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
    u->r->ctx->vk.vkCmdPipelineBarrier(u->cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The models that changed since the last update: their new ranges (moves
 * within a section, or a new layout of it) recorded. */
static vxr_result plan_models(update *u, todo **list, uint32_t *count, bool *hierarchy) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    vxr_result res = grow_models(u, s->model_count);
    if (res != VXR_OK) return res;
    todo *t = malloc(((size_t)s->model_count + 1) * sizeof *t);
    if (!t) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    *list = t;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->model_count; i++) {
        vxr_octree *m = &s->models[i];
        vxr_resident *res_i = &r->res[i];
        if (i < r->model_count && res_i->version == s->model_version[i]) {
            vxr_octree_changes_taken(m); /* uploaded at creation, or nothing to take */
            continue;
        }
        todo *d = &t[n++];
        memset(d, 0, sizeof *d);
        d->model = i;
        vxr_octree_changes ch;
        vxr_octree_get_changes(m, &ch);
        d->all = ch.all || !res_i->placed;
        bool empty = m->voxel_count == 0;
        if (!res_i->placed || empty != res_i->empty) *hierarchy = true;
        if (!m->live && m->node_count == 0 && m->attr_size == 0) { /* removed */
            d->removed = true;
            if (res_i->placed)
                for (int k = 0; k < VXR_SECTIONS; k++)
                    range_free(&r->sec[k], res_i->base[k], res_i->cap[k]);
            memset(res_i, 0, sizeof *res_i);
        }
    }
    if (s->model_count > r->model_count) r->model_count = s->model_count;
    *count = n;
    return VXR_OK;
}

/* New ranges for the todo models that outgrew theirs or are new, their
 * old content moved over on the GPU; a section without room for all of
 * them is laid out afresh instead (nothing moved twice). */
static vxr_result place_todo(update *u, todo *t, uint32_t n) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    uint64_t *at = malloc(((size_t)n + 1) * sizeof *at);
    if (!at) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    vxr_result res = VXR_OK;
    for (int k = 0; k < VXR_SECTIONS && res == VXR_OK; k++) {
        uint32_t j = 0;
        for (; j < n; j++) {
            vxr_resident *m = &r->res[t[j].model];
            uint64_t need[VXR_SECTIONS];
            vxr_model_needs(&s->models[t[j].model], need);
            at[j] = UINT64_MAX;
            if (t[j].removed || (m->placed && need[k] <= m->cap[k])) continue;
            if (!range_alloc(&r->sec[k], range_size(&s->models[t[j].model], need[k]), &at[j]))
                break;
        }
        if (j < n) { /* no room: give back what was taken, lay the section out */
            uint64_t *want = calloc((size_t)r->model_count + 1, sizeof *want);
            if (!want) {
                res = vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
                break;
            }
            for (uint32_t q = 0; q < r->model_count; q++) want[q] = r->res[q].cap[k];
            for (uint32_t q = 0; q < n; q++) {
                const vxr_octree *o = &s->models[t[q].model];
                uint64_t need[VXR_SECTIONS];
                vxr_model_needs(o, need);
                if (q < j && at[q] != UINT64_MAX)
                    range_free(&r->sec[k], at[q], range_size(o, need[k]));
                if (!t[q].removed && need[k] > want[t[q].model])
                    want[t[q].model] = range_size(o, need[k]);
                if (!t[q].removed) r->res[t[q].model].placed = true;
            }
            res = relayout(u, k, want, u->err);
            free(want);
            continue;
        }
        for (j = 0; j < n; j++) {
            if (at[j] == UINT64_MAX) continue;
            vxr_resident *m = &r->res[t[j].model];
            uint64_t need[VXR_SECTIONS];
            vxr_model_needs(&s->models[t[j].model], need);
            if (m->placed) {
                if (!t[j].all)
                    move_section(u, k, &r->buf[r->sec[k].first], m->base[k], at[j], m->used[k]);
                range_free(&r->sec[k], m->base[k], m->cap[k]);
            }
            m->base[k] = at[j];
            m->cap[k] = range_size(&s->models[t[j].model], need[k]);
        }
    }
    free(at);
    for (uint32_t j = 0; j < n && res == VXR_OK; j++)
        if (!t[j].removed) r->res[t[j].model].placed = true;
    return res;
}

/* Uploads what changed of the todo models, and their table records. */
static vxr_result upload_models(update *u, todo *t, uint32_t n) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    vxr_result res = VXR_OK;
    for (uint32_t j = 0; j < n && res == VXR_OK; j++) {
        uint32_t i = t[j].model;
        vxr_octree *m = &s->models[i];
        vxr_resident *d = &r->res[i];
        if (t[j].removed) {
            d->version = s->model_version[i];
            continue;
        }
        uint64_t need[VXR_SECTIONS];
        vxr_model_needs(m, need);
        vxr_octree_changes ch;
        vxr_octree_get_changes(m, &ch);
        if (t[j].all || ch.all) {
            for (int k = 0; k < VXR_SECTIONS && res == VXR_OK; k++)
                res = upload_section(u, k, d->base[k], need[k], m, 0);
        } else {
            for (uint32_t q = 0; q < ch.node_spans && res == VXR_OK; q++) {
                const vxr_span *sp = &ch.nodes[q];
                uint32_t end = sp->start + sp->count;
                if (end > need[VXR_SEC_NODES]) end = (uint32_t)need[VXR_SEC_NODES];
                if (sp->start >= end) continue;
                res = upload_section(u, VXR_SEC_NODES, d->base[VXR_SEC_NODES] + sp->start,
                                     end - sp->start, m, sp->start);
                if (res == VXR_OK)
                    res = upload_section(u, VXR_SEC_BATTR, d->base[VXR_SEC_BATTR] + sp->start,
                                         end - sp->start, m, sp->start);
            }
            uint32_t size = m->attr_size;
            for (uint32_t q = 0; q < ch.attr_spans && res == VXR_OK; q++) {
                const vxr_span *sp = &ch.attrs[q];
                uint64_t w0 = (uint64_t)sp->start * size / 4,
                         w1 = ((uint64_t)(sp->start + sp->count) * size + 3) / 4;
                if (w1 > need[VXR_SEC_ATTRS]) w1 = need[VXR_SEC_ATTRS];
                if (w0 >= w1) continue;
                res = upload_section(u, VXR_SEC_ATTRS, d->base[VXR_SEC_ATTRS] + w0, w1 - w0, m, w0);
            }
        }
        if (res != VXR_OK) break;
        memcpy(d->used, need, sizeof d->used);
        d->version = s->model_version[i];
        d->empty = m->voxel_count == 0;
        vxr_octree_changes_taken(m);
        u->info->models++;
    }
    return res;
}

/* ---- tables ---- */

/* Replaces binding b's buffer by one of `bytes` (the old one retired). */
static vxr_result new_table(update *u, uint32_t b, uint64_t bytes) {
    vxr_result res = retire_binding(u->r, b, u->serial, u->err);
    if (res != VXR_OK) return res;
    u->rebind = true;
    return vxr_buf_create(u->r->ctx, bytes,
                          VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &u->r->buf[b], u->err);
}

/* Uploads the records of table b (elem bytes each, `count`) that differ
 * from `old` (all of them with `all`), in runs. */
static vxr_result upload_records(update *u, uint32_t b, const void *now, const void *old,
                                 uint32_t count, size_t elem, bool all, uint32_t *changed) {
    const uint8_t *a = now, *o = old;
    for (uint32_t i = 0; i < count;) {
        if (!all && !memcmp(a + i * elem, o + i * elem, elem)) {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < count && (all || memcmp(a + j * elem, o + j * elem, elem))) j++;
        vxr_result res = upload_table(u, b, i * elem, a + i * elem, (uint64_t)(j - i) * elem);
        if (res != VXR_OK) return res;
        *changed += j - i;
        i = j;
    }
    return VXR_OK;
}

static vxr_result update_models_table(update *u) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    bool all = false;
    vxr_result res;
    uint32_t cap_records = (uint32_t)(r->buf[VXR_BIND_MODELS].size / sizeof(vxr_gpu_model));
    if (s->model_count > cap_records) {
        if ((res = new_table(u, VXR_BIND_MODELS, (uint64_t)r->model_cap * sizeof(vxr_gpu_model))))
            return res;
        all = true;
    }
    vxr_gpu_model *now = malloc(((size_t)s->model_count + 1) * sizeof *now);
    if (!now) return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    for (uint32_t i = 0; i < s->model_count; i++) vxr_renderer_model_record(r, s, i, &now[i]);
    uint32_t changed = 0;
    res = upload_records(u, VXR_BIND_MODELS, now, r->model_rec, s->model_count,
                         sizeof(vxr_gpu_model), all, &changed);
    if (res == VXR_OK) memcpy(r->model_rec, now, (size_t)s->model_count * sizeof *now);
    for (uint32_t i = 0; res == VXR_OK && i < s->model_count; i++)
        vxr_renderer_grow_model(r, &now[i]);
    free(now);
    return res;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The instances to look at, ascending and once each: those on the scene's
 * change list since the last update, the instances of the todo models
 * (their bounds may have moved) and new ones; *every (dest NULL) when the
 * list cannot tell, and each instance must be looked at. */
static vxr_result instances_to_check(update *u, const todo *t, uint32_t n_todo, bool *every,
                                     uint32_t **dest, uint32_t *count) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    const vxr_instance_change *list;
    uint32_t listed, n = s->instance_count, k = 0;
    *dest = NULL;
    *count = 0;
    *every = !vxr_scene_instance_changes(s, r->scene_version, &list, &listed);
    if (*every) return VXR_OK;
    uint32_t models = 0;
    for (uint32_t j = 0; j < n_todo; j++) models += !t[j].removed;
    uint32_t fresh = n > r->instance_count ? n - r->instance_count : 0;
    size_t cap = (size_t)listed + fresh + (models ? n : 0) + 1;
    uint32_t *ids = malloc(cap * sizeof *ids);
    uint8_t *mark = models ? calloc((size_t)s->model_count + 1, 1) : NULL;
    if (!ids || (models && !mark)) {
        free(ids);
        free(mark);
        return vxr_ctx_fail(r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (uint32_t j = 0; j < listed; j++)
        if (list[j].instance < n) ids[k++] = list[j].instance;
    for (uint32_t i = n - fresh; i < n; i++) ids[k++] = i;
    if (models) {
        for (uint32_t j = 0; j < n_todo; j++)
            if (!t[j].removed) mark[t[j].model] = 1;
        for (uint32_t i = 0; i < n; i++)
            if (mark[s->instances[i].model]) ids[k++] = i;
        free(mark);
    }
    qsort(ids, k, sizeof *ids, cmp_u32);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < k; j++)
        if (!kept || ids[j] != ids[kept - 1]) ids[kept++] = ids[j];
    *dest = ids;
    *count = kept;
    return VXR_OK;
}

/* Changed hierarchy nodes this close together go up as one copy, with the
 * nodes between them: fewer copy regions for a few bytes more. */
#define NODE_GAP 4

/* Uploads the entries list[count] (ascending indices into data, elem bytes
 * each) into binding `binding`, in runs: entries at most `gap` apart go up
 * as one copy with those between. *written grows by the entries copied. */
static vxr_result upload_runs(update *u, uint32_t binding, const void *data, size_t elem,
                              const uint32_t *list, uint32_t count, uint32_t gap,
                              uint32_t *written) {
    vxr_result res = VXR_OK;
    for (uint32_t a = 0; a < count && res == VXR_OK;) {
        uint32_t b = a + 1;
        while (b < count && list[b] - list[b - 1] <= gap) b++;
        uint32_t first = list[a], n = list[b - 1] + 1 - first;
        res = upload_table(u, binding, (uint64_t)first * elem, (const uint8_t *)data + first * elem,
                           (uint64_t)n * elem);
        *written += n;
        a = b;
    }
    return res;
}

/* Uploads what the hierarchy's update changed: everything after a build,
 * else the changed nodes and items in runs. */
static vxr_result upload_hierarchy(update *u) {
    vxr_renderer *r = u->r;
    vxr_bvh *h = r->bvh;
    vxr_bvh_changes ch;
    vxr_result res = VXR_OK;
    vxr_bvh_get_changes(h, &ch);
    if (ch.all) {
        if ((res = upload_table(u, VXR_BIND_BVH, 0, h->nodes,
                                (uint64_t)h->node_count * sizeof *h->nodes)) == VXR_OK)
            res = upload_table(u, VXR_BIND_ITEMS, 0, h->items, (uint64_t)h->item_count * 4);
        u->info->bvh_nodes = h->node_count;
        u->info->hierarchy = true;
    } else {
        uint32_t items = 0;
        res = upload_runs(u, VXR_BIND_BVH, h->nodes, sizeof *h->nodes, ch.nodes, ch.node_count,
                          NODE_GAP, &u->info->bvh_nodes);
        if (res == VXR_OK)
            res = upload_runs(u, VXR_BIND_ITEMS, h->items, 4, ch.items, ch.item_count, 4 * NODE_GAP,
                              &items);
        u->info->refit = true;
    }
    if (res == VXR_OK) vxr_bvh_changes_taken(h);
    return res;
}

/* The instance records that differ among those that may have changed
 * (instances_to_check), in runs, and the hierarchy brought up to date:
 * refitted, or built afresh when `hierarchy` (a model appeared or emptied,
 * new tables) or the set of visible instances changed. */
static vxr_result update_instances(update *u, bool hierarchy, const todo *t, uint32_t n_todo) {
    vxr_renderer *r = u->r;
    vxr_scene *s = u->s;
    vxr_context *c = r->ctx;
    vxr_result res = VXR_OK;
    bool all = false;
    if (s->instance_count > r->instance_cap) {
        uint32_t cap = s->instance_count + s->instance_count / 2 + 4;
        if (vxr_bvh_node_bound(cap) * VXR_BVH_TEXELS > c->props.limits.maxTexelBufferElements)
            cap = s->instance_count;
        if (vxr_bvh_node_bound(cap) * VXR_BVH_TEXELS > c->props.limits.maxTexelBufferElements)
            return vxr_ctx_fail(c, u->err, VXR_ERROR_LIMIT,
                                "%u instances: the hierarchy no longer fits one binding",
                                s->instance_count);
        vxr_gpu_instance *p = realloc(r->inst_rec, (size_t)cap * sizeof *p);
        if (!p) return vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
        r->inst_rec = p;
        r->instance_cap = cap;
        if ((res = new_table(u, VXR_BIND_INSTANCES, (uint64_t)cap * sizeof(vxr_gpu_instance))) ||
            (res =
                 new_table(u, VXR_BIND_BVH, vxr_bvh_node_bound(cap) * sizeof(vxr_gpu_bvh_node))) ||
            (res = new_table(u, VXR_BIND_ITEMS, (uint64_t)cap * 4)))
            return res;
        all = hierarchy = true;
    }
    uint32_t n = s->instance_count, k = 0, *check = NULL;
    bool every = false;
    if (!all && (res = instances_to_check(u, t, n_todo, &every, &check, &k)) != VXR_OK) return res;
    every |= all;
    if (every) k = n;
    u->info->instances_checked = k;
    /* the records that differ: ids ascending, their new records */
    vxr_gpu_instance *now = malloc(((size_t)k + 1) * sizeof *now);
    uint32_t *ids = malloc(((size_t)k + 1) * sizeof *ids), m = 0;
    if (!now || !ids) {
        free(check), free(now), free(ids);
        return vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
    }
    for (uint32_t j = 0; j < k; j++) {
        uint32_t i = every ? j : check[j];
        vxr_instance_gpu(s, i, &now[m]);
        if (all || i >= r->instance_count || memcmp(&now[m], &r->inst_rec[i], sizeof now[m]))
            ids[m++] = i;
    }
    free(check);
    for (uint32_t a = 0; a < m && res == VXR_OK;) {
        uint32_t b = a + 1;
        while (b < m && ids[b] == ids[b - 1] + 1) b++;
        res = upload_table(u, VXR_BIND_INSTANCES, (uint64_t)ids[a] * sizeof *now, &now[a],
                           (uint64_t)(b - a) * sizeof *now);
        a = b;
    }
    if (res == VXR_OK) { /* the table is written: the records are the uploaded ones */
        for (uint32_t j = 0; j < m; j++) {
            r->inst_rec[ids[j]] = now[j];
            vxr_renderer_grow_instance(r, &now[j]);
        }
        u->info->instances = m;
        if (n != r->instance_count) hierarchy = true;
        r->instance_count = n;
        if (!r->bvh && !(r->bvh = calloc(1, sizeof *r->bvh)))
            res = vxr_ctx_fail(c, u->err, VXR_ERROR_MEMORY, "out of memory");
        else if (!r->bvh->instance_count && !r->bvh->node_count)
            hierarchy = true; /* none kept (or an empty one): build */
    }
    /* pending node changes (an upload failed before) go up too */
    if (res == VXR_OK && (m || hierarchy || r->bvh->fresh || r->bvh->nodes_changed.count ||
                          r->bvh->items_changed.count)) {
        res = vxr_bvh_update(r->bvh, s, r->inst_rec, ids, m, hierarchy, r->instance_cap, NULL);
        if (res != VXR_OK) { /* the next update builds it */
            vxr_bvh_free(r->bvh);
            res =
                vxr_ctx_fail(c, u->err, res, "the instance hierarchy: %s", vxr_result_string(res));
        } else {
            vxr_renderer_take_hierarchy(r, r->bvh);
            res = upload_hierarchy(u);
        }
    }
    free(now);
    free(ids);
    return res;
}

void vxr_renderer_keep_hierarchy(vxr_renderer *r, struct vxr_bvh *bvh) {
    if (!r->bvh) r->bvh = calloc(1, sizeof *r->bvh);
    if (r->bvh) {
        vxr_bvh_free(r->bvh);
        *r->bvh = *bvh;
        vxr_bvh_changes_taken(r->bvh); /* the caller uploads it whole */
    } else {
        vxr_bvh_free(bvh);
    }
    memset(bvh, 0, sizeof *bvh);
}

/* After a new layout: a descriptor set over the new buffers (the old one
 * retired), and new pipelines when the chunk counts changed. */
static vxr_result rebind(update *u) {
    vxr_renderer *r = u->r;
    vxr_retired d = {.serial = u->serial, .pool = r->pool};
    vxr_result res = retire(r, &d, u->err);
    if (res != VXR_OK) return res;
    r->pool = VK_NULL_HANDLE;
    vxr_spec *sp = &r->spec;
    uint32_t chunks[VXR_SECTIONS];
    for (int k = 0; k < VXR_SECTIONS; k++) chunks[k] = vxr_section_chunks(&r->sec[k]);
    if (chunks[0] != sp->node_chunks || chunks[1] != sp->battr_chunks ||
        chunks[2] != sp->attr_chunks) {
        sp->node_chunks = chunks[0];
        sp->battr_chunks = chunks[1];
        sp->attr_chunks = chunks[2];
        /* the context keeps the old ones: frames in flight may use them */
        if ((res = vxr_renderer_pipelines_make(r, u->err)) != VXR_OK) return res;
    }
    return vxr_renderer_bind(r, u->err);
}

vxr_result vxr_renderer_update(vxr_renderer *r, vxr_scene *s, VkCommandBuffer cmd,
                               vxr_update_info *info, vxr_error *err) {
    double t0 = now_ms();
    vxr_update_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    if (!cmd || s != r->scene || s->attr_size != r->spec.attr_size)
        return vxr_ctx_fail(r->ctx, err, VXR_ERROR_ARGUMENT,
                            "update: needs a command buffer and the scene the renderer was "
                            "created from");
    update u = {.r = r, .s = s, .cmd = cmd, .serial = r->serial + 1, .info = info, .err = err};
    todo *t = NULL;
    uint32_t n = 0;
    bool hierarchy = false;
    vxr_result res = plan_models(&u, &t, &n, &hierarchy);
    if (res != VXR_OK) goto done;
    /* earlier reads (frames recorded or submitted before) and transfers
     * (earlier updates) finish before these writes */
    barrier(&u, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    if ((res = place_todo(&u, t, n)) != VXR_OK) goto done;
    if (info->moved_bytes) /* moves land before the changes on top of them */
        barrier(&u, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    if ((res = upload_models(&u, t, n)) != VXR_OK || (res = update_models_table(&u)) != VXR_OK ||
        (res = update_instances(&u, hierarchy, t, n)) != VXR_OK)
        goto done;
    barrier(&u, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    if (u.rebind && (res = rebind(&u)) != VXR_OK) goto done;
    r->serial = u.serial;
    r->scene_version = s->version;
    vxr_ring *g = &r->ring;
    if (g->buf.buffer) { /* the staging this update used stays until it completed */
        if (g->mark_first + g->mark_count == g->mark_cap) {
            if (g->mark_first) {
                memmove(g->marks, g->marks + g->mark_first, g->mark_count * sizeof *g->marks);
                g->mark_first = 0;
            } else {
                uint32_t cap = g->mark_cap ? g->mark_cap * 2 : 16;
                void *p = realloc(g->marks, cap * sizeof *g->marks);
                if (!p) {
                    res = vxr_ctx_fail(r->ctx, err, VXR_ERROR_MEMORY, "out of memory");
                    goto done;
                }
                g->marks = p;
                g->mark_cap = cap;
            }
        }
        g->marks[g->mark_first + g->mark_count].serial = u.serial;
        g->marks[g->mark_first + g->mark_count].end = g->head;
        g->mark_count++;
    }
    info->serial = u.serial;
done:
    flush(&u);
    free(t);
    info->cpu_ms = now_ms() - t0;
    return res;
}
