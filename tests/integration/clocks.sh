#!/bin/sh
# tests/integration/clocks.sh - `gpulab run --clocks none|base` and what a session
# records of the GPU's clocks, on a machine without a GPU or NVML: the GPU is the
# test plugin build/tests/plugins/fake_gpu.so (GPULAB_PLUGIN) and NVML the fake
# build/tests/fakes/libfake_nvml.so (GPULAB_NVML_LIB), which logs every lock and
# reset it is asked for. Checked: a bad --clocks value is a usage error; without
# NVML, or when NVML refuses (no permission, not supported), the sweep runs with
# its clocks as they are and the session says so (clocks_locked 0, the reason),
# the NVML readings NULL with their reason when NVML is missing; a sweep without
# GPU jobs records "no GPU in this session"; with NVML's permission the SM clock
# is locked once, before the runs, and reset once when the sweep ends - also when
# a run crashes the worker, and when SIGINT or SIGTERM stops the sweep (exit
# 130 / 143); --clocks none never locks, but records NVML's readings. And the
# memory ceilings the fake GPU cannot measure are NULL with its reason, tried
# again by the next sweep, and carried into a `gpulab merge` output that lacks them.
# With `run --gpus all` on 2 GPUs of build/tests/plugins/fake_gpu.so: each GPU
# locked once and reset once (also on SIGTERM), the session's clocks_reason per GPU,
# clocks_locked 0 when one GPU could not be locked, and each GPU's ceilings measured
# once, by its own worker, onto its own device row.
# Must not need a GPU, and never calls a real NVML.
G=./build/gpulab
FAKE_GPU=build/tests/plugins/fake_gpu.so
FAKE_NVML=build/tests/fakes/libfake_nvml.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL clocks: $2"; fi; }
if [ ! -f "$FAKE_GPU" ] || [ ! -f "$FAKE_NVML" ]; then
    echo "clocks: $FAKE_GPU or $FAKE_NVML missing: run make first"
    echo "clocks: 0 passed, 1 failed"
    exit 1
fi
export GPULAB_LOCK_DIR="$T/locks"
export GPULAB_CACHE="$T/cache"   # the kernel cache and the machine's ceilings cache: this test's own
q() { $G query --db "$1" --csv "$2" | tail -n 1; }

cat >"$T/gpu.conf" <<'CONF'
study = clocks
metrics = none
[g]
family = fake
variants = sleep
N = 1, 2
CONF
cat >"$T/cpu.conf" <<'CONF'
study = clocks_cpu
[c]
family = vecadd
variants = omp
N = 1000
threads = 1
samples_min = 3
samples_max = 3
CONF
cat >"$T/crash.conf" <<'CONF'
study = clocks_crash
metrics = none
[g]
family = fake
variants = sleep, segv
N = 1
CONF
cat >"$T/long.conf" <<'CONF'
study = clocks_long
metrics = none
[g]
family = fake
variants = sleep
N = 30000000
timeout = 120s
CONF
# gpulab with the fake GPU (and the fake NVML unless NVML=... says otherwise)
gl() { GPULAB_FAKE_CEILINGS=0 GPULAB_PLUGIN=$FAKE_GPU GPULAB_NVML_LIB=${NVML-$FAKE_NVML} FAKE_NVML_LOG="$T/nvml.log" $G "$@"; }

# --- usage ----------------------------------------------------------------------------
$G run "$T/gpu.conf" --db "$T/u.db" --clocks fast >"$T/u.out" 2>&1; rc=$?
check '[ $rc -eq 2 ]' "--clocks fast: exit $rc, want 2"
check 'grep -q "\-\-clocks wants none or base, got fast" "$T/u.out"' "--clocks fast: $(head -1 "$T/u.out")"
check '[ ! -f "$T/u.db" ]' "--clocks fast left a database behind"
$G run "$T/gpu.conf" --db "$T/u.db" --clocks >"$T/u.out" 2>&1; rc=$?
check '[ $rc -eq 2 ]' "--clocks without a value: exit $rc, want 2"

