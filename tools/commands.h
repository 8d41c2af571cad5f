/* The commands of `vxr` (DESIGN.md §5), one a file; tools/vxr.c lists them
 * in its table. Each takes the arguments after its name and returns the
 * exit status. */
#ifndef VXR_COMMANDS_H
#define VXR_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_edit(int argc, char **argv);
int cmd_pick(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_pickcheck(int argc, char **argv);
int cmd_spheres_query(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_world_build(int argc, char **argv);
int cmd_bench_build(int argc, char **argv);
int cmd_bench_pick(int argc, char **argv);
int cmd_bench_render(int argc, char **argv);
int cmd_bench_world(int argc, char **argv);
int cmd_bench_spheres(int argc, char **argv);
int cmd_bench_edit(int argc, char **argv);
int cmd_bench_instances(int argc, char **argv);

#endif
