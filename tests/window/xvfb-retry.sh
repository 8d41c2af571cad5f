#!/bin/sh
# xvfb-run, tried again when Xvfb did not start. On a loaded machine Xvfb
# can miss xvfb-run's start signal ("xvfb-run: error: Xvfb failed to
# start"), and that Xvfb then stays on its display, so that the next start
# there fails too. This ends it and tries again, three times at most.
#   xvfb-retry.sh -n DISPLAY [other xvfb-run options] COMMAND [ARGS...]
# The command's output passes through; its exit status is returned.
display=
prev=
for a in "$@"; do
    [ "$prev" = "-n" ] && display=$a
    prev=$a
done
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
try=1
while :; do
    xvfb-run "$@" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ] && [ $try -lt 3 ] && grep -q "Xvfb failed to start" "$err"; then
        [ -n "$display" ] && pkill -f "^Xvfb :$display " 2>/dev/null
        sleep 2
        try=$((try + 1))
        continue
    fi
    cat "$err" >&2
    exit $rc
done