# --- no NVML: runs as they are, said ----------------------------------------------------
db="$T/none.db"
NVML="$T/no_such_libnvidia-ml.so.1" gl run "$T/gpu.conf" --db "$db" --clocks base >"$T/none.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "no NVML, --clocks base: exit $rc: $(tail -2 "$T/none.out")"
check 'grep -q "GPU clocks not locked: no NVML" "$T/none.out"' "no NVML: the run does not say the clocks were not locked: $(head -3 "$T/none.out")"
check '[ "$(q "$db" "select clocks_asked || '"'|'"' || clocks_locked from session")" = "base|0" ]' \
    "no NVML: session clocks $(q "$db" "select clocks_asked, clocks_locked from session")"
check '[ "$(q "$db" "select count(*) from session where clocks_reason like '"'not locked: no NVML%'"' and nvml_reason like '"'no NVML%'"' and sm_clock_mhz is null and sm_max_clock_mhz is null and clock_events is null")" = 1 ]' \
    "no NVML: reasons/NULLs $(q "$db" "select clocks_reason, nvml_reason, sm_clock_mhz from session")"
check '[ "$(q "$db" "select count(*) from results where status = '"'ok'"'")" = 2 ]' "no NVML: the runs did not run"
check '[ ! -s "$T/nvml.log" ]' "no NVML: the fake NVML was called"

# --- no GPU job: nothing to lock ----------------------------------------------------------
db="$T/cpu.db"
gl run "$T/cpu.conf" --db "$db" --clocks base >"$T/cpu.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "CPU only, --clocks base: exit $rc: $(tail -2 "$T/cpu.out")"
check '[ "$(q "$db" "select count(*) from session where clocks_asked = '"'base'"' and clocks_locked is null and clocks_reason = '"'no GPU in this session'"' and nvml_reason = '"'no GPU in this session'"'")" = 1 ]' \
    "CPU only: session $(q "$db" "select clocks_asked, clocks_locked, clocks_reason, nvml_reason from session")"
check '[ ! -s "$T/nvml.log" ]' "CPU only: NVML was asked to lock: $(cat "$T/nvml.log" 2>/dev/null)"

# --- NVML refuses ---------------------------------------------------------------------------
for how in denied unsupported; do
    db="$T/$how.db"
    FAKE_NVML_LOCK=$how gl run "$T/gpu.conf" --db "$db" --clocks base >"$T/$how.out" 2>&1; rc=$?
    check '[ $rc -eq 0 ]' "$how: exit $rc: $(tail -2 "$T/$how.out")"
    want="Insufficient Permissions"; [ $how = unsupported ] && want="Not Supported"
    check '[ "$(q "$db" "select count(*) from session where clocks_locked = 0 and clocks_reason like '"'not locked: nvmlDeviceSetGpuLockedClocks: $want%'"'")" = 1 ]' \
        "$how: session $(q "$db" "select clocks_locked, clocks_reason from session")"
    check '[ "$(q "$db" "select sm_clock_mhz || '"'/'"' || sm_max_clock_mhz from session")" = 1755/1980 ]' \
        "$how: NVML readings $(q "$db" "select sm_clock_mhz, sm_max_clock_mhz from session")"
    check '[ ! -s "$T/nvml.log" ]' "$how: a lock was logged: $(cat "$T/nvml.log" 2>/dev/null)"
done
db="$T/denied.db"
check '[ "$(q "$db" "select count(*) from session where clocks_reason like '"'%needs root%'"'")" = 1 ]' \
    "denied: the reason does not say locking needs root"

# --- locked, then reset once at the end ----------------------------------------------------
db="$T/base.db"
: >"$T/nvml.log"
gl run "$T/gpu.conf" --db "$db" --clocks base >"$T/base.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "--clocks base: exit $rc: $(tail -2 "$T/base.out")"
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ "$log" = "lock GPU-fa4e0000-0000-4000-8000-000000000000 1410 1410;reset GPU-fa4e0000-0000-4000-8000-000000000000;" ]' \
    "--clocks base: NVML log '$log'"
