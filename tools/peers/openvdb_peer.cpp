/* The OpenVDB peer of `vxr bench` (peer.h): grids built the way a user of
 * OpenVDB 10 would, and first hits through its ray intersector. */
#include "peers/peer.h"

#include <openvdb/openvdb.h>
#include <openvdb/math/DDA.h>
#include <openvdb/tools/RayIntersector.h>
#include <tbb/global_control.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <vector>

namespace {

using Grid = openvdb::Int32Grid;
using Ray = openvdb::math::Ray<double>;
/* Spans of active leaf nodes (level 0: 8^3 voxels) along a ray. */
using Intersector = openvdb::tools::VolumeRayIntersector<Grid, 0, Ray>;

/* openvdb::initialize() once, and TBB held to one thread for the process:
 * what the peer measures then runs on the caller alone. */
void setup() {
    static const struct Once {
        tbb::global_control one{tbb::global_control::max_allowed_parallelism, 1};
        Once() {
            openvdb::initialize();
        }
    } once;
    (void)once;
}

void fail(char *err, size_t size, const char *what) {
    if (size) std::snprintf(err, size, "OpenVDB: %s", what);
}

/* The integer form of an instance placed on whole cells (the test of
 * core/vl32.c): scale 1, every row of R one +-1, whole translations. */
bool whole_cells(const vxr_transform &x, int R[9], int64_t t[3]) {
    if (x.scale != 1) return false;
    for (int i = 0; i < 3; i++) {
        int nonzero = 0;
        for (int k = 0; k < 3; k++) {
            float v = x.rotation[3 * i + k];
            if (v != 0 && v != 1 && v != -1) return false;
            R[3 * i + k] = static_cast<int>(v);
            nonzero += v != 0;
        }
        float tr = x.translation[i];
        if (nonzero != 1 || tr != std::floor(tr) || std::fabs(tr) > 16777216.0f) return false;
        t[i] = static_cast<int64_t>(tr);
    }
    return true;
}

struct Placer {
    Grid::Accessor *acc;
    int R[9];
    int64_t t[3];
};

/* vxr_octree_foreach's callback: the cell [v, v+1) lands on the world cell
 * whose min is R v + t, less one where the row's sign is negative. */
void place(void *user, int32_t x, int32_t y, int32_t z, uint32_t attr) {
    const Placer &p = *static_cast<const Placer *>(user);
    const int64_t v[3] = {x, y, z};
    int32_t w[3];
    for (int i = 0; i < 3; i++) {
        int64_t c = p.t[i];
        for (int k = 0; k < 3; k++) c += p.R[3 * i + k] * v[k] - (p.R[3 * i + k] < 0);
        w[i] = static_cast<int32_t>(c);
    }
    p.acc->setValue(openvdb::Coord(w[0], w[1], w[2]), static_cast<int32_t>(attr));
}

} // namespace

struct peer_openvdb_grids {
    std::vector<Grid::Ptr> grids;
};

struct peer_openvdb_world {
    Grid::Ptr grid;
    std::unique_ptr<Intersector> intersector; /* null for an empty world */
};

extern "C" peer_openvdb_grids *peer_openvdb_build(const vxr_scene_src *src, char *err,
                                                  size_t err_size) {
    try {
        setup();
        auto g = std::make_unique<peer_openvdb_grids>();
        g->grids.reserve(src->model_count);
        for (uint32_t m = 0; m < src->model_count; m++) {
            Grid::Ptr grid = Grid::create(0);
            Grid::Accessor acc = grid->getAccessor();
            const vxr_model_src &model = src->models[m];
            for (size_t i = 0; i < model.count; i++) {
                const vxr_voxel &v = model.voxels[i];
                acc.setValue(openvdb::Coord(v.x, v.y, v.z), static_cast<int32_t>(v.color));
            }
            g->grids.push_back(grid);
        }
        return g.release();
    } catch (const std::exception &e) {
        fail(err, err_size, e.what());
    }
    return nullptr;
}

extern "C" uint64_t peer_openvdb_bytes(const peer_openvdb_grids *g) {
    uint64_t bytes = 0;
    for (const Grid::Ptr &grid : g->grids) bytes += grid->memUsage();
    return bytes;
}

extern "C" void peer_openvdb_free(peer_openvdb_grids *g) {
    delete g;
}

extern "C" peer_openvdb_world *peer_openvdb_world_create(const vxr_scene *scene, char *err,
                                                         size_t err_size) {
    try {
        setup();
        auto w = std::make_unique<peer_openvdb_world>();
        w->grid = Grid::create(0);
        Grid::Accessor acc = w->grid->getAccessor();
        for (uint32_t i = 0; i < scene->instance_count; i++) {
            const vxr_instance &in = scene->instances[i];
            if (in.flags & (VXR_INSTANCE_HIDDEN | VXR_INSTANCE_CULLED)) continue;
            Placer p;
            p.acc = &acc;
            if (!whole_cells(in.transform, p.R, p.t)) {
                if (err_size)
                    std::snprintf(err, err_size,
                                  "OpenVDB peer: instance %u is not placed on whole cells", i);
                return nullptr;
            }
            vxr_octree_foreach(&scene->models[in.model], place, &p);
        }
        if (!w->grid->empty()) w->intersector = std::make_unique<Intersector>(*w->grid);
        return w.release();
    } catch (const std::exception &e) {
        fail(err, err_size, e.what());
    }
    return nullptr;
}

extern "C" void peer_openvdb_world_destroy(peer_openvdb_world *w) {
    delete w;
}

extern "C" size_t peer_openvdb_first_hits(peer_openvdb_world *w, const vxr_ray *rays, size_t count,
                                          uint8_t *hit) {
    if (!w->intersector) {
        std::memset(hit, 0, count);
        return 0;
    }
    Intersector &ix = *w->intersector;
    Grid::ConstAccessor acc = w->grid->getConstAccessor();
    size_t hits = 0;
    for (size_t i = 0; i < count; i++) {
        const float *o = rays[i].origin, *d = rays[i].dir;
        /* Index space is world space (voxel size 1), from t = 0 on. */
        const Ray ray(openvdb::Vec3d(o[0], o[1], o[2]), openvdb::Vec3d(d[0], d[1], d[2]), 0.0,
                      std::numeric_limits<double>::max());
        bool found = false;
        double t0, t1;
        if (ix.setIndexRay(ray))
            while (!found && ix.march(t0, t1)) {
                /* Voxels in the span, in order (Amanatides and Woo's DDA). */
                openvdb::math::DDA<Ray, 0> dda(ray, t0, t1);
                do found = acc.isValueOn(dda.voxel());
                while (!found && dda.step());
            }
        hit[i] = found;
        hits += found;
    }
    return hits;
}
