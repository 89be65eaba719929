#!/bin/sh
# tests/integration/integrity.sh - what a run stores of the checks its timing
# was made under and of the machine while it ran, end to end without a GPU:
# every CPU run stores integrity = poison-every and energy NULL with its reason;
# a run measured under a loadavg file that says the host is idle
# ($GPULAB_LOADAVG_FILE, so the quiet case does not depend on this machine's
# other work) stores contaminated NULL, one under a file that says it is busy
# stores why and `run` warns at its start; a run with a busy loop on every CPU
# (a real load, the direction that holds on a loaded machine too) is marked;
# a fake GPU run (build/tests/plugins/fake_gpu.so) under the fake NVML's
# thermal slowdown is marked "GPU clock slowed", and not under the power cap;
# the results view has the columns and gflop_per_j.
# Must not need a GPU, and never calls a real NVML.
G=./build/gpulab
FAKE_GPU=build/tests/plugins/fake_gpu.so
FAKE_NVML=build/tests/fakes/libfake_nvml.so
T=$(mktemp -d)
loops=""
trap 'for p in $loops; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL integrity: $2"; fi; }
q() { $G query --db "$1" --csv "$2" | tail -n +2; }
export GPULAB_LOCK_DIR="$T/locks"
export GPULAB_CACHE="$T/cache"

cat >"$T/cpu.conf" <<'CONF'
study = integ
warmup = 1
samples_min = 5
samples_max = 30
time_cap = 0.3s
[v]
family = vecadd
variants = seq, omp
N = 200000
threads = 0
CONF

# ---- quiet, as a loadavg file says: nothing marked ---------------------------
echo "0.00 0.00 0.00 1/200 1" >"$T/quiet"
GPULAB_LOADAVG_FILE="$T/quiet" $G run "$T/cpu.conf" --db "$T/quiet.db" >"$T/out1" 2>&1
chk '[ $? -eq 0 ]' "quiet run failed: $(tail -3 "$T/out1")"
chk '[ "$(q "$T/quiet.db" "select count(*) from results where status = '"'ok'"' and contaminated is null")" = 2 ]' \
    "quiet runs marked: $(q "$T/quiet.db" "select variant, contaminated from results")"
chk '! grep -q "host is busy" "$T/out1"' "run warned on a quiet host"
chk '[ "$(q "$T/quiet.db" "select distinct integrity from results")" = "poison-every" ]' \
    "CPU integrity: $(q "$T/quiet.db" "select variant, integrity from results")"
chk '[ "$(q "$T/quiet.db" "select count(*) from results where energy_j is null and avg_power_w is null and gflop_per_j is null and energy_reason = '"'CPU run: no energy counter is read'"'")" = 2 ]' \
    "CPU energy: $(q "$T/quiet.db" "select variant, energy_j, energy_reason from results")"
chk '[ "$(q "$T/quiet.db" "select load1 from session")" = "0" ]' \
    "session load1 not from the loadavg file: $(q "$T/quiet.db" "select load1 from session")"

# ---- busy, as a loadavg file says: marked, and run warns ----------------------
n=$(getconf _NPROCESSORS_ONLN)
echo "$((n * 4)).00 1.00 1.00 $((n * 4 + 8))/200 1" >"$T/busy"
GPULAB_LOADAVG_FILE="$T/busy" $G run "$T/cpu.conf" --db "$T/busy.db" >"$T/out2" 2>&1
chk '[ $? -eq 0 ]' "busy run failed: $(tail -3 "$T/out2")"
chk '[ "$(q "$T/busy.db" "select count(*) from results where contaminated like '"'host busy: %'"'")" = 2 ]' \
    "busy runs not marked: $(q "$T/busy.db" "select variant, contaminated from results")"
chk 'grep -q "warning: the host is busy" "$T/out2"' "no warning at the start: $(head -3 "$T/out2")"

# ---- a real busy loop on every CPU: marked -----------------------------------
i=0
while [ $i -lt "$n" ]; do
    sh -c 'while :; do :; done' &
    loops="$loops $!"
    i=$((i + 1))
done
sleep 0.3
$G run "$T/cpu.conf" --db "$T/loops.db" >"$T/out3" 2>&1
chk '[ $? -eq 0 ]' "run under load failed: $(tail -3 "$T/out3")"
for p in $loops; do kill "$p" 2>/dev/null; done
loops=""
chk '[ "$(q "$T/loops.db" "select count(*) from results where contaminated like '"'host busy: %'"'")" = 2 ]' \
    "runs under $n busy loops not marked: $(q "$T/loops.db" "select variant, contaminated from results")"

# ---- a fake GPU's clock slowed (fake NVML events) -----------------------------
if [ -f "$FAKE_GPU" ] && [ -f "$FAKE_NVML" ]; then
    cat >"$T/gpu.conf" <<'CONF'
study = integ_gpu
metrics = none
[g]
family = fake
variants = sleep
N = 20000
CONF
    gl() { GPULAB_LOADAVG_FILE="$T/quiet" GPULAB_FAKE_CEILINGS=0 GPULAB_PLUGIN=$FAKE_GPU \
           GPULAB_NVML_LIB=$FAKE_NVML $G "$@"; }
    FAKE_NVML_EVENTS=0x20 gl run "$T/gpu.conf" --db "$T/hot.db" >"$T/out4" 2>&1
    chk '[ "$(q "$T/hot.db" "select contaminated from results")" = "GPU clock slowed (software thermal slowdown; SM clock down to 1755 MHz)" ]' \
        "thermal slowdown not marked: $(q "$T/hot.db" "select status, reason, contaminated from results"; tail -3 "$T/out4")"
    FAKE_NVML_EVENTS=0x4 gl run "$T/gpu.conf" --db "$T/cap.db" >"$T/out5" 2>&1
    chk '[ "$(q "$T/cap.db" "select count(*) from results where status = '"'ok'"' and contaminated is null")" = 1 ]' \
        "the power cap marked: $(q "$T/cap.db" "select status, contaminated from results")"
else
    echo "integrity: note: $FAKE_GPU or $FAKE_NVML missing: the GPU clock cases are not run"
fi

echo "integrity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
