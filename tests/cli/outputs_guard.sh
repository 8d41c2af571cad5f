#!/bin/bash
# Output paths and temporary files (issue 26, items 4, 11 and 12):
#   bash outputs_guard.sh VXR CASE WORK [DATA]
# same_file         two outputs naming one file (same spelling, ./, dir/..,
#                   an absolute path, a symbolic or hard link, a dangling
#                   link, a linked directory) exit 2 with one line naming it
#                   and write nothing; also view's --screenshot and --save
# same_file_devnull /dev/null may take several outputs (written in place)
# input_is_output   a SCENE replaced by its own conversion or edit loses
#                   nothing: the whole input is read before the output lands
# signal_INT, signal_TERM, signal_HUP
#                   a writer interrupted with its temporary files open
#                   (render reading its SCENE from a FIFO that never ends,
#                   after it opened its three outputs) removes them and dies
#                   of the signal (status 128+N); the destinations keep
#                   their old contents
# stale             a writer killed with SIGKILL leaves its temporary files;
#                   the next write to one destination removes that
#                   destination's temporaries whose writer is gone, and
#                   nothing else (a live writer's, another destination's,
#                   look-alike names)
# long_names        names of 250 and 255 bytes (ASCII and UTF-8) are
#                   written; 256 fails naming the file and leaves nothing;
#                   stale temporaries of two long names that differ only
#                   after the part a temporary name keeps are told apart
set -u
vxr=$1 case=$2 dir=$3 data=${4:-}
rm -rf "$dir" && mkdir -p "$dir/w" && cd "$dir" || exit 1
w=$dir/w
cam=(--eye 90,-90,60 --target 0,0,0 --size 16x12)

fail() {
    echo "$case: $*" >&2
    [ -s err.txt ] && { echo "--- stderr:" >&2; cat err.txt >&2; }
    exit 1
}

# Every name, type, size and checksum under w.
snapshot() {
    (cd "$w" && find . -printf '%p %y %s %l\n' | LC_ALL=C sort &&
        find . -type f -exec md5sum {} + | LC_ALL=C sort)
}

# clash NAME ARGS...: vxr ARGS exits 2 with one line on stderr that names
# NAME, and nothing under w changes.
clash() {
    local name=$1 before after rc lines
    shift
    before=$(snapshot)
    (cd "$w" && "$vxr" "$@") > out.txt 2> err.txt
    rc=$?
    after=$(snapshot)
    lines=$(wc -l < err.txt)
    [ $rc -eq 2 ] || fail "vxr $*: exit status $rc, expected 2"
    [ "$lines" -eq 1 ] || fail "vxr $*: $lines lines on stderr, expected 1"
    grep -qF -- "vxr: $name: " err.txt || fail "vxr $*: stderr does not name '$name'"
    [ "$(wc -c < err.txt)" -lt 200 ] || fail "vxr $*: a message of 200 characters or more"
    [ "$before" = "$after" ] || fail "vxr $*: files changed:
$before
---
$after"
}

# The temporary files in w: every name but the ones given.
temps() {
    local keep=("$@") f k skip
    for f in $(cd "$w" && ls -A); do
        skip=0
        for k in "${keep[@]}"; do [ "$f" = "$k" ] && skip=1; done
        [ $skip -eq 1 ] || echo "$f"
    done
}

# start_blocked ARGS...: vxr render reading its SCENE from a FIFO that never
# ends, with outputs ARGS (relative to w); sets pid once count temporaries
# (the number of outputs) exist. The signals are set to their defaults
# (a background job of a script ignores SIGINT; nohup ignores SIGHUP).
start_blocked() {
    local count=$1
    shift
    rm -f scene.fifo && mkfifo scene.fifo || fail "mkfifo"
    exec 3<> scene.fifo # a writer that never writes: the read blocks
    local defaults=(env --default-signal=HUP,INT,TERM)
    "${defaults[@]}" true 2> /dev/null || defaults=() # coreutils before 8.31
    (cd "$w" && exec "${defaults[@]}" "$vxr" render - "${cam[@]}" "$@" \
        < "$dir/scene.fifo" 2> "$dir/err.txt") &
    pid=$!
    local i n=0
    for ((i = 0; i < 1000; i++)); do
        n=$(ls -A "$w" | grep -c '\.tmp\.')
        [ "$n" -ge "$count" ] && break
        kill -0 $pid 2> /dev/null || break
        sleep 0.01
    done
    [ "$n" -ge "$count" ] || { kill -9 $pid 2> /dev/null; fail "$n of $count temporary files appeared"; }
}