check '[ "$(q "$db" "select clocks_asked || '"'|'"' || clocks_locked || '"'|'"' || sm_clock_mhz || '"'|'"' || sm_app_clock_mhz || '"'|'"' || sm_app_default_mhz || '"'|'"' || sm_max_clock_mhz || '"'|'"' || clock_events from session")" = "base|1|1410|1755|1755|1980|applications clocks setting" ]' \
    "--clocks base: session $(q "$db" "select clocks_asked, clocks_locked, sm_clock_mhz, sm_app_clock_mhz, sm_app_default_mhz, sm_max_clock_mhz, clock_events from session")"
check '[ "$(q "$db" "select count(*) from session where nvml_reason is null and clocks_reason like '"'locked to the base clock%'"'")" = 1 ]' \
    "--clocks base: reasons $(q "$db" "select clocks_reason, nvml_reason from session")"
check 'grep -q "GPU clocks locked to the base clock" "$T/base.out"' "--clocks base: the run does not say so"

# the ceilings the fake GPU cannot measure: NULL with its reason, tried again next time
check '[ "$(q "$db" "select count(*) from device where kind = '"'gpu'"' and l1_bw_gbs is null and l2_bw_gbs is null and hostlink_bw_gbs is null and ceilings_at is null and ceilings_reason = '"'not measured: a fake GPU measures nothing'"'")" = 1 ]' \
    "ceilings: $(q "$db" "select l1_bw_gbs, ceilings_at, ceilings_reason from device where kind = 'gpu'")"
check '[ "$(q "$db" "select count(*) from devices where kind = '"'cpu'"' and ceilings_reason is null")" = 1 ]' \
    "ceilings: the CPU row has a ceilings reason"
# `gpulab merge`: a device row without ceilings gets those of the same GPU's row in
# an input that has them (as its copy bandwidth), and keeps them afterwards
cp "$db" "$T/measured.db"
$G query --write --db "$T/measured.db" "update device set l1_bw_gbs = 32000, l2_bw_gbs = 7000,
    hostlink_bw_gbs = 50, ceilings_clock_mhz = 1970, ceilings_at = '2026-11-24T20:00:00Z',
    ceilings_reason = NULL where kind = 'gpu'" >/dev/null
$G merge "$T/merged.db" "$db" >/dev/null 2>&1 && $G merge "$T/merged.db" "$T/measured.db" >"$T/merge.out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "merge: exit $rc: $(tail -2 "$T/merge.out")"
check '[ "$(q "$T/merged.db" "select l1_bw_gbs || '"'|'"' || hostlink_bw_gbs || '"'|'"' || (ceilings_reason is null) from device where kind = '"'gpu'"'")" = "32000.0|50.0|1" ]' \
    "merge: the device's ceilings $(q "$T/merged.db" "select l1_bw_gbs, ceilings_reason from device where kind = 'gpu'")"
$G merge "$T/merged.db" "$db" >/dev/null 2>&1
check '[ "$(q "$T/merged.db" "select count(*) from device where kind = '"'gpu'"' and l1_bw_gbs = 32000")" = 1 ]' \
    "merge: an input without ceilings took them away"

# --- none: never locks, still records what NVML says --------------------------------------
db="$T/nolock.db"
: >"$T/nvml.log"
gl run "$T/gpu.conf" --db "$db" --clocks none >"$T/nolock.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "--clocks none: exit $rc"
check '[ ! -s "$T/nvml.log" ]' "--clocks none: NVML log $(cat "$T/nvml.log")"
check '[ "$(q "$db" "select clocks_asked || '"'|'"' || clocks_locked || '"'|'"' || clocks_reason || '"'|'"' || sm_clock_mhz from session")" = "none|0|left as they were (--clocks none)|1755" ]' \
    "--clocks none: session $(q "$db" "select clocks_asked, clocks_locked, clocks_reason, sm_clock_mhz from session")"
