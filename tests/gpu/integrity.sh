#!/bin/sh
# tests/gpu/integrity.sh - timings that cannot be gamed, and energy, on a GPU (run
# by tests/gpu/run.sh): a users' kernel that computes its output on its first
# launch only and returns early after (tests/gpu/data/earlyret.conf) is stored
# `wrong`, its reason naming the last timed sample, while its honest twin is ok
# with every check listed in run.integrity; vecadd runs store their energy
# (energy_j, avg_power_w in a sane range, gflop_per_j where FLOPs are known) or,
# where NVML has no counter, NULL with the reason; no run of this quiet sweep is
# marked contaminated unless it says why. Ends with "integrity-gpu: N passed,
# N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
db=$T/i.db
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL integrity-gpu: $2"; fi; }
q() { $G query --db "$db" --tsv "$1" | tail -n +2; }

$G run tests/gpu/data/earlyret.conf --db "$db" >"$T/run1" 2>&1; rc=$?
cat "$T/run1"
chk '[ "$(q "select status from results where variant = '"'honest'"'")" = ok ]' \
    "honest: $(q "select status, reason from results where variant = 'honest'")"
chk '[ "$(q "select status from results where variant = '"'lazy'"'")" = wrong ]' \
    "lazy (computes once, returns early after) not wrong: $(q "select status, reason from results where variant = 'lazy'")"
chk 'q "select reason from results where variant = '"'lazy'"'" | grep -q "^last timed sample"' \
    "lazy's reason does not name the last sample: $(q "select reason from results where variant = 'lazy'")"
chk '[ "$(q "select integrity from results where variant = '"'honest'"'")" = "poison-first,poison-last,l2-flush,l2-persist-reset" ]' \
    "honest's integrity: $(q "select integrity from results where variant = 'honest'")"

cat >"$T/energy.conf" <<'CONF'
study = energy_check
metrics = none
[v]
family = vecadd
variants = global
N = 1<<20, 1<<26
BS = 256
CONF
GPULAB_ENERGY=on $G run "$T/energy.conf" --db "$db" >"$T/run2" 2>&1; rc=$?
chk '[ $rc -eq 0 ]' "vecadd: exit $rc: $(tail -3 "$T/run2")"
n_ok=$(q "select count(*) from results where study = 'energy_check' and status = 'ok'")
n_e=$(q "select count(*) from results where study = 'energy_check' and energy_j > 0 and avg_power_w between 20 and 2000 and energy_reason is null")
n_why=$(q "select count(*) from results where study = 'energy_check' and energy_j is null and avg_power_w is null and length(energy_reason) > 0")
chk '[ "$n_ok" = 2 ] && [ $((n_e + n_why)) = 2 ]' \
    "vecadd energy: $(q "select n, energy_j, avg_power_w, energy_reason from results where study = 'energy_check'")"
[ "$n_why" != 0 ] && echo "integrity-gpu: note: energy not measured: $(q "select distinct energy_reason from results where study = 'energy_check' and energy_j is null")"
q "select n, median_ms, energy_j, avg_power_w, energy_j / min_bytes * 1e12 as pj_per_byte from results where study = 'energy_check'"
chk '[ "$(q "select count(*) from results where contaminated is not null and length(contaminated) = 0")" = 0 ]' \
    "a run marked contaminated without a reason"
q "select variant, contaminated from results where contaminated is not null"

echo "integrity-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