case $case in
same_file)
    mkdir "$w/sub"
    ln -s sub "$w/linked"
    printf 'old a' > "$w/a.png"
    ln -s a.png "$w/link.png"
    ln "$w/a.png" "$w/hard.png"
    ln -s nowhere.png "$w/dangling.png"
    clash s.png render @demo "${cam[@]}" --out s.png --hits s.png
    clash ./d.bin render @demo "${cam[@]}" --out x.png --depth d.bin --hits ./d.bin
    clash sub/../n.png render @demo "${cam[@]}" --out n.png --depth sub/../n.png
    clash "$w/abs.png" render @demo "${cam[@]}" --out abs.png --hits "$w/abs.png"
    clash link.png render @demo "${cam[@]}" --out a.png --hits link.png
    clash a.png render @demo "${cam[@]}" --out hard.png --depth a.png
    clash dangling.png render @demo "${cam[@]}" --out nowhere.png --hits dangling.png
    clash linked/x.png render @demo "${cam[@]}" --out sub/x.png --depth linked/x.png
    clash sub/../a.png render @demo "${cam[@]}" --depth sub/../a.png --out a.png
    clash ./v.vox view --frames 1 --screenshot v.vox --save ./v.vox
    clash a.png view --frames 1 --save a.png --screenshot link.png
    ;;
same_file_devnull)
    (cd "$w" && "$vxr" render @demo "${cam[@]}" --out /dev/null --depth /dev/null \
        --hits /dev/null) > out.txt 2> err.txt || fail "render to /dev/null three times: exit $?"
    [ -z "$(ls -A "$w")" ] || fail "files written: $(ls -A "$w")"
    ;;
input_is_output)
    cp "$data/mmmm__chr_robot.vox" "$w/robot.vox"
    ln -s robot.vox "$w/robot_link.vox"
    want=$("$vxr" info --json "$w/robot.vox" | grep -o '"instanced_voxels":[0-9]*')
    [ -n "$want" ] || fail "info of the original"
    for pair in "robot.vox ./robot.vox" "robot_link.vox robot.vox" "./robot.vox robot.vox"; do
        read -r from to <<< "$pair"
        (cd "$w" && "$vxr" convert "$from" "$to") > out.txt 2> err.txt ||
            fail "convert $from $to: exit $?"
        got=$("$vxr" info --json "$w/robot.vox" | grep -o '"instanced_voxels":[0-9]*')
        [ "$got" = "$want" ] || fail "convert $from $to: $got, expected $want"
    done
    printf 'set 0 0 0 0 1\nundo\n' > ops.txt
    (cd "$w" && "$vxr" edit robot.vox --ops ../ops.txt --out ./robot.vox) > out.txt 2> err.txt ||
        fail "edit in place: exit $?"
    got=$("$vxr" info --json "$w/robot.vox" | grep -o '"instanced_voxels":[0-9]*')
    [ "$got" = "$want" ] || fail "edit in place: $got, expected $want"
    [ "$(temps robot.vox robot_link.vox)" = "" ] || fail "left: $(temps robot.vox robot_link.vox)"
    ;;
signal_INT | signal_TERM | signal_HUP)
    sig=${case#signal_}
    for f in a.png a.depth a.hits; do printf "old $f" > "$w/$f"; done
    start_blocked 3 --out a.png --depth a.depth --hits a.hits
    kill -s "$sig" $pid
    for ((i = 0; i < 500; i++)); do kill -0 $pid 2> /dev/null || break; sleep 0.01; done
    kill -0 $pid 2> /dev/null && { kill -9 $pid; fail "SIG$sig did not end vxr"; }
    wait $pid 2> /dev/null
    rc=$?
    exec 3>&-
    want=$((128 + $(kill -l "$sig")))
    [ $rc -eq $want ] || fail "exit status $rc after SIG$sig, expected $want"
    left=$(temps a.png a.depth a.hits)
    [ -z "$left" ] || fail "temporary files left after SIG$sig: $left"
    for f in a.png a.depth a.hits; do
        [ "$(cat "$w/$f")" = "old $f" ] || fail "$f changed"
    done
    ;;
stale)
    start_blocked 3 --out out.vl32 --depth x.png --hits x.hits # N: 0, 1, 2
    kill -9 $pid
    wait $pid 2> /dev/null
    exec 3>&-
    dead=$pid # reaped: no such process
    stale_out=$(temps | grep 'out\.vl32')
    stale_png=$(temps | grep 'x\.png')
    [ -n "$stale_out" ] && [ -n "$stale_png" ] || fail "no stale temporaries: $(temps)"
    # a live writer's temporary (this shell's PID) and look-alikes stay
    live=${stale_out/.tmp.$dead./.tmp.$$.}
    [ "$live" != "$stale_out" ] || fail "no .tmp.$dead. in $stale_out"
    cp "$w/$stale_out" "$w/$live"
    cp "$w/$stale_out" "$w/${stale_out}x"
    cp "$w/$stale_out" "$w/${stale_out/.tmp.$dead./.tmp.$dead.x}"
    cp "$w/$stale_out" "$w/${stale_out/.tmp.$dead./.tmp.0.}"
    cp "$w/$stale_out" "$w/${stale_out/.tmp.$dead./.tmp.-$dead.}"
    cp "$w/$stale_out" "$w/x${stale_out}"
    printf 'mine' > "$w/out.vl32.tmp.$dead.7" # a user's file, by the old naming
    keep=$(temps | grep -vxF "$stale_out" | LC_ALL=C sort)
    (cd "$w" && "$vxr" convert @menger:1 out.vl32) > out.txt 2> err.txt || fail "convert: exit $?"
    [ -s "$w/out.vl32" ] || fail "out.vl32 not written"
    left=$(temps out.vl32 | LC_ALL=C sort)
    [ "$left" = "$keep" ] || fail "after writing out.vl32:
