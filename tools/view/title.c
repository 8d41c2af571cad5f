/* vxr view's words: the window title's readout (frame and GPU times
 * averaged over TITLE_SECONDS), resident memory samples, and the summary a
 * --frames run prints (main.c calls them). */
#include <string.h>
#include <unistd.h>
#include "app.h"

#define TITLE_SECONDS 0.25 /* between title updates */

static const char *const face_names[6] = {"left", "right", "front", "back", "top", "bottom"};

void view_readout(const app *a, char *dest, size_t size) {
    const vxr_pick *p = &a->pick;
    int n = snprintf(dest, size, "vxr view | %s | %.1f ms", a->scene_name, a->frame_ms);
    if (a->gpu_ms > 0) n += snprintf(dest + n, size - (size_t)n, ", GPU %.2f ms", a->gpu_ms);
    n += snprintf(dest + n, size - (size_t)n, " | %s", cli_light_name(a->light.model));
    if (a->world) {
        const vxr_world_status *w = &a->world_status;
        n += snprintf(dest + n, size - (size_t)n, " | chunks %u resident, %u wanted", w->resident,
                      w->wanted);
        if (w->coarse) n += snprintf(dest + n, size - (size_t)n, " (%u coarse)", w->coarse);
        if (w->missing)
            n += snprintf(dest + n, size - (size_t)n, " (%u not loaded yet or coarser than wanted)",
                          w->missing);
        if (w->unsaved)
            n += snprintf(dest + n, size - (size_t)n, ", %u edited (Ctrl+S writes back)",
                          w->unsaved);
        vxr_memory_info m;
        if (a->renderer) { /* (the --frames summary comes after it is gone) */
            vxr_context_memory(a->vk.gpu.ctx, &m);
            n += snprintf(dest + n, size - (size_t)n, ", GPU %.0f MiB",
                          (double)m.device_local_used / (1 << 20));
            if (a->args->budget)
                n += snprintf(dest + n, size - (size_t)n, " of --budget %.0f MiB",
                              (double)a->args->budget / (1 << 20));
        }
    }
    if (a->light.model != VXR_LIGHT_FLAT)
        n += snprintf(dest + n, size - (size_t)n, " %u spp%s", a->samples,
                      a->denoised ? " denoised" : "");
    n += snprintf(dest + n, size - (size_t)n, " | %u/%u visible%s | grid %u%s", a->visible,
                  a->scene->instance_count, a->cull ? "" : " (cull off)", a->grid,
                  a->fly ? " | fly" : "");
    if (p->hit)
        n += snprintf(dest + n, size - (size_t)n,
                      " | instance %u %s %d,%d,%d face %d%s%s corner %d edge %d colour "
                      "#%02x%02x%02x t %.3f",
                      p->instance, p->size > 1 ? "cube" : "voxel", p->voxel[0], p->voxel[1],
                      p->voxel[2], p->face, p->face >= 0 ? " " : "",
                      p->face >= 0 ? face_names[p->face] : "", p->corner, p->edge, p->color & 255u,
                      p->color >> 8 & 255u, p->color >> 16 & 255u, (double)p->t);
    view_edit_readout(a, dest + n, size - (size_t)n);
    n += (int)strlen(dest + n);
    if (a->message[0] && glfwGetTime() < a->message_until)
        snprintf(dest + n, size - (size_t)n, " | %s", a->message);
}

/* After --frames: the readout, or with --json the last pick record (as
 * `vxr pick` prints it) and a line with the scene, the window, the camera
 * (eye and target round-trip as floats), the mean frame and GPU times
 * after the first two frames, edit mode's undo and redo depths, and the
 * lowest and highest resident memory after the warm-up (KiB). */
void view_print_summary(const app *a) {
    if (!a->args->r.json) {
        char line[1024];
        view_readout(a, line, sizeof line);
        printf("%s\n", line);
        return;
    }
    cli_print_pick(stdout, &a->pick);
    const float *e = a->cam.eye, *t = a->cam.target;
    uint32_t undo = 0, redo = 0;
    if (a->editor) vxr_editor_depth(a->editor, &undo, &redo, NULL);
    printf("{\"scene\":\"");
    cli_print_json_string(stdout, a->scene_name);
    printf("\",\"width\":%u,\"height\":%u,\"grid\":%u,\"visible\":%u,\"instances\":%u,"
           "\"cull\":%s,\"eye\":[%.9g,%.9g,%.9g],\"target\":[%.9g,%.9g,%.9g],\"fov\":%.9g,"
           "\"frame_ms\":%.3f,\"gpu_ms\":%.3f,\"edit\":%s,\"undo\":%u,\"redo\":%u,"
           "\"rss_min_kb\":%llu,\"rss_max_kb\":%llu,\"light\":\"%s\",\"samples\":%u,"
           "\"denoised\":%s,\"sun\":[%.9g,%.9g,%.9g],\"ao_radius\":%.9g}\n",
           a->cam.width, a->cam.height, a->grid, a->visible, a->scene->instance_count,
           a->cull ? "true" : "false", (double)e[0], (double)e[1], (double)e[2], (double)t[0],
           (double)t[1], (double)t[2], (double)a->cam.fov_deg,
           a->all_frame_n ? 1e3 * a->all_frame_sum / a->all_frame_n : a->frame_ms,
           a->all_gpu_n ? a->all_gpu_sum / a->all_gpu_n : a->gpu_ms, a->editing ? "true" : "false",
           undo, redo, (unsigned long long)a->rss_min_kb, (unsigned long long)a->rss_max_kb,
           cli_light_name(a->light.model), a->samples, a->denoised ? "true" : "false",
           (double)a->light.sun_azimuth, (double)a->light.sun_elevation,
           (double)a->light.sun_diameter, (double)a->light.ao_radius);
}

void view_update_title(app *a, double now) {
    a->frame_n++;
    a->frame_sum += now - a->last_time;
    if (a->frame_index++ >= 2) {
        a->all_frame_sum += now - a->last_time;
        a->all_frame_n++;
    }
    a->last_time = now;
    if (now < a->title_at) return;
    a->title_at = now + TITLE_SECONDS;
    if (a->frame_n) a->frame_ms = 1e3 * a->frame_sum / a->frame_n;
    if (a->gpu_n) a->gpu_ms = a->gpu_sum / a->gpu_n;
    a->frame_sum = a->gpu_sum = 0;
    a->frame_n = a->gpu_n = 0;
    char title[1024];
    view_readout(a, title, sizeof title);
    glfwSetWindowTitle(a->window, title);
}

/* Resident memory in KiB (Linux's /proc/self/statm), 0 where unknown. */
static uint64_t rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, resident = 0;
    bool ok = f && fscanf(f, "%llu %llu", &size, &resident) == 2;
    if (f) fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? resident * (uint64_t)page / 1024 : 0;
}

/* Samples resident memory after a shown frame, once the warm-up is over. */
void view_sample_rss(app *a, long shown_frames) {
    if (!a->args->frames || shown_frames < a->args->frames / 10) return;
    uint64_t kb = rss_kb();
    if (!kb) return;
    if (!a->rss_min_kb || kb < a->rss_min_kb) a->rss_min_kb = kb;
    if (kb > a->rss_max_kb) a->rss_max_kb = kb;
}
