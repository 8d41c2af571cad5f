#!/bin/sh
# Runs each fuzz target for SECONDS (default 45) with its dictionary
# (tests/fuzz/<dict>.dict) over its seed corpus: the small files kept in
# tests/fuzz/corpus/<target>/, plus the files of tests/data its loader
# reads (fuzz_vox, fuzz_vox_pick and fuzz_mesh: .vox; fuzz_westwood: .vxl;
# fuzz_slab6: SLAB6's .vox; fuzz_litematic: .litematic unzipped, as it
# fuzzes the NBT within; the others their own extension), and for fuzz_vxo
# .vxo files written by `vxr convert` from tests/data when BUILD has the
# tool. New inputs go to BUILD/fuzz/corpus/<target>/ (kept between runs).
# Exits non-zero when any fuzzer finds a crash, a leak, undefined
# behaviour or a timeout; the reproducer is left in BUILD/fuzz/artifacts.
#
#   tests/fuzz/run.sh [SECONDS] [BUILD] [TARGET...]
#
# BUILD defaults to build-fuzz; TARGETs (vox vl32 qb binvox cub qbt qbcl
# gox vxm westwood aos litematic schematic kvx kv6 slab6 vxo spec vox_pick mesh
# edit scene text world chunk, the default being all) pick a subset. FUZZ_RUNS=N runs
# each target for N executions (with SECONDS 0: no time limit);
# FUZZ_JOBS=N runs N fuzzing processes per target (libFuzzer -fork);
# FUZZ_MAX_LEN=N caps the input size (longer seeds are cut), for long runs
# at a steadier speed.
set -u
seconds=${1:-45}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${2:-$src/build-fuzz}" && pwd) || exit 2
[ $# -ge 2 ] && shift 2 || shift $#
targets=${*:-vox vl32 qb binvox cub qbt qbcl gox vxm westwood aos litematic schematic kvx kv6 slab6 vxo spec vox_pick mesh edit scene text world chunk}
runs=${FUZZ_RUNS:--1}
jobs=${FUZZ_JOBS:-1}
fuzz=$src/tests/fuzz
work=$build/fuzz
data=$src/tests/data
mkdir -p "$work/artifacts"

dict_of() { case $1 in vox_pick | mesh) echo vox ;; *) echo "$1" ;; esac; }
max_len_of() {
    case $1 in
    spec) echo 64 ;;
    edit) echo 4096 ;;
    scene) echo 513 ;; # 64 records of 8 bytes after the setup byte
    text) echo 8192 ;;
    world) echo 4096 ;;
    chunk) echo 65536 ;;
    mesh) echo 65536 ;; # small scenes: meshes are checked by brute force
    *) echo "${FUZZ_MAX_LEN:-2000000}" ;;
    esac
}

for name in $targets; do
    if [ ! -x "$build/tests/fuzz/fuzz_$name" ]; then
        echo "run.sh: $build/tests/fuzz/fuzz_$name is missing (configure with -DVXR_FUZZ=ON)" >&2
        exit 2
    fi
    mkdir -p "$work/seeds/$name" "$work/corpus/$name"
    if [ -d "$fuzz/corpus/$name" ]; then cp "$fuzz/corpus/$name"/* "$work/seeds/$name/"; fi
done

for name in $targets; do
    case $name in
    vox | vox_pick | mesh) cp "$data"/*.vox "$work/seeds/$name/" ;;
    vl32) cp "$data"/*.vl32 "$work/seeds/vl32/" ;;
    qb) cp "$data"/*.qb "$work/seeds/qb/" ;;
    binvox) cp "$data"/*.binvox "$work/seeds/binvox/" ;;
    cub) cp "$data"/*.cub "$work/seeds/cub/" ;;
    qbt) cp "$data"/*.qbt "$work/seeds/qbt/" ;;
    qbcl) cp "$data"/*.qbcl "$work/seeds/qbcl/" ;;
    gox) cp "$data"/*.gox "$work/seeds/gox/" ;;
    vxm) cp "$data"/*.vxm "$work/seeds/vxm/" ;;
    westwood) cp "$data"/*.vxl "$work/seeds/westwood/" ;;
    litematic)
        for f in "$data"/*.litematic; do
            gzip -dc "$f" > "$work/seeds/litematic/$(basename "$f" .litematic).nbt" || exit 2
        done ;;
    kvx) cp "$data"/*.kvx "$work/seeds/kvx/" ;;
    kv6) cp "$data"/*.kv6 "$work/seeds/kv6/" ;;
    slab6) cp "$data"/vengi__slab6_vox_test.vox "$work/seeds/slab6/" ;;
    vxo)
        if [ -x "$build/tools/vxr" ]; then
            for f in mmmm__chr_robot.vox mmmm__obj_candle.vox vengi__8ontop.vox \
                     vengi__rgb_small.vox ogt__test_multiple_model_scene.vox voxelio__debug.vox \
                     voxelio__debug.vl32; do
                "$build/tools/vxr" convert "$data/$f" "$work/seeds/vxo/${f%.*}.vxo" || exit 2
            done
        fi ;;
    esac
done

status=0
for name in $targets; do
    echo "== fuzz_$name: $seconds s, dictionary $(dict_of "$name").dict"
    fork=""
    [ "$jobs" -gt 1 ] && fork="-fork=$jobs -ignore_crashes=0"
    # fuzz_text's readers print every refusal on stderr: closed (libFuzzer
    # keeps its own output and the sanitizers' reports on a copy).
    quiet=""
    [ "$name" = text ] && quiet="-close_fd_mask=2"
    # shellcheck disable=SC2086
    "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -runs="$runs" \
        -max_len="$(max_len_of "$name")" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
        -dict="$fuzz/$(dict_of "$name").dict" -artifact_prefix="$work/artifacts/$name-" \
        $fork $quiet \
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
