#!/usr/bin/env python3
"""Where lavapipe's JIT code spends a command's time: perf samples of the
shaders llvmpipe compiles, by function and by kind of instruction.

    python3 tools/lvp_profile.py [--freq HZ] [--top N] -- COMMAND ...

perf sees llvmpipe's shaders only as anonymous executable memory, so
while the command runs this script copies each such mapping out of the
process (gdb) as it appears, then disassembles the copies (objdump) and
attributes perf's samples to them. A shader is one large function plus
small ones that it calls for texel fetches (lavapipe 22.3: each compares
the index against the texel count of its descriptor, `vpcmpltd
OFF(%rdi)`, whose offset names the binding). A sample is counted against
the instruction before the one perf reports (skid). Needs perf, gdb and
objdump; run it as a user that may attach to its own children.
"""
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile
import time


def dump_regions(pid, out, seen):
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
    except OSError:
        return
    for line in maps:
        f = line.split()
        if len(f) == 5 and f[1] == "r-xp" and f[4] == "0":
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if lo in seen:
                continue
            path = os.path.join(out, f"{lo:x}-{hi:x}.bin")
            r = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex",
                                f"dump binary memory {path} {lo:#x} {hi:#x}"],
                               capture_output=True)
            if r.returncode == 0 and os.path.exists(path):
                seen[lo] = (hi, path)


def disassemble(lo, path):
    text = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64",
                           f"--adjust-vma={lo:#x}", path],
                          capture_output=True, text=True).stdout
    ins = []
    for line in text.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
        if m and m.group(2).strip():
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    return ins


def functions(ins):
    starts = [ins[0][0]]
    for i, (_, t) in enumerate(ins):
        if t.startswith("ret"):
            j = i + 1
            while j < len(ins) and ins[j][1].startswith(("nop", "data16", "cs nop", "int3", "(bad)")):
                j += 1
            if j < len(ins):
                starts.append(ins[j][0])
    return sorted(set(starts))


def kind(t):
    if "(%rsp" in t or "(%rbp" in t:
        return "stack (spills, per-lane arrays)"
    if "gather" in t or "(%r" in t:
        return "memory"
    if re.match(r"v?(div|sqrt)", t):
        return "division, square root"
    return "other"


def main():
    args = sys.argv[1:]
    freq, top = 2000, 12
    while args and args[0] != "--":
        if args[0] == "--freq":
            freq = int(args[1])
        elif args[0] == "--top":
            top = int(args[1])
        else:
            sys.exit(f"lvp_profile: unknown option {args[0]!r}")
        args = args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix="lvp_profile.")
    data = os.path.join(tmp, "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-F", str(freq), "-o", data, "--"] + args[1:])
    seen, child = {}, None
    while perf.poll() is None:
        if child is None:
            kids = subprocess.run(["pgrep", "-P", str(perf.pid)], capture_output=True,
                                  text=True).stdout.split()
            child = int(kids[0]) if kids else None
        if child is not None:
            dump_regions(child, tmp, seen)
        time.sleep(0.3)
    if perf.returncode != 0:
        sys.exit(f"lvp_profile: perf record exited with {perf.returncode}")
    samples = collections.Counter()
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                         text=True).stdout
    for line in out.split():
        samples[int(line, 16)] += 1
    total = sum(samples.values())
    regions = sorted(seen.items())
    print(f"{total} samples; {len(regions)} JIT regions copied (in {tmp})")
    for lo, (hi, path) in regions:
        hits = {a: n for a, n in samples.items() if lo <= a < hi}
        n = sum(hits.values())
        if n < total / 100:
            continue
        ins = disassemble(lo, path)
        if not ins:
            continue
        addrs = [a for a, _ in ins]
        starts = functions(ins)
        print(f"\nregion {lo:#x} ({hi - lo} bytes): {n} samples, {100 * n / total:.1f}% of all")
        per_fn, mix = collections.Counter(), collections.defaultdict(collections.Counter)
        at = collections.Counter()
        for a, c in hits.items():
            f = starts[bisect.bisect_right(starts, a) - 1]
            per_fn[f] += c
            k = max(bisect.bisect_left(addrs, a) - 1, 0)
            at[k] += c
            mix[f][kind(ins[k][1])] += c
        for s, c in per_fn.most_common(top):
            i = bisect.bisect_left(addrs, s)
            end = starts[bisect.bisect_right(starts, s)] if s != starts[-1] else hi
            desc = next((m.group(1) for _, t in ins[i:bisect.bisect_left(addrs, end)]
                         for m in [re.search(r"vpcmpltd (0x[0-9a-f]+)\(%rdi\)", t)] if m), None)
            what = f"texel fetch, descriptor offset {desc}" if desc else ""
            print(f"  function {s:#x} ({end - s} bytes) {100 * c / n:5.1f}%  {what}")
            if c >= n / 10:
                print("    by instruction kind: " +
                      ", ".join(f"{k} {100 * m / c:.1f}%" for k, m in mix[s].most_common()))
        for k, c in at.most_common(top):
            print(f"  {100 * c / n:5.1f}%  {ins[k][0]:#x}  {ins[k][1]}")


if __name__ == "__main__":
    main()
