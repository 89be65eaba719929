#!/bin/sh
# tests/gpu/collection.sh - every config of tests/collection/ (kernel files in the
# style of public code, each with the config a user would write) runs on the GPU
# with the default counters (run by tests/gpu/run.sh): exit 0, and every run of
# its plan stored ok, verified (compared with its reference: max_rel_err set) and
# profiled (passes > 0). Generic over the folder, so that new files are covered as
# they come. Then what the collection's own configs promise, where they are there:
# scalars stored with their values rounded to their types (sgemm's alpha and beta,
# adamw's five hyperparameters, gelu's bfloat16 alpha, axpby's 1/3 in float and
# double) and the type parameter T stored as text. Ends with "collection-gpu: N
# passed, N failed". Must not rebuild anything.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL collection-gpu: $2"; fi; }
n=0
for c in tests/collection/*.conf; do
    [ -e "$c" ] || continue
    n=$((n + 1))
    name=$(basename "$c" .conf)
    db="$T/$name.db"
    $G run "$c" --db "$db" >"$T/run" 2>&1; rc=$?
    chk '[ $rc -eq 0 ]' "$c: exit $rc: $(tail -5 "$T/run")"
    planned=$($G plan "$c" --db "$db" --summary 2>/dev/null | sed -n 's/^total: 0 to run, \([0-9]*\) done.*/\1/p')
    q() { $G query --db "$db" --tsv "$1" | tail -n 1; }
    all=$(q "select count(*) from results where is_latest = 1")
    # ok, verified and profiled; or skipped by the harness with its reason (a searched
    # point past a launch limit the compile decides: registers for its block size)
    good=$(q "select count(*) from results where is_latest = 1 and ((status = 'ok' and (max_rel_err is not null or (select check_method from run where run.id = results.run_id) = 'written') and passes > 0) or (status = 'skipped' and reason like '%registers%'))")
    # a searched config (strategy =): its points are what the search picked, not a plan's
    if grep -qE '^ *strategy *= *(random|local|annealing|genetic)' "$c"; then planned=$all; fi
    chk '[ -n "$planned" ] && [ "$planned" -gt 0 ] && [ "$all" -eq "$planned" ] && [ "$good" -eq "$all" ]' \
        "$c: $good of $all stored runs ok, verified and profiled (or skipped past a register limit); ${planned:-?} planned: $(q "select group_concat(variant || ' ' || status || ' ' || ifnull(reason, '') || ' ' || ifnull(metrics_reason, ''), '; ') from results where is_latest = 1 and not (status = 'ok' and (max_rel_err is not null or (select check_method from run where run.id = results.run_id) = 'written') and passes > 0)")"
    nok=$(q "select count(*) from results where is_latest = 1 and status = 'ok'")
    chk '[ -n "$nok" ] && [ "$nok" -gt 0 ]' "$c: no run ok"
    $G query --db "$db" --md "select variant, uparams, n, bs, status, round(median_ms, 4) as median_ms,
        max_rel_err, round(gbs, 1) as gbs, round(gflops, 1) as gflops, achieved_occupancy_pct
        from results where is_latest = 1 order by variant, uparams, n, bs"
    case $name in
    sgemm)
        st=$(q "select group_concat(x) from (select distinct idx || '=' || value as x from scalars where type = 'float' order by x)")
        chk '[ "$st" = "4=1.5,7=0.5" ]' "sgemm: float scalars stored as '$st' (want 4=1.5,7=0.5)"
        st=$(q "select group_concat(name) from (select distinct idx, name from scalars where type = 'float' order by idx)")
        chk '[ "$st" = "alpha,beta" ]' "sgemm: scalar names '$st' (want alpha,beta)" ;;
    adamw)
        st=$(q "select count(distinct idx) || ' ' || min(value = 0.0010000000474974513) from scalars where type = 'float' and idx = 5")
        chk '[ "$st" = "1 1" ]' "adamw: lr stored as float(1e-3): '$st'"
        st=$(q "select group_concat(name) from (select distinct idx, name from scalars where type = 'float' order by idx)")
        chk '[ "$st" = "lr,beta1,beta2,eps,weight_decay" ]' "adamw: hyperparameters named '$st'" ;;
    gelu_bf16)
        st=$(q "select group_concat(distinct type || ' ' || value) from scalars where idx = 4")
        chk '[ "$st" = "bfloat16 -2.5" ]' "gelu_bf16: alpha stored as '$st'" ;;
    axpby)
        st=$(q "select group_concat(x) from (select distinct s.type || ' ' || (s.value = (case s.type when 'float' then 0.3333333432674408 else 1.0/3 end)) as x from scalars s where s.idx = 2 order by x)")
        chk '[ "$st" = "double 1,float 1" ]' "axpby: a = 1/3 rounded to T: '$st' (want 'double 1,float 1')"
        st=$(q "select group_concat(x) from (select distinct T as x from results_axpby order by x)")
        chk '[ "$st" = "double,float" ]' "axpby: T stored as '$st' (want 'double,float')" ;;
    esac
done
chk '[ $n -gt 0 ]' "tests/collection/ has no config"
echo "collection-gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
