#!/usr/bin/env python3
"""Camera paths for `vxr bench world` (BENCHMARKS.md, issue 31): a flight at
a fixed height over a terrain, looking ahead and down, one camera a line
("ex ey ez tx ty tz").

  python3 tools/world_path.py long  > path.txt   # 2,000 frames, 8,000 units along x
  python3 tools/world_path.py local > path.txt   # the same flight, back and forth
                                                  # within 250 units of the middle
"""
import math
import sys


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "long"
    if kind not in ("long", "local"):
        sys.exit("usage: world_path.py long|local")
    for i in range(2000):
        if kind == "long":
            x, heading = -4000.0 + 4.0 * i, 1.0
        else:  # a triangle wave over [-250, 250], 4 units a frame
            p = (4.0 * i) % 1000.0
            x, heading = (-250.0 + p, 1.0) if p < 500.0 else (750.0 - p, -1.0)
        y = 300.0 * math.sin(i / 200.0) if kind == "long" else 100.0 * math.sin(i / 200.0)
        print("%g %g %g %g %g %g" % (x, y, 220.0, x + 200.0 * heading, y, 60.0))


if __name__ == "__main__":
    main()