gl run "$T/gpu.conf" --db "$T/default.db" >/dev/null 2>&1
check '[ "$(q "$T/default.db" "select clocks_asked || '"'|'"' || clocks_locked from session")" = "none|0" ]' \
    "no --clocks: session $(q "$T/default.db" "select clocks_asked, clocks_locked from session")"

# --- a run crashes the worker: the driver still resets once, at the end --------------------
db="$T/crash.db"
: >"$T/nvml.log"
gl run "$T/crash.conf" --db "$db" --clocks base >"$T/crash.out" 2>&1; rc=$?
check '[ $rc -eq 1 ]' "crash: exit $rc, want 1: $(tail -2 "$T/crash.out")"
check '[ "$(q "$db" "select count(*) from results where variant = '"'segv'"' and status = '"'failed'"'")" = 1 ]' \
    "crash: the crashing run is not stored as failed"
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ "$log" = "lock GPU-fa4e0000-0000-4000-8000-000000000000 1410 1410;reset GPU-fa4e0000-0000-4000-8000-000000000000;" ]' \
    "crash: NVML log '$log'"

# --- SIGINT / SIGTERM in the middle of a run: reset before the driver exits ----------------
for sig in INT TERM; do
    want=130; [ $sig = TERM ] && want=143
    db="$T/$sig.db"
    : >"$T/nvml.log"
    # (gpulab itself in the background, not a function: $! must be its pid)
    GPULAB_FAKE_CEILINGS=0 GPULAB_PLUGIN=$FAKE_GPU GPULAB_NVML_LIB=$FAKE_NVML FAKE_NVML_LOG="$T/nvml.log" \
        $G run "$T/long.conf" --db "$db" --clocks base >"$T/$sig.out" 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do   # up to 10 s for the lock (then the run starts)
        grep -q '^lock ' "$T/nvml.log" 2>/dev/null && break
        sleep 0.05
    done
    sleep 0.5
    kill -$sig "$pid"
    wait "$pid"; rc=$?
    check '[ $rc -eq $want ]' "$sig: exit $rc, want $want: $(tail -2 "$T/$sig.out")"
    log=$(tr '\n' ';' <"$T/nvml.log")
    check '[ "$log" = "lock GPU-fa4e0000-0000-4000-8000-000000000000 1410 1410;reset GPU-fa4e0000-0000-4000-8000-000000000000;" ]' \
        "$sig: NVML log '$log'"
    check '[ "$(q "$db" "select count(*) from run")" = 0 ]' "$sig: the interrupted run was stored"
done

# --- run --gpus all on 2 GPUs (tests/plugins/fake_gpu.c): each GPU locked once and
# reset once, its ceilings measured once by its own worker onto its own device row ---------
FAKE2=build/tests/plugins/fake_gpu.so
U0=GPU-fa4e0000-0000-4000-8000-000000000000
U1=GPU-fa4e0000-0000-4000-8000-000000000001
cat >"$T/two.conf" <<'CONF'
study = clocks_two
metrics = none
warmup = 0
samples_min = 1
samples_max = 1
[g]
family = fake
variants = sleep
N = 1000, 2000, 3000, 4000
CONF
# gpulab with 2 fake GPUs and the fake NVML
gl2() { GPULAB_PLUGIN=$FAKE2 GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/two.log" \
        GPULAB_NVML_LIB=$FAKE_NVML FAKE_NVML_LOG="$T/nvml.log" $G "$@"; }
db="$T/two.db"
: >"$T/nvml.log"; : >"$T/two.log"
gl2 run "$T/two.conf" --db "$db" --gpus all --clocks base >"$T/two.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "2 GPUs: exit $rc: $(tail -2 "$T/two.out")"
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ "$log" = "lock $U0 1410 1410;lock $U1 1410 1410;reset $U0;reset $U1;" ]' "2 GPUs: NVML log '$log'"
check 'grep -q "^gpulab: GPU clocks: GPU 0,1: locked to the base clock" "$T/two.out"' \
    "2 GPUs: the run does not say both were locked: $(grep -i clocks "$T/two.out")"
