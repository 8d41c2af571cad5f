#!/bin/sh
# Fails when the object files given call each other in a cycle: file A
# calls file B when A uses a symbol B defines (nm); tsort refuses a graph
# with a loop and names it. Every object is a node, so a file on no edge
# still counts. Arguments may be ;-separated lists (CMake's
# $<TARGET_OBJECTS:...>); paths must not hold blanks.
set -eu
# CMake passes each target's objects as one ;-separated argument
objects=$(printf '%s;' "$@" | tr ';' '\n' | sed '/^$/d')
set -- $objects
defs=$(mktemp) edges=$(mktemp)
trap 'rm -f "$defs" "$edges"' EXIT
for o in "$@"; do
    nm -g --defined-only "$o" | awk -v f="$(basename "$o")" 'NF == 3 { print $3, f }'
done > "$defs"
for o in "$@"; do
    f=$(basename "$o")
    echo "$f $f" >> "$edges"
    nm -u "$o" | awk -v f="$f" 'NR == FNR { def[$1] = $2; next }
        NF == 2 && ($2 in def) && def[$2] != f { print f, def[$2] }' "$defs" - >> "$edges"
done
sort -u "$edges" | tsort > /dev/null
echo "no call cycle between $# object files"
