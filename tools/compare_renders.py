#!/usr/bin/env python3
"""Holds two vxr binaries' renders against each other, byte for byte.

    python3 tools/compare_renders.py OLD_VXR NEW_VXR [SIZE]

Renders every scene of tests/data, @demo and @world:300 from two views
(around the scene's box, from `vxr info --json`) with grids 1 and 4, each
to a PNG and its --hits records, with both binaries, and compares the
files. Prints each file that differs and a summary; exits 1 when any does.
For refactors that must change nothing a user sees (BENCHMARKS.md)."""
import filecmp, json, os, subprocess, sys, tempfile

def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split('\n\n')[1])
    old, new = (os.path.abspath(p) for p in sys.argv[1:3])
    size = sys.argv[3] if len(sys.argv) == 4 else '200x150'
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    scenes = sorted('tests/data/' + f for f in os.listdir('tests/data')
                    if f.endswith(('.vox', '.vl32', '.vxo'))) + ['@demo', '@world:300']
    work = tempfile.mkdtemp(prefix='vxr-compare-')
    renders = differ = 0
    for scene in scenes:
        info = json.loads(subprocess.run([new, 'info', scene, '--json'], check=True,
                                         capture_output=True, text=True).stdout)
        lo, hi = info['aabb_min'], info['aabb_max']
        c = [(a + b) / 2 for a, b in zip(lo, hi)]
        d = max(1.0, sum((b - a) ** 2 for a, b in zip(lo, hi)) ** 0.5)
        views = [[c[0] + 1.1 * d, c[1] - 0.8 * d, c[2] + 0.6 * d],
                 [c[0] - 0.3 * d, c[1] + 0.9 * d, c[2] + 0.2 * d]]
        for v, eye in enumerate(views):
            for grid in ('1', '4'):
                tag = '%s_view%d_grid%s' % (os.path.basename(scene), v, grid)
                files = {}
                for side, exe in (('old', old), ('new', new)):
                    png, hits = ('%s/%s.%s.%s' % (work, tag, side, ext) for ext in ('png', 'hits'))
                    subprocess.run([exe, 'render', scene, '--eye', ','.join('%g' % x for x in eye),
                                    '--target', ','.join('%g' % x for x in c), '--size', size,
                                    '--grid', grid, '--out', png, '--hits', hits],
                                   check=True, capture_output=True)
                    files[side] = (png, hits)
                renders += 1
                for k, what in enumerate(('PNG', '--hits')):
                    if not filecmp.cmp(files['old'][k], files['new'][k], shallow=False):
                        print('differ: %s %s' % (tag, what))
                        differ += 1
    print('%d renders, %d files compared, %d differ (%s)' % (renders, 2 * renders, differ, work))
    sys.exit(1 if differ else 0)

if __name__ == '__main__':
    main()
