#!/bin/sh
# experiments/cpu/copy_openblas.sh LIB DIR - put a copy of OpenBLAS (LIB, the
# system's libopenblas.so.0) and of the libraries it needs that another machine
# may lack into DIR (build/openblas/), so that a build folder carried to a
# machine without OpenBLAS runs the openblas rows there (cpu_openblas.h loads
# DIR/libopenblas.so.0 first). Every copy gets RUNPATH $ORIGIN (patchelf), so
# the copies find each other in DIR before the system's. The libraries every
# machine that runs gpulab's CPU plugin already has (glibc's, libgomp,
# libgcc_s: the plugin needs them itself) stay the system's.
# Without LIB or without patchelf: a note naming the package, DIR removed, exit 0
# (the rows then look for the system's library at run time). Does nothing when
# DIR holds a copy of LIB newer than LIB. Must not touch anything outside DIR.
set -u
lib=$1
dir=$2
if [ ! -e "$lib" ]; then
    rm -rf "$dir"
    echo "gpulab: note: no $lib (Debian: libopenblas0-openmp): build/ carries no OpenBLAS; the openblas rows use the system's, if any, where they run"
    exit 0
fi
[ -f "$dir/stamp" ] && [ "$dir/stamp" -nt "$lib" ] && [ "$(cat "$dir/stamp")" = "$lib" ] && exit 0
command -v patchelf >/dev/null 2>&1 || {
    rm -rf "$dir"
    echo "gpulab: note: no patchelf (Debian: patchelf, or make deps): build/ carries no OpenBLAS; the openblas rows use the system's, if any, where they run"
    exit 0
}
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp" || exit 1
cp -L "$lib" "$tmp/libopenblas.so.0" || exit 1
# every library ldd resolves for LIB but the base ones: "name => /path (addr)"
ldd "$lib" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r name path; do
    case "$name" in
    ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libgomp.so.*|libgcc_s.so.*)
        continue ;;
    esac
    cp -L "$path" "$tmp/$name" || exit 1
done || exit 1
for f in "$tmp"/*.so*; do
    patchelf --set-rpath '$ORIGIN' "$f" || exit 1
done
# no copy may need what neither DIR nor this system has
if ldd "$tmp/libopenblas.so.0" | grep -q 'not found'; then
    echo "gpulab: the copy of OpenBLAS in $tmp misses libraries:" >&2
    ldd "$tmp/libopenblas.so.0" | grep 'not found' >&2
    exit 1
fi
echo "$lib" >"$tmp/stamp"
rm -rf "$dir"
mv "$tmp" "$dir"
echo "gpulab: copied OpenBLAS ($lib) and $(ls "$dir" | grep -vc -e '^stamp$' -e '^libopenblas') libraries it needs into $dir"
