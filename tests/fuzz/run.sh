#!/bin/sh
# Runs each loader fuzzer for SECONDS (default 60) over a seed corpus made
# from tests/data: .vox files for fuzz_vox, .vl32 for fuzz_vl32, and .vxo
# files written by `vxr convert` for fuzz_vxo. Exits non-zero when any
# fuzzer finds a crash, a leak, undefined behaviour or a timeout; the
# reproducer is left in BUILD/fuzz/artifacts.
#
#   tests/fuzz/run.sh [SECONDS] [BUILD]    (BUILD defaults to build-fuzz)
set -u
seconds=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${2:-$src/build-fuzz}" && pwd) || exit 2
work=$build/fuzz
data=$src/tests/data
mkdir -p "$work/artifacts"
for name in vox vl32 vxo; do
    if [ ! -x "$build/tests/fuzz/fuzz_$name" ]; then
        echo "run.sh: $build/tests/fuzz/fuzz_$name is missing (configure with -DVXR_FUZZ=ON)" >&2
        exit 2
    fi
    mkdir -p "$work/seeds/$name" "$work/corpus/$name"
done

cp "$data"/*.vox "$work/seeds/vox/"
cp "$data"/*.vl32 "$work/seeds/vl32/"
if [ -x "$build/tools/vxr" ]; then
    for f in mmmm__chr_robot.vox mmmm__obj_candle.vox vengi__8ontop.vox vengi__rgb_small.vox \
             ogt__test_multiple_model_scene.vox voxelio__debug.vox voxelio__debug.vl32; do
        "$build/tools/vxr" convert "$data/$f" "$work/seeds/vxo/${f%.*}.vxo" || exit 2
    done
else
    echo "run.sh: no $build/tools/vxr (configure with -DVXR_BUILD_TOOLS=ON): no .vxo seeds" >&2
fi

status=0
for name in vox vl32 vxo; do
    echo "== fuzz_$name: $seconds s"
    "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -max_len=2000000 -timeout=20 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" \
        "$work/corpus/$name" "$work/seeds/$name" 2>"$work/fuzz_$name.log"
    rc=$?
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)' \
        "$work/fuzz_$name.log"
    if [ $rc -ne 0 ]; then
        echo "fuzz_$name failed (exit $rc): see $work/fuzz_$name.log and $work/artifacts" >&2
        status=1
    fi
done
exit $status
