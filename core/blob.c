/* The GPU blob of a scene: one read-only linear layout with offsets instead
 * of pointers (shaders/vxr_layout.h). */
#include <string.h>
#include "internal.h"
#include "vxr/blob.h"

typedef struct blob_plan {
    size_t models, instances, palette, nodes, brick_attr, attrs, end;
    uint64_t node_count, battr_count, attr_bytes;
} blob_plan;

static size_t align16(size_t v) {
    return (v + 15) & ~(size_t)15;
}

static void plan(const vxr_scene *s, blob_plan *p) {
    memset(p, 0, sizeof *p);
    for (uint32_t i = 0; i < s->model_count; i++) {
        const vxr_octree *m = &s->models[i];
        p->node_count += m->node_count;
        p->battr_count += vxr_octree_battr_count(m);
        p->attr_bytes += (uint64_t)vxr_octree_attr_count(m) * s->attr_size;
    }
    p->models = align16(sizeof(vxr_blob_header));
    p->instances = align16(p->models + s->model_count * sizeof(vxr_gpu_model));
    p->palette = align16(p->instances + s->instance_count * sizeof(vxr_gpu_instance));
    p->nodes = align16(p->palette + VXR_PALETTE_SIZE * sizeof(uint32_t));
    p->brick_attr = align16(p->nodes + p->node_count * sizeof(vxr_node));
    p->attrs = align16(p->brick_attr + p->battr_count * sizeof(uint32_t));
    p->end = align16(p->attrs + p->attr_bytes);
}

size_t vxr_scene_blob_size(const vxr_scene *s) {
    blob_plan p;
    plan(s, &p);
    return p.end;
}

void vxr_gpu_model_record(const vxr_octree *m, uint32_t node_base, uint32_t battr_base,
                          uint32_t attr_base, vxr_gpu_model *dest) {
    memset(dest, 0, sizeof *dest);
    memcpy(dest->origin, m->origin, sizeof dest->origin);
    dest->depth = m->depth;
    dest->node_base = node_base;
    dest->brick_base = node_base + vxr_octree_battr_offset(m);
    /* brick node n (model-relative) finds its base at brick_attr_base + n */
    dest->brick_attr_base = battr_base - vxr_octree_battr_offset(m);
    dest->attr_base = attr_base;
    dest->node_count = m->node_count;
    dest->brick_count = m->brick_count;
    dest->voxel_count = m->voxel_count;
    dest->attr_size = m->attr_size;
}

void vxr_scene_write_blob(const vxr_scene *s, void *dest) {
    blob_plan p;
    plan(s, &p);
    uint8_t *out = dest;
    memset(out, 0, p.end);
    vxr_blob_header h = {0};
    h.magic = VXR_BLOB_MAGIC;
    h.version = VXR_BLOB_VERSION;
    h.blob_bytes = (uint32_t)p.end;
    h.model_count = s->model_count;
    h.instance_count = s->instance_count;
    h.node_count = (uint32_t)p.node_count;
    h.brick_count = (uint32_t)p.battr_count;
    h.attr_size = s->attr_size;
    h.palette_count = VXR_PALETTE_SIZE;
    h.models_offset = (uint32_t)p.models;
    h.instances_offset = (uint32_t)p.instances;
    h.palette_offset = (uint32_t)p.palette;
    h.nodes_offset = (uint32_t)p.nodes;
    h.brick_attr_offset = (uint32_t)p.brick_attr;
    h.attrs_offset = (uint32_t)p.attrs;
    memcpy(out, &h, sizeof h);
    size_t node = 0, battr = 0, attr = 0;
    for (uint32_t i = 0; i < s->model_count; i++) {
        const vxr_octree *m = &s->models[i];
        const size_t battrs = vxr_octree_battr_count(m), attrs = vxr_octree_attr_count(m);
        vxr_gpu_model g;
        vxr_gpu_model_record(m, (uint32_t)node, (uint32_t)battr, (uint32_t)attr, &g);
        memcpy(out + p.models + i * sizeof g, &g, sizeof g);
        if (m->node_count == 0) continue;
        memcpy(out + p.nodes + node * sizeof(vxr_node), m->nodes, m->node_count * sizeof(vxr_node));
        memcpy(out + p.brick_attr + battr * 4, m->brick_attr, battrs * sizeof(uint32_t));
        memcpy(out + p.attrs + attr, m->attrs, attrs * m->attr_size);
        node += m->node_count;
        battr += battrs;
        attr += attrs * m->attr_size;
    }
    for (uint32_t i = 0; i < s->instance_count; i++) {
        vxr_gpu_instance g;
        vxr_instance_gpu(s, i, &g);
        memcpy(out + p.instances + i * sizeof g, &g, sizeof g);
    }
    memcpy(out + p.palette, s->palette, sizeof s->palette);
}
