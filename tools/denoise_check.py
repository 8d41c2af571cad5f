#!/usr/bin/env python3
"""The denoiser against the samples it stands in for.

    python3 tools/denoise_check.py VXR SCENE [--size WxH] [--light lit|path]
                                   [--reference N] [render options...]

Renders SCENE (the same camera and light each time) with N samples (the
reference, default 1024), with 16 samples raw, and with 1 sample denoised,
and prints the RMSE (8-bit sRGB codes, all channels) of the last two
against the reference."""
import os, struct, subprocess, sys, tempfile, zlib


def read_png(path):
    """RGBA8 pixels of an 8-bit RGBA or RGB PNG (every filter type)."""
    data = open(path, 'rb').read()
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack_from('>I4s', data, pos)
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack_from('>IIBB', body)
            bpp = 4 if ctype == 6 else 3
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, out, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return b''.join(out), bpp


def rmse(a, b):
    (pa, bpp), (pb, _) = a, b
    total = n = 0
    for i in range(0, len(pa), bpp):
        for c in range(3):
            d = pa[i + c] - pb[i + c]
            total += d * d
            n += 1
    return (total / n) ** 0.5


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split('\n\n')[1])
    vxr, scene, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    ref = '1024'
    if '--reference' in rest:
        i = rest.index('--reference')
        ref = rest[i + 1]
        del rest[i:i + 2]
    if '--size' not in rest:
        rest += ['--size', '320x240']
    if '--light' not in rest:
        rest += ['--light', 'lit']
    work = tempfile.mkdtemp(prefix='vxr-denoise-')
    shots = {}
    for name, opts in (('reference', ['--samples', ref]), ('raw16', ['--samples', '16']),
                       ('denoised1', ['--samples', '1', '--denoise'])):
        path = os.path.join(work, name + '.png')
        subprocess.run([vxr, 'render', scene, *rest, *opts, '--out', path], check=True)
        shots[name] = read_png(path)
    r16, d1 = rmse(shots['raw16'], shots['reference']), rmse(shots['denoised1'], shots['reference'])
    print('%s (%s): RMSE against %s samples: raw 16 samples %.2f, denoised 1 sample %.2f (%s)' %
          (scene, ' '.join(rest), ref, r16, d1, 'lower' if d1 < r16 else 'NOT lower'))


if __name__ == '__main__':
    main()