want2="1|GPU 0,1: locked to the base clock (NVML, TDP) for the sweep; reset at its end | NVML readings: GPU 0's|1410"
check '[ "$($G query --db "$db" --tsv "select clocks_locked || '"'|'"' || clocks_reason || '"'|'"' || sm_clock_mhz from session" | tail -n 1)" = "$want2" ]' \
    "2 GPUs: session $(q "$db" "select clocks_locked, clocks_reason, sm_clock_mhz from session")"
check '[ "$(q "$db" "select count(distinct device_id) from run")" = 2 ]' "2 GPUs: the runs did not use both GPUs"
# each device row has its own GPU's ceilings (the fake's L1 is 1000 + its number),
# measured once, by the worker of that GPU
check '[ "$(q "$db" "select group_concat(substr(ident, -1) || '"'='"' || cast(l1_bw_gbs as int), '"' '"') from (select * from device where kind = '"'gpu'"' order by ident)")" = "0=1000 1=1001" ]' \
    "2 GPUs: ceilings per device row $(q "$db" "select group_concat(ident || ':' || ifnull(l1_bw_gbs, 'NULL')) from device where kind = 'gpu'")"
for g in 0 1; do
    w=$(sed -n "s/^init gpu=$g pid=\([0-9]*\).*/\1/p" "$T/two.log")
    check '[ -n "$w" ] && [ "$(grep -c "^ceilings gpu=$g pid=$w " "$T/two.log")" = 1 ] && [ "$(grep -c "^ceilings gpu=$g " "$T/two.log")" = 1 ]' \
        "2 GPUs: GPU $g's ceilings not measured once by its worker ($w): $(grep "^ceilings\|^init" "$T/two.log" | tr '\n' ';')"
done
# again: locked and reset again, the ceilings not measured again
: >"$T/nvml.log"; : >"$T/two.log"
gl2 run "$T/two.conf" --db "$db" --gpus all --clocks base --force >"$T/two2.out" 2>&1; rc=$?
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ $rc -eq 0 ] && [ "$log" = "lock $U0 1410 1410;lock $U1 1410 1410;reset $U0;reset $U1;" ]' "2 GPUs, again: exit $rc, NVML log '$log'"
check '! grep -q "^ceilings" "$T/two.log"' "2 GPUs, again: ceilings measured again: $(grep "^ceilings" "$T/two.log")"
# a new database on the same GPUs takes their ceilings from the machine's ceilings
# cache (src/host/ceilings_cache.h): nothing measured, the same values and the time of the
# measurement; without the cache's files they are measured again
cel() { q "$1" "select group_concat(substr(ident, -1) || '=' || cast(l1_bw_gbs as int) || '@' || ceilings_at, ' ') from (select * from device where kind = 'gpu' order by ident)"; }
: >"$T/two.log"
gl2 run "$T/two.conf" --db "$T/two_new.db" --gpus all >"$T/two3.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && ! grep -q "^ceilings" "$T/two.log" && [ "$(cel "$T/two_new.db")" = "$(cel "$T/two.db")" ]' \
    "2 GPUs, a new database: exit $rc, measured: $(grep -c "^ceilings" "$T/two.log"), ceilings $(cel "$T/two_new.db") vs $(cel "$T/two.db")"
check '[ "$(ls "$GPULAB_CACHE" | grep -c "^ceilings-GPU-fa4e0000-0000-4000-8000-00000000000[01].txt$")" = 2 ]' \
    "2 GPUs: the ceilings cache holds $(ls "$GPULAB_CACHE" | grep ceilings | tr '\n' ' ')"