$left
--- expected:
$keep"
    ;;
long_names)
    n250=$(printf 'n%.0s' {1..245}).vl32
    n255=$(printf 'm%.0s' {1..250}).vl32
    u250=$(printf '\xc3\xa9%.0s' {1..122})a.vl32 # 122 x e-acute: 244 bytes
    n256=$(printf 'o%.0s' {1..251}).vl32
    for name in "$n250" "$n255" "$u250"; do
        [ ${#name} -le 255 ] && [ "$(printf %s "$name" | wc -c)" -ge 250 ] || fail "test name"
        (cd "$w" && "$vxr" convert @menger:1 "$name") > out.txt 2> err.txt
        rc=$?
        [ $rc -eq 0 ] || fail "convert to a name of $(printf %s "$name" | wc -c) bytes: exit $rc"
        [ -s "$w/$name" ] || fail "not written: $name"
    done
    [ "$(temps "$n250" "$n255" "$u250")" = "" ] || fail "left: $(temps "$n250" "$n255" "$u250")"
    (cd "$w" && "$vxr" convert @menger:1 "$n256") > out.txt 2> err.txt
    rc=$?
    [ $rc -eq 1 ] || fail "convert to a name of 256 bytes: exit $rc, expected 1"
    [ "$(wc -l < err.txt)" -eq 1 ] && grep -qF "$n256: " err.txt && grep -q "too long" err.txt ||
        fail "convert to a name of 256 bytes: the message"
    [ "$(temps "$n250" "$n255" "$u250")" = "" ] || fail "left: $(temps "$n250" "$n255" "$u250")"
    rm -f "$w"/*
    # two names alike in their first 246 bytes: each has its own temporaries
    p=$(printf 'p%.0s' {1..246})
    start_blocked 2 --out x.png --depth "${p}1.vl32"
    kill -9 $pid
    wait $pid 2> /dev/null
    exec 3>&-
    start_blocked 3 --out "${p}2.vl32"
    kill -9 $pid
    wait $pid 2> /dev/null
    exec 3>&-
    all=$(temps | LC_ALL=C sort)
    [ "$(echo "$all" | wc -l)" -eq 3 ] || fail "expected 3 stale temporaries: $all"
    (cd "$w" && "$vxr" convert @menger:1 "${p}2.vl32") > out.txt 2> err.txt ||
        fail "convert to ${#p}+6 bytes: exit $?"
    after2=$(temps "${p}2.vl32" | LC_ALL=C sort)
    [ "$(echo "$after2" | wc -l)" -eq 2 ] || fail "writing ${p:0:8}...2.vl32 left: $after2"
    (cd "$w" && "$vxr" convert @menger:1 "${p}1.vl32") > out.txt 2> err.txt ||
        fail "convert to ${#p}+6 bytes: exit $?"
    after1=$(temps "${p}1.vl32" "${p}2.vl32")
    [ "$(echo "$after1" | wc -l)" -eq 1 ] && [ -n "$after1" ] ||
        fail "writing ${p:0:8}...1.vl32 left: $after1"
    echo "$after1" | grep -q 'x\.png' || fail "x.png's temporary went: $after1"
    ;;
*)
    fail "unknown case"
    ;;
esac
rm -rf "$dir"
