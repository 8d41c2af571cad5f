/* Opening any SCENE argument (vxr/formats.h): a world (vxr/world.h) or a
 * file of the format table (core/formats.c). Its own file, above both, so
 * that the world, which reads and writes through the table's files, and
 * the table do not call each other. */
#include <string.h>
#include "internal.h"
#include "vxr/world.h"

static const vxr_format world_format = {"vxr world", VXR_WORLD_INDEX, NULL, 0, NULL, NULL, NULL, 0,
                                        NULL};

/* A world as a source of voxel lists: refused (it holds built octrees). */
static vxr_result world_src(vxr_scene_src *dest, vxr_error *err) {
    vxr_scene_src_init(dest, 1);
    return vxr_fail(err, VXR_ERROR_ARGUMENT, "a world holds built octrees, not voxel lists");
}

vxr_result vxr_scene_src_load(const char *path, vxr_scene_src *dest, vxr_error *err) {
    return vxr_scene_src_load_options(path, NULL, dest, err);
}

vxr_result vxr_scene_src_load_options(const char *path, const vxr_load_options *options,
                                      vxr_scene_src *dest, vxr_error *err) {
    if (path[0] != '@' && vxr_is_world(path)) return world_src(dest, err);
    return vxr_load_any_file(path, options, dest, NULL, NULL, NULL, err);
}

vxr_result vxr_scene_load(const char *path, vxr_scene **dest, vxr_error *err) {
    return vxr_scene_load_format(path, dest, NULL, err);
}

vxr_result vxr_scene_load_format(const char *path, vxr_scene **dest, const vxr_format **format,
                                 vxr_error *err) {
    return vxr_scene_load_survey(path, dest, format, NULL, err);
}

vxr_result vxr_scene_load_survey(const char *path, vxr_scene **dest, const vxr_format **format,
                                 vxr_file_survey *survey, vxr_error *err) {
    return vxr_scene_load_options(path, NULL, dest, format, survey, err);
}

vxr_result vxr_scene_load_options(const char *path, const vxr_load_options *options,
                                  vxr_scene **dest, const vxr_format **format,
                                  vxr_file_survey *survey, vxr_error *err) {
    *dest = NULL;
    if (path[0] != '@' && vxr_is_world(path)) {
        if (format) *format = &world_format;
        if (survey) memset(survey, 0, sizeof *survey);
        return vxr_world_load(path, dest, err);
    }
    vxr_scene_src src;
    vxr_result r = vxr_load_any_file(path, options, &src, dest, format, survey, err);
    if (r == VXR_OK && !*dest) r = vxr_scene_build(&src, dest, err);
    vxr_scene_src_free(&src);
    return r;
}
