/* Where models live on the GPU: the elements each model needs in the
 * five octree sections (the fifth its wide form), first-fit ranges of a
 * section with room to grow, chunk sizes, the model table record of a
 * placed model, and the bounds on coordinates the beam pre-pass takes
 * into account. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "vxr/blob.h"
#include "vxr/bvh.h"

/* Elements per chunk: the largest power of two of elem-byte elements in one
 * binding of `limit` bytes and at most max_texels texels. */
uint32_t vxr_chunk_shift(uint64_t limit, uint32_t elem, uint64_t max_texels) {
    uint64_t per = limit / elem;
    if (per > max_texels) per = max_texels;
    uint32_t shift = 0;
    while (shift < 31 && (2ull << shift) <= per) shift++;
    return shift;
}

uint32_t vxr_chunk_count(uint64_t count, uint32_t shift) {
    uint64_t per = 1ull << shift;
    uint64_t n = (count + per - 1) / per;
    return n ? (uint32_t)(n > 0xffffffffu ? 0xffffffffu : n) : 1u;
}

uint32_t vxr_section_chunks(const vxr_section *sec) {
    return vxr_chunk_count(sec->capacity, sec->shift);
}

uint64_t vxr_section_limit(const vxr_section *sec, int k) {
    uint64_t limit = (uint64_t)sec->bindings << sec->shift;
    uint64_t bases = k == VXR_SEC_ATTRS ? 1ull << 30 : UINT32_MAX;
    return limit < bases ? limit : bases;
}

void vxr_model_needs(const vxr_renderer *r, const vxr_octree *m, uint64_t need[VXR_SECTIONS]) {
    need[VXR_SEC_NODES] = m->node_count;
    need[VXR_SEC_BATTR] = m->node_count ? vxr_octree_battr_count(m) : 0;
    need[VXR_SEC_ATTRS] =
        m->node_count ? ((uint64_t)vxr_octree_attr_count(m) * m->attr_size + 3) / 4 : 0;
    need[VXR_SEC_COLORS] = m->node_count;
    need[VXR_SEC_WIDE] = m->live || r->wide_off ? 0 : vxr_octree_wide_count(m); /* walked without */
}

vxr_result vxr_renderer_wide(vxr_renderer *r, const vxr_scene *s, uint32_t i,
                             const vxr_wide_node **dest) {
    const vxr_octree *m = &s->models[i];
    if (m->wide && !m->live) { /* made beside the tree */
        *dest = m->wide;
        return VXR_OK;
    }
    if (!r->wide || r->wide_model != i || r->wide_version != s->model_version[i]) {
        free(r->wide);
        r->wide = NULL;
        uint32_t count;
        vxr_result res = vxr_octree_wide(&s->models[i], &r->wide, &count);
        if (res != VXR_OK) return res;
        r->wide_model = i;
        r->wide_version = s->model_version[i];
    }
    *dest = r->wide;
    return VXR_OK;
}

void vxr_renderer_wide_drop(vxr_renderer *r) {
    free(r->wide);
    r->wide = NULL;
}

bool vxr_spec_chunks(vxr_renderer *r) {
    vxr_spec *sp = &r->spec;
    uint32_t *at[VXR_SECTIONS] = {&sp->node_chunks, &sp->battr_chunks, &sp->attr_chunks,
                                  &sp->color_chunks, &sp->wide_chunks};
    bool changed = false;
    for (int k = 0; k < VXR_SECTIONS; k++) {
        uint32_t n = vxr_section_chunks(&r->sec[k]);
        changed |= *at[k] != n;
        *at[k] = n;
    }
    return changed;
}

bool vxr_spec_wide(vxr_renderer *r, const vxr_scene *s) {
    uint32_t wide = !r->wide_off;
    for (uint32_t i = 0; i < s->model_count && wide; i++) wide = s->models[i].live == NULL;
    bool changed = r->spec.wide != wide;
    r->spec.wide = wide;
    return changed;
}