rm -f "$GPULAB_CACHE"/ceilings-*.txt
: >"$T/two.log"
gl2 run "$T/two.conf" --db "$T/two_new2.db" --gpus all >"$T/two4.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && [ "$(grep -c "^ceilings" "$T/two.log")" = 2 ]' \
    "2 GPUs, the cache deleted: exit $rc, measured $(grep -c "^ceilings" "$T/two.log") times (want 2)"
# NVML knows only GPU 0: GPU 1 runs unlocked, said per GPU; only GPU 0 is reset
db="$T/two_one.db"
: >"$T/nvml.log"
FAKE_NVML_UUID=$U0 gl2 run "$T/two.conf" --db "$db" --gpus all --clocks base >"$T/two_one.out" 2>&1; rc=$?
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ $rc -eq 0 ] && [ "$log" = "lock $U0 1410 1410;reset $U0;" ]' "2 GPUs, NVML knows one: exit $rc, NVML log '$log'"
check '[ "$(q "$db" "select count(*) from session where clocks_locked = 0 and clocks_reason like '"'GPU 0: locked to the base clock%reset at its end | GPU 1: not locked: NVML does not know GPU $U1%| NVML readings: GPU 0%'"'")" = 1 ]' \
    "2 GPUs, NVML knows one: session $(q "$db" "select clocks_locked, clocks_reason from session")"
# SIGTERM while both GPUs run: both reset before the driver exits
cat >"$T/two_long.conf" <<'CONF'
study = clocks_two_long
metrics = none
warmup = 0
samples_min = 1
samples_max = 1
timeout = 120s
[g]
family = fake
variants = sleep
N = 30000000, 30000001
CONF
: >"$T/nvml.log"; : >"$T/two.log"
GPULAB_PLUGIN=$FAKE2 GPULAB_FAKE_GPUS=2 GPULAB_FAKE_LOG="$T/two.log" GPULAB_NVML_LIB=$FAKE_NVML \
    FAKE_NVML_LOG="$T/nvml.log" $G run "$T/two_long.conf" --db "$T/two_term.db" --gpus all \
    --clocks base >"$T/two_term.out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do   # up to 10 s for both runs to start
    [ "$(grep -c '^run ' "$T/two.log" 2>/dev/null)" = 2 ] && break
    sleep 0.05
done
kill -TERM "$pid"
wait "$pid"; rc=$?
log=$(tr '\n' ';' <"$T/nvml.log")
check '[ $rc -eq 143 ] && [ "$log" = "lock $U0 1410 1410;lock $U1 1410 1410;reset $U0;reset $U1;" ]' \
    "2 GPUs, SIGTERM: exit $rc, NVML log '$log'"
check '[ "$(q "$T/two_term.db" "select count(*) from run")" = 0 ]' "2 GPUs, SIGTERM: runs in flight were stored"

# --- gpulab device: the fake GPU's ceilings and clocks ----------------------------------------
gl device --db "$T/dev.db" >"$T/dev.out" 2>&1; rc=$?
check '[ $rc -eq 0 ]' "device: exit $rc: $(tail -2 "$T/dev.out")"
check 'grep -q "L1 bandwidth: *not measured" "$T/dev.out" && grep -q "(a fake GPU measures nothing)" "$T/dev.out"' \
    "device: ceilings not said: $(grep -i bandwidth "$T/dev.out")"
check 'grep -q "SM clock (NVML): *1755 MHz now, applications 1755, default applications 1755, max 1980 MHz" "$T/dev.out"' \
    "device: clocks not said: $(grep -i clock "$T/dev.out")"
NVML="$T/none.so" gl device --db "$T/dev.db" >"$T/dev2.out" 2>&1
check 'grep -q "SM clock (NVML): *not known: no NVML" "$T/dev2.out"' "device without NVML: $(grep -i "SM clock" "$T/dev2.out")"

echo "clocks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
