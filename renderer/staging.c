/* How an update reaches the GPU: copies batched into regions, a staging
 * ring of host-visible memory, GPU moves of models between ranges, new
 * layouts of a section in new buffers, and the objects that must outlive
 * the work that may still read them (retired until vxr_renderer_complete). */
#include <stdlib.h>
#include <string.h>
#include "update.h"
#include "vxr/bvh.h"

vxr_result vxr_retire(vxr_renderer *r, const vxr_retired *what, vxr_error *err) {
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

uint64_t vxr_renderer_version(const vxr_renderer *r) {
    return r->version;
}

uint64_t vxr_renderer_section_bytes(const vxr_renderer *r) {
    uint64_t bytes = 0;
    for (int k = 0; r && k < VXR_SECTIONS; k++) bytes += r->sec[k].capacity * r->sec[k].elem;
    return bytes;
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
    free(r->follow.mark);
    free(r->follow.ids);
    free(r->follow.sp[0]);
    free(r->follow.sp[1]);
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
    vxr_result res = vxr_retire(r, &d, err);
    if (res != VXR_OK) return res;
    memset(&r->buf[b], 0, sizeof r->buf[b]);
    r->view[b] = VK_NULL_HANDLE;
    return VXR_OK;
}

void vxr_update_flush(update *u) {
    if (u->n_regions)
        u->r->ctx->vk.vkCmdCopyBuffer(u->cmd, u->src, u->dst, u->n_regions, u->regions);
    u->n_regions = 0;
}

static void copy(update *u, VkBuffer src, VkDeviceSize src_at, VkBuffer dst, VkDeviceSize dst_at,
                 VkDeviceSize bytes) {
    if (!bytes) return;
    if (u->n_regions && (src != u->src || dst != u->dst || u->n_regions == 64)) vxr_update_flush(u);
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
        vxr_update_flush(u);
        if (g->buf.buffer) {
            vxr_retired d = {.serial = u->serial, .buf = g->buf};
            vxr_result res = vxr_retire(r, &d, u->err);
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
 * section k (or, with data, of those elements) to elements at .. at +
 * count. */
static vxr_result stage(update *u, int k, uint64_t at, uint64_t count, const vxr_octree *m,
                        uint64_t from, const void *data) {
    vxr_renderer *r = u->r;
    const vxr_section *sec = &r->sec[k];
    uint64_t bytes = count * sec->elem;
    if (!count) return VXR_OK;
    uint64_t off;
    vxr_result res = ring_alloc(u, bytes, &off);
    if (res != VXR_OK) return res;
    const vxr_wide_node *wide = NULL;
    if (!data && k == VXR_SEC_WIDE &&
        (res = vxr_renderer_wide(r, u->s, (uint32_t)(m - u->s->models), &wide)) != VXR_OK)
        return vxr_ctx_fail(r->ctx, u->err, res, "the wide nodes of a model: out of memory");
    if (data)
        memcpy((uint8_t *)r->ring.buf.map + off, data, bytes);
    else
        vxr_model_section(m, wide, u->s->palette, k, from, count, (uint8_t *)r->ring.buf.map + off);
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

vxr_result vxr_upload_section(update *u, int k, uint64_t at, uint64_t count, const vxr_octree *m,
                              uint64_t from) {
    return stage(u, k, at, count, m, from, NULL);
}

/* Whether node `node` lies in one of a model's changed spans (sorted,
 * merged): vxr_lod_colors_update's question. */
typedef struct span_set {
    const model_span *sp;
    uint32_t n;
} span_set;

static bool in_spans(void *user, uint32_t node) {
    const span_set *s = user;
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) { /* the first span that ends past node */
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)s->sp[mid].start + s->sp[mid].count <= node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->sp[lo].start <= node;
}

vxr_result vxr_upload_colors(update *u, uint32_t i, const vxr_octree *m, const model_span *sp,
                             uint32_t n_sp) {
    vxr_resident *d = &u->r->res[i];
    const uint64_t n = m->node_count;
    const uint64_t base = d->base[VXR_SEC_COLORS];
    if (sp && d->colors) { /* the changed nodes and their paths alone */
        if (d->color_count < n) {
            uint32_t *grown = realloc(d->colors, n * sizeof *grown);
            if (!grown) return vxr_ctx_fail(u->r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
            memset(grown + d->color_count, 0, (n - d->color_count) * sizeof *grown);
            d->colors = grown;
            d->color_count = n;
        }
        span_set set = {sp, n_sp};
        vxr_lod_colors_update(m, u->s->palette, d->colors, in_spans, &set);
        vxr_result res = VXR_OK;
        for (uint32_t k = 0; k < n_sp && res == VXR_OK; k++) {
            uint64_t a = sp[k].start, b = a + sp[k].count < n ? a + sp[k].count : n;
            if (a < b) res = stage(u, VXR_SEC_COLORS, base + a, b - a, m, a, d->colors + a);
        }
        return res;
    }
    uint32_t *now = malloc((n ? n : 1) * sizeof *now);
    if (!now) return vxr_ctx_fail(u->r->ctx, u->err, VXR_ERROR_MEMORY, "out of memory");
    vxr_lod_colors(m, u->s->palette, 0, n, now);
    vxr_result res = stage(u, VXR_SEC_COLORS, base, n, m, 0, now);
    if (res != VXR_OK) {
        free(now);
        return res;
    }
    free(d->colors);
    d->colors = now;
    d->color_count = n;
    return VXR_OK;
}

/* Records an upload of bytes from data into binding b at byte `at`. */
vxr_result vxr_upload_table(update *u, uint32_t b, uint64_t at, const void *data, uint64_t bytes) {
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
void vxr_move_section(update *u, int k, const vxr_buf *old, uint64_t from, uint64_t to,
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

/* Lays section k out afresh in new buffers of room for the models'
 * ranges (the todo models' at their new sizes) and half again: every
 * placed model's content moves there on the GPU. */
vxr_result vxr_relayout(update *u, int k, const uint64_t *want, vxr_error *err) {
    vxr_renderer *r = u->r;
    vxr_context *c = r->ctx;
    vxr_section *sec = &r->sec[k];
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->model_count; i++)
        if (r->res[i].placed) total += want[i];
    uint64_t limit = vxr_section_limit(sec, k);
    bool drop = k == VXR_SEC_WIDE && total > limit; /* walk as octrees from now on */
    if (drop) {
        r->wide_off = true;
        total = 0;
    }
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
            if ((res = vxr_retire(r, &d, err)) != VXR_OK)
                return res; /* fresh leak: out of memory */
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
        if (drop) m->used[k] = 0;
        vxr_move_section(u, k, old, m->base[k], top, m->used[k]);
        m->base[k] = top;
        m->cap[k] = drop ? 0 : want[i];
        top += m->cap[k];
    }
    free(sec->free);
    sec->free = free_list;
    sec->free[0] = (vxr_range){top, capacity - top};
    sec->free_count = sec->free[0].count ? 1 : 0;
    sec->free_cap = 1;
    sec->capacity = capacity;
    u->r->rebind_due = true;
    u->info->relayout = true;
    return VXR_OK;
}

void vxr_update_barrier(update *u, VkPipelineStageFlags src_stage, VkAccessFlags src,
                        VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
    vxr_update_flush(u);
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src, .dstAccessMask = dst};
    u->r->ctx->vk.vkCmdPipelineBarrier(u->cmd, src_stage, dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Replaces binding b's buffer by one of `bytes` (the old one retired). */
vxr_result vxr_new_table(update *u, uint32_t b, uint64_t bytes) {
    vxr_result res = retire_binding(u->r, b, u->serial, u->err);
    if (res != VXR_OK) return res;
    u->r->rebind_due = true;
    return vxr_buf_create(u->r->ctx, bytes,
                          VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &u->r->buf[b], u->err);
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
