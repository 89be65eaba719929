#!/bin/sh
# tests/deps.sh [--check] PKG... - make sure the Debian packages gpulab builds and
# reports with are installed: install them when root (make deps), or name the exact
# command to run. With --check, only report. Must not install anything unasked.
check=0
if [ "$1" = "--check" ]; then check=1; shift; fi
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$check" -eq 1 ]; then
    echo "gpulab: missing Debian packages:$missing" >&2
    echo "gpulab: install them with: make deps   (or: sudo apt-get install -y$missing)" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    echo "gpulab: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null || {
        echo "gpulab: apt-get install -y$missing failed" >&2; exit 1; }
else
    echo "gpulab: missing Debian packages:$missing" >&2
    echo "gpulab: run: sudo apt-get install -y$missing" >&2
    exit 1
fi