void vxr_model_section(const vxr_octree *m, const vxr_wide_node *wide, const uint32_t *palette,
                       int sec, uint64_t start, uint64_t count, void *dest) {
    uint8_t *out = dest;
    if (!count) return; /* an empty model has no arrays to copy from */
    if (sec == VXR_SEC_WIDE) {
        memcpy(out, wide + start, count * sizeof *wide);
    } else if (sec == VXR_SEC_NODES) {
        memcpy(out, m->nodes + start, count * sizeof(vxr_node));
    } else if (sec == VXR_SEC_BATTR) {
        memcpy(out, m->brick_attr + start, count * 4);
    } else if (sec == VXR_SEC_COLORS) {
        vxr_lod_colors(m, palette, start, count, (uint32_t *)dest);
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
    dest->color_base = (uint32_t)res->base[VXR_SEC_COLORS];
    dest->wide_base = (uint32_t)res->base[VXR_SEC_WIDE];
}

/* First fit; false when no free range holds count. */
bool vxr_range_alloc(vxr_section *sec, uint64_t count, uint64_t *start) {
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
void vxr_range_free(vxr_section *sec, uint64_t start, uint64_t count) {
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

/* The range a model gets in section k: what it needs, and half again
 * when it is live (edits grow it; a live model has no wide nodes). */
uint64_t vxr_range_size(const vxr_octree *m, int k, uint64_t need) {
    return m->live && k != VXR_SEC_WIDE ? need + need / 2 + 64 : need;
}

bool vxr_resident_place(vxr_renderer *r, uint32_t i, const vxr_octree *m) {
    vxr_resident *res = &r->res[i];
    uint64_t need[VXR_SECTIONS], base[VXR_SECTIONS];
    vxr_model_needs(r, m, need);
    for (int k = 0; k < VXR_SECTIONS; k++) {
        if (vxr_range_alloc(&r->sec[k], vxr_range_size(m, k, need[k]), &base[k])) continue;
        while (k-- > 0) vxr_range_free(&r->sec[k], base[k], vxr_range_size(m, k, need[k]));
        return false;
    }
    for (int k = 0; k < VXR_SECTIONS; k++) {
        res->base[k] = base[k];
        res->cap[k] = vxr_range_size(m, k, need[k]);
        res->used[k] = need[k];
    }
    res->placed = true;
    res->empty = m->voxel_count == 0;
    return true;
}

void vxr_renderer_grow_instance(vxr_renderer *r, const vxr_gpu_instance *g) {
    const float *m = g->local_to_world;
    float shift = fabsf(m[3]) + fabsf(m[7]) + fabsf(m[11]);
    if (shift > r->mag_shift) r->mag_shift = shift;
    if (g->scale > r->mag_scale) r->mag_scale = g->scale;
    if (!(g->flags & VXR_INSTANCE_HIDDEN) && g->scale < r->min_scale) r->min_scale = g->scale;
}

void vxr_renderer_grow_model(vxr_renderer *r, const vxr_gpu_model *m) {
    float extent = 3.0f * ldexpf(1.0f, (int)(m->depth < 31 ? m->depth : 31));
    for (int k = 0; k < 3; k++) extent += fabsf((float)m->origin[k]);
    if (extent > r->mag_extent) r->mag_extent = extent;
}

float vxr_renderer_magnitude(const vxr_renderer *r) {
    float m = r->mag_shift + r->mag_scale * r->mag_extent;
    return isfinite(m) ? m : 3.0e38f;
}

void vxr_renderer_take_hierarchy(vxr_renderer *r, const vxr_bvh *bvh) {
    r->bvh_nodes = bvh->node_count;
    for (uint32_t level = 0; level < VXR_GRID_LEVELS; level++)
        r->grid_pad[level] = vxr_bvh_grid_pad(bvh, 1u << level);
}
