#!/bin/sh
# tests/integration/howto.sh - follows docs/extending.md's "A variant" in a
# temporary copy of the tree: one edit to one file (a CPU baseline and its row in
# experiments/cpu/cpu_vecadd.c), `make`, and the new variant is in `gpulab list`,
# planned by `gpulab plan` and run, verified, by `gpulab run`. Must not touch the
# real tree: everything happens in the copy.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL howto: $2"; fi; }

# the tree as git sees it, plus the build (so only what the edit touches rebuilds)
git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && echo "$f"; done |
    tar cf - -T - | (mkdir -p "$T/tree" && cd "$T/tree" && tar xf -)
cp -a build "$T/tree/build"
cd "$T/tree" || exit 1
git init -q . && git add -A >/dev/null 2>&1 && git -c user.email=t@t -c user.name=t commit -qm base

# the one step: a kernel and its row, next to the family's other baselines
f=experiments/cpu/cpu_vecadd.c
awk '
/^#define PB\(x\)/ {
    print "static void va_rev(const struct gl_cpu_job *job)"
    print "{"
    print "    for (long i = (long)job->out_count - 1; i >= 0; i--)"
    print "        job->out[i] = job->in[0][i] + job->in[1][i];"
    print "}"
    print ""
    print "static const struct va_impl im_rev = { va_rev };"
    print ""
}
{ print }
/^const struct gl_variant gl_cpu_vecadd_variants\[\] = \{/ {
    print "    { \"vecadd\", \"rev_seq\", \"cpu\", \"sequential, last element first\", PB(N) | PB(SEED),"
    print "      NULL, gl_vecadd_flops, gl_vecadd_bytes, va_run, &im_rev },"
}' "$f" >"$f.new" && mv "$f.new" "$f"
check '[ "$(git status --porcelain | wc -l)" -eq 1 ]' "the edit touched more than one file: $(git status --porcelain)"
make -s build/gpulab build/libgpulab_cpu.so >"$T/make.log" 2>&1
check '[ $? -eq 0 ]' "make failed: $(tail -5 "$T/make.log")"

./build/gpulab list vecadd >"$T/list" 2>&1
check 'grep -qE "^ +cpu +rev_seq +\[N seed\]" "$T/list"' "gpulab list vecadd does not show rev_seq: $(cat "$T/list")"
printf 'study = howto\n[a]\nfamily = vecadd\nvariants = rev_seq, seq\nN = 1000, 5000\n' >"$T/h.conf"
./build/gpulab plan "$T/h.conf" --db "$T/h.db" >"$T/plan" 2>&1
check 'grep -qE "cpu +rev_seq +2 configurations: 2 to run" "$T/plan"' "plan does not plan rev_seq: $(cat "$T/plan")"
./build/gpulab run "$T/h.conf" --db "$T/h.db" >"$T/run" 2>&1
n=$(./build/gpulab query --db "$T/h.db" --csv "select count(*) from results where variant='rev_seq' and status='ok' and max_rel_err is not null" | tail -n 1)
check '[ "$n" -eq 2 ]' "rev_seq did not run ok twice ($n): $(cat "$T/run")"

echo "howto: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
