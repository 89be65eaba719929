#!/bin/sh
# tests/integration/same_results.sh - bench/same_results on two hand-made
# databases whose differences are known: a point in one only, a status that
# changed, medians inside and outside their spread, a run with one sample (no
# spread), newer rows superseding older ones, counters equal, apart by a
# relative amount, zero against non-zero, and percentages apart by points. Both
# databases must be left as they were. Must not touch anything outside its
# temporary directory.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL same_results: $2"; fi; }

mk() {   # mk DB SQL: a gpulab database holding SQL's rows
    $G query --write --db "$1" "
        insert into device (id, kind, name, ident) values (1, 'gpu', 'Test GPU', 'GPU-test');
        insert into session (id) values (1);
        $2" >/dev/null
}
# run rows: id, study, variant, n, status, samples, median, stddev
row() { echo "insert into run (id, session_id, device_id, study, family, variant, status, n, seed, mem, samples, median_ms, stddev_ms) values ($1, 1, 1, '$2', 'matmul', '$3', '$5', $4, 42, 'device', $6, $7, $8);"; }
met() { echo "insert into metric (run_id, name, value, unit) values ($1, '$2', $3, '');"; }

mk "$T/a.db" "
$(row 1 s1 global 128 ok 10 1.00 0.01)
$(row 2 s1 global 256 ok 10 2.00 0.01)
$(row 3 s1 shared 128 ok 10 1.00 0.01)
$(row 4 s1 shared 256 ok 1 5.00 'NULL')
$(row 5 s2 naive 64 ok 10 4.00 0.10)
$(row 6 s2 naive 96 ok 10 4.00 0.10)
$(met 1 gpu__time_duration.sum 1000)
$(met 2 gpu__time_duration.sum 2000)
$(met 1 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 0)
$(met 2 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 64)
$(met 1 lts__t_sector_hit_rate.pct 90.0)
$(met 2 lts__t_sector_hit_rate.pct 80.0)"
mk "$T/b.db" "
$(row 1 s1 global 128 ok 10 0.50 0.01)
$(row 2 s1 global 128 ok 10 1.02 0.01)
$(row 3 s1 global 256 ok 10 2.20 0.01)
$(row 4 s1 shared 128 wrong 0 'NULL' 'NULL')
$(row 5 s1 shared 256 ok 1 5.10 'NULL')
$(row 6 s2 naive 64 ok 10 4.05 0.10)
$(row 7 s2 naive 128 ok 10 4.00 0.10)
$(met 2 gpu__time_duration.sum 1000)
$(met 3 gpu__time_duration.sum 2100)
$(met 2 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 8)
$(met 3 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum 64)
$(met 2 lts__t_sector_hit_rate.pct 90.5)
$(met 3 lts__t_sector_hit_rate.pct 78.0)"
sa=$(cksum <"$T/a.db"); sb=$(cksum <"$T/b.db")
sh bench/same_results "$T/a.db" "$T/b.db" >"$T/out" 2>&1; rc=$?
cat "$T/out"
line() { grep "^$1 " "$T/out" | tr -s ' '; }
chk '[ $rc -eq 0 ]' "exit $rc"
# s1: 4 points in both, 3 same status; ok pairs 1.02 (within), 1.10 (outside), 1.02 (one sample)
chk '[ "$(line s1)" = "s1 4 0 0 3 1.020 1.020 1.100 1 of 2" ]' "s1: '$(line s1)'"
# s2: 64 in both (within: 0.05 <= 3 x 0.14), 96 in A only, 128 in B only
chk '[ "$(line s2)" = "s2 1 1 1 1 1.013 1.013 1.013 1 of 1" ]' "s2: '$(line s2)'"
chk '[ "$(line gpu_time_ns)" = "gpu_time_ns 2 1 0.04762 (relative)" ]' "gpu_time_ns: '$(line gpu_time_ns)'"
chk '[ "$(line smem_conflicts_ld)" = "smem_conflicts_ld 2 1 1 (relative)" ]' "conflicts (0 against 8): '$(line smem_conflicts_ld)'"
chk '[ "$(line l2_hit_pct)" = "l2_hit_pct 2 0 2 pt" ]' "l2_hit_pct: '$(line l2_hit_pct)'"
chk '[ "$(line inst_executed)" = "inst_executed 0 0 -" ]' "a counter neither has: '$(line inst_executed)'"
chk '[ "$(cksum <"$T/a.db")" = "$sa" ] && [ "$(cksum <"$T/b.db")" = "$sb" ]' "a database changed"
# usage errors
sh bench/same_results "$T/a.db" >/dev/null 2>&1; rc=$?
chk '[ $rc -eq 2 ]' "one argument: exit $rc (want 2)"
sh bench/same_results "$T/a.db" "$T/none.db" 2>"$T/err"; rc=$?
chk '[ $rc -eq 2 ] && grep -q "no such database" "$T/err"' "missing database: exit $rc: $(cat "$T/err")"
echo "same_results: $pass passed, $fail failed"
[ $fail -eq 0 ]
