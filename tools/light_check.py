#!/usr/bin/env python3
"""Holds vxr's sun and ambient-occlusion outputs against independent rays.

    python3 tools/light_check.py VXR SCENE [--size WxH] [--eye X,Y,Z --target X,Y,Z]
                                 [--sun AZ,EL] [--ao-radius R] [--pixels N]

Renders SCENE with `--light lit --samples 256 --aov sun --aov ao --hits`,
then, from the world voxels of `vxr convert SCENE x.vl32` (axis-aligned
scenes), casts its own rays with a 3D DDA (Amanatides and Woo 1987) from
each hit pixel's record point: one shadow ray towards the sun (diameter 0)
for every hit pixel, and 256 cosine-weighted occlusion rays (Python's
random numbers, not vxr's) for N random hit pixels. Prints the share of
hit pixels whose sun visibility agrees and the mean bias of the occlusion
(vxr minus independent). The definitions are DESIGN.md's (Light)."""
import json, math, os, random, struct, subprocess, sys, tempfile


def args():
    a = {'size': '256x192', 'sun': '33.690067,58.99728', 'ao-radius': '8', 'pixels': '400'}
    rest = sys.argv[3:]
    for i in range(0, len(rest), 2):
        a[rest[i].lstrip('-')] = rest[i + 1]
    return sys.argv[1], sys.argv[2], a


def load_cells(vxr, scene, work):
    path = os.path.join(work, 'cells.vl32')
    subprocess.run([vxr, 'convert', scene, path], check=True, capture_output=True)
    data = open(path, 'rb').read()
    cells = set()
    for off in range(0, len(data), 16):
        x, y, z, argb = struct.unpack_from('>iiiI', data, off)
        if argb >> 24:
            cells.add((x, y, z))
    return cells


def blocked(cells, lo, hi, p, d, skip, reach):
    """Whether the ray p + t d (|d| = 1), 0 < t <= reach, enters a cell of
    `cells` other than `skip` (DDA through unit cells)."""
    cell = [math.floor(p[k]) for k in range(3)]
    step, tmax, delta = [0] * 3, [math.inf] * 3, [math.inf] * 3
    for k in range(3):
        if d[k] > 0:
            step[k] = 1
            tmax[k] = (cell[k] + 1 - p[k]) / d[k]
            delta[k] = 1 / d[k]
        elif d[k] < 0:
            step[k] = -1
            tmax[k] = (p[k] - cell[k]) / -d[k]
            delta[k] = -1 / d[k]
    t = 0.0
    while t <= reach:
        c = tuple(cell)
        if c != skip and c in cells:
            return True
        k = min(range(3), key=lambda j: tmax[j])
        t = tmax[k]
        cell[k] += step[k]
        if not lo[k] - 1 <= cell[k] <= hi[k] + 1:
            return False
        tmax[k] += delta[k]
    return False


def cosine_dir(n, rng):
    while True:
        x, y = rng.uniform(-1, 1), rng.uniform(-1, 1)
        if x * x + y * y < 1:
            break
    z = math.sqrt(max(0.0, 1 - x * x - y * y))
    a = (1.0, 0.0, 0.0) if abs(n[0]) < 0.9 else (0.0, 1.0, 0.0)
    t = [a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0]]
    tl = math.sqrt(sum(v * v for v in t))
    t = [v / tl for v in t]
    b = [n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]]
    return [x * t[k] + y * b[k] + z * n[k] for k in range(3)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split('\n\n')[1])
    vxr, scene, a = args()
    work = tempfile.mkdtemp(prefix='vxr-light-check-')
    cells = load_cells(vxr, scene, work)
    lo = [min(c[k] for c in cells) for k in range(3)]
    hi = [max(c[k] for c in cells) for k in range(3)]
    cam = ['--eye', a['eye'], '--target', a['target']] if 'eye' in a else []
    hits, sun, ao = (os.path.join(work, n) for n in ('hits.txt', 'sun.bin', 'ao.bin'))
    subprocess.run([vxr, 'render', scene, *cam, '--size', a['size'], '--light', 'lit',
                    '--samples', '256', '--sun', a['sun'] + ',0', '--ao-radius', a['ao-radius'],
                    '--out', os.path.join(work, 'lit.png'), '--hits', hits, '--aov',
                    'sun:' + sun, '--aov', 'ao:' + ao], check=True)
    recs = [json.loads(l) for l in open(hits)]
    svals = struct.unpack('<%df' % len(recs), open(sun, 'rb').read())
    avals = struct.unpack('<%df' % len(recs), open(ao, 'rb').read())
    az, el = (math.radians(float(v)) for v in a['sun'].split(','))
    L = [math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]
    reach = max(hi[k] - lo[k] for k in range(3)) * 2.0 + 4
    agree = total = 0
    faces = []
    for i, r in enumerate(recs):
        if not r['hit'] or r['face'] < 0:
            continue
        n, p = r['normal'], r['point']
        skip = tuple(math.floor(v) for v in r['world_min'])
        q = [p[k] + 1e-4 * n[k] for k in range(3)]
        if sum(n[k] * L[k] for k in range(3)) <= 0:
            want = 0.0
        else:
            want = 0.0 if blocked(cells, lo, hi, q, L, skip, reach) else 1.0
        agree += svals[i] == want
        total += 1
        faces.append((i, n, q, skip))
    rng = random.Random(1)
    sample = rng.sample(faces, min(int(a['pixels']), len(faces)))
    R = float(a['ao-radius'])
    bias = 0.0
    for i, n, q, skip in sample:
        free = sum(not blocked(cells, lo, hi, q, cosine_dir(n, rng), skip, R) for _ in range(256))
        bias += avals[i] - free / 256.0
    print('%s: %s, sun %s: sun visibility agrees on %d of %d hit pixels (%.3f %%); '
          'occlusion (radius %s, 256 samples) over %d pixels: mean bias %+.4f' %
          (scene, a['size'], a['sun'], agree, total, 100.0 * agree / max(1, total), a['ao-radius'],
           len(sample), bias / max(1, len(sample))))


if __name__ == '__main__':
    main()
