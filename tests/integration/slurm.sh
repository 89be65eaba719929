#!/bin/sh
# tests/integration/slurm.sh - the Slurm scripts (slurm/) on a real Slurm: a
# one-node cluster of Debian's slurm-wlm (slurmctld and slurmd on this machine,
# authenticated by a munged of its own), made in a temporary folder with a
# generated slurm.conf (this node's CPUs and memory from `slurmd -C`) and a new
# munge key. slurm/submit sends a CPU-only config as a job array of 3 shards,
# at most 2 at once, and its merge job after it (--dependency=afterok); the
# merged database must hold exactly the runs of one unsharded run of the same
# config (same keys, same statuses: ok, wrong, failed and skipped ones). Then
# gpulab's own defaults inside a job array: --array=1-3 is shards 0..2 of 3,
# and an array of ids 1,3,7 is refused. Then a shard cancelled mid-sweep
# (scancel) copies what it stored, and submitted again (GPULAB_SHARDS) resumes
# from it: merged, the runs of one unsharded run again.
# Needs root (it starts daemons and installs slurm-wlm and munge with apt-get
# when they are missing). Not root: skipped, said so. Root but no Slurm after
# apt-get: failed, never skipped (CI runs as root: the test must run there).
# The cluster part is bounded (120 s); on a failure or a time-out it prints the
# daemons' logs and the jobs' output. Its daemons are stopped at the end, by
# their pids, whatever happened. Must not touch the machine's own Slurm or
# munge configuration (/etc/slurm, /etc/munge).
G=$(pwd)/build/gpulab
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL slurm: $2"; fi; }
if [ "$(id -u)" -ne 0 ]; then
    echo "slurm: skipped: not root (this test starts slurmctld, slurmd and munged, and installs slurm-wlm)"
    echo "slurm: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
[ -x "$G" ] || { echo "slurm: $G is missing (make)"; echo "slurm: 0 passed, 1 failed"; exit 1; }
[ -f build/tests/plugins/faults_plugin.so ] || { echo "slurm: faults_plugin.so is missing (make all)"; echo "slurm: 0 passed, 1 failed"; exit 1; }

have_slurm() {
    for c in slurmctld slurmd munged sbatch squeue sinfo scontrol; do
        command -v "$c" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$c" >/dev/null 2>&1 || return 1
    done
}
PATH=$PATH:/usr/sbin:/sbin
if ! have_slurm; then
    echo "slurm: installing slurm-wlm and munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    timeout 600 apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
        { timeout 300 apt-get update -q >/dev/null 2>&1;
          timeout 600 apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null 2>&1; }
fi
if ! have_slurm; then
    echo "FAIL slurm: slurm-wlm and munge are not installed and apt-get could not install them"
    echo "slurm: 0 passed, 1 failed"
    exit 1
fi

T=$(mktemp -d /tmp/gl-slurm.XXXXXX)
chmod 755 "$T"
export GPULAB_LOCK_DIR="$T/locks" GPULAB_CACHE="$T/cache" SLURM_CONF="$T/slurm.conf" GPULAB_LOCAL="$T/local"
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX SLURM_ARRAY_TASK_STEP
stop_daemons() {
    # a job step this cluster's slurmd started (its environment names our slurm.conf)
    for p in $(pgrep -x slurmstepd); do
        grep -qzx "SLURM_CONF=$SLURM_CONF" "/proc/$p/environ" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    for p in "$T/slurmctld.pid" "$T/slurmd.pid" "$T/munge/munged.pid"; do
        [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
    done
    sleep 1
    for p in "$T/slurmctld.pid" "$T/slurmd.pid" "$T/munge/munged.pid"; do
        [ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
    done
}
show_logs() {
    for f in "$T"/log/*.log "$T"/out/*; do
        [ -f "$f" ] || continue
        echo "---- $f (last 40 lines)"
        tail -n 40 "$f"
    done
}
finish() {
    trap '' PIPE   # a reader that went away must not stop the clean-up
    scancel --quiet --user=root >/dev/null 2>&1
    for x in 1 2 3 4 5 6 7 8 9 10; do   # the jobs' processes end before their daemons
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 1
    done
    stop_daemons
    [ "$fail" -gt 0 ] && show_logs
    rm -rf "$T"
    echo "slurm: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}
trap finish EXIT
trap 'fail=$((fail + 1)); echo "FAIL slurm: interrupted" 2>/dev/null; exit 1' INT TERM HUP PIPE
deadline=$(( $(date +%s) + 120 ))
late() { [ "$(date +%s)" -ge "$deadline" ]; }

# ---- a one-node cluster in $T ----
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/out" "$T/shared"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/munge.key"
timeout 30 munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.socket" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed"
rc=$?
chk '[ $rc -eq 0 ] && munge -n -S "$T/munge/munge.socket" | unmunge -S "$T/munge/munge.socket" >/dev/null 2>&1' \
    "munged does not answer on its socket"
# two free TCP ports for slurmctld and slurmd
free_port() {
    p=$1
    while [ "$p" -lt 60000 ]; do
        bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null || { echo "$p"; return; }
        p=$((p + 1))
    done
}
base=$((20000 + $$ % 30000))
cport=$(free_port "$base")
dport=$(free_port $((cport + 1)))
node=$(slurmd -C | head -n 1 | sed 's/ UpTime=[^ ]*//')
host=$(hostname -s)
cat >"$SLURM_CONF" <<EOF
ClusterName=gltest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
timeout 30 slurmctld -c -f "$SLURM_CONF"
rc=$?
chk '[ $rc -eq 0 ]' "slurmctld did not start (exit $rc)"
timeout 30 slurmd -f "$SLURM_CONF"
rc=$?
chk '[ $rc -eq 0 ]' "slurmd did not start (exit $rc)"
state=
until late; do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
    [ "$state" = idle ] && break
    sleep 0.5
done
chk '[ "$state" = idle ]' "the node is '$state', not idle, after the daemons started ($node)"
[ "$fail" -eq 0 ] || exit 1

# ---- the config: ok, wrong, failed and skipped runs, all CPU ----
cat >"$T/c.conf" <<'CONF'
study = slurmtest
warmup = 0
samples_min = 2
samples_max = 2
time_cap = 0.05s
timeout = 20s
[faults]
family = faults
variants = fault_ok, fault_wrong, fault_segv
N = 1000, 2000, 3000, 1<<25
[vec]
family = vecadd
variants = seq, omp
N = 1000, 4000, 16000
CONF
PL="--plugin $(pwd)/build/tests/plugins/faults_plugin.so"
$G run "$T/c.conf" --db "$T/ref.db" $PL >"$T/out/ref.log" 2>&1
rc=$?
chk '[ $rc -eq 1 ]' "the unsharded run: exit $rc (want 1: some runs are wrong and failed)"

# every run's key (the run_key index's columns, the device by its ident) and status
keys() {
    cols=$(sqlite3 "$1" "select sql from sqlite_master where name = 'run_key'" |
        sed -e 's/^[^(]*(//' -e 's/)$//' -e 's/device_id/(select ident from device d where d.id = device_id)/')
    sqlite3 -separator ' ' "$1" "select $cols from run" | sort
}

# ---- slurm/submit: the array and the merge ----
sub=$(sh slurm/submit -n 3 -p 2 -d "$T/shared" -o "$T/shared/merged.db" \
    -a "--gres=none --output=$T/out/array-%a.out --time=5" -m "--output=$T/out/merge.out --time=5" \
    "$T/c.conf" $PL 2>&1)
rc=$?
chk '[ $rc -eq 0 ]' "slurm/submit failed (exit $rc): $sub"
jid=$(echo "$sub" | sed -n 's/^array job \([0-9]*\):.*/\1/p')
mid=$(echo "$sub" | sed -n 's/^merge job \([0-9]*\) .*/\1/p')
chk '[ -n "$jid" ] && [ -n "$mid" ]' "slurm/submit printed no job ids: $sub"
while ! late && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 1; done
chk '! late' "the jobs did not finish within 120 s: $(squeue 2>&1)"
for t in 0 1 2; do
    st=$(scontrol -o show job "${jid}_$t" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    chk '[ "$st" = COMPLETED ]' "array task $t: $st"
    chk '[ -f "$T/shared/shard-$t-of-3.db" ]' "no shard-$t-of-3.db in the shared folder"
done
st=$(scontrol -o show job "$mid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
chk '[ "$st" = COMPLETED ]' "the merge job: $st"
chk 'grep -q "holds all 3 shards" "$T/out/merge.out"' "the merge did not find all 3 shards: $(cat "$T/out/merge.out")"
chk '[ -f "$T/shared/merged.db" ] && [ ! -e "$T/shared/merged.db-wal" ]' "no merged.db (or a WAL beside it)"
keys "$T/ref.db" >"$T/ref.keys"
keys "$T/shared/merged.db" >"$T/merged.keys"
chk '[ -s "$T/ref.keys" ] && cmp -s "$T/ref.keys" "$T/merged.keys"' \
    "the merged database's runs differ from one unsharded run's: $(diff "$T/ref.keys" "$T/merged.keys" | head -n 10)"
for s in ok wrong failed skipped; do
    chk 'grep -q " $s\$" "$T/merged.keys"' "no $s run in the merged database"
done
n=$(sqlite3 "$T/shared/merged.db" "select count(distinct shard_index) || '/' || max(shard_count) from session")
chk '[ "$n" = 3/3 ]' "the merged sessions' shards: $n (want 3 of 3)"

# ---- gpulab's own default inside a job array ----
for a in 1 2 3; do rm -f "$T/out/env-$a.out"; done
eid=$(sbatch --parsable --array=1-3 --gres=none --output="$T/out/env-%a.out" --time=5 \
    --wrap "$G plan $T/c.conf $PL --db $T/none.db --summary")
sid=$(sbatch --parsable --array=1,3,7 --gres=none --output="$T/out/sparse-%a.out" --time=5 \
    --wrap "$G plan $T/c.conf $PL --db $T/none.db --summary")
while ! late && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 0.5; done
chk '! late' "the array of plans did not finish within 120 s"
for a in 1 2 3; do
    chk 'grep -q "^gpulab: shard $((a - 1))/3 (SLURM_ARRAY_TASK_ID=$a of 1..3 step 1)" "$T/out/env-$a.out"' \
        "array task $a of --array=1-3 is not shard $((a - 1))/3: $(head -n 3 "$T/out/env-$a.out" 2>&1)"
done
chk 'grep -q "are not 1, 1 + 1, ... 7" "$T/out/sparse-3.out"' \
    "array ids 1,3,7 were not refused: $(head -n 3 "$T/out/sparse-3.out" 2>&1)"
st=$(scontrol -o show job "${sid}_3" 2>/dev/null | sed -n 's/.*ExitCode=\([0-9:]*\).*/\1/p')
chk '[ "$st" = 2:0 ]' "a sparse array's plan: exit $st (want 2)"
# ---- a shard cancelled mid-sweep (scancel: SIGTERM), its partial database
# copied; submitted again it resumes, and the merge equals one unsharded run ----
cat >"$T/k.conf" <<'CONF'
study = cancelled
[sleep]
family = faults
variants = fault_sleep
N = 20000:80000:2000
warmup = 0
samples_min = 2
samples_max = 2
CONF
$G run "$T/k.conf" $PL --db "$T/kref.db" >/dev/null 2>&1
total0=$($G plan "$T/k.conf" $PL --db "$T/none.db" --shard 0/2 --summary | sed -n 's/^total: \([0-9]*\) to run.*/\1/p')
kid=$(sbatch --parsable --array=0-1%1 --gres=none --output="$T/out/cancel-%a.out" --time=5 \
    slurm/gpulab-array.sbatch "$T/shared2" "$T/k.conf" $PL)
got=0
while ! late; do
    for f in "$T"/local/gpulab-*/shard-0-of-2.db; do
        [ -f "$f" ] && got=$(sqlite3 "$f" "select count(*) from run" 2>/dev/null)
    done
    [ "${got:-0}" -ge 2 ] && break
    sleep 0.1
done
scancel "${kid}_0"
while ! late && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 0.5; done
part=$(sqlite3 "$T/shared2/shard-0-of-2.db" "select count(*) from run" 2>/dev/null)
st=$(scontrol -o show job "${kid}_0" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
chk '[ "$st" = CANCELLED ] && [ "${part:-0}" -ge 2 ] && [ "$part" -lt "$total0" ]' \
    "shard 0 cancelled: $st, its copy holds ${part:-no} runs of $total0 (want some, not all)"
chk 'grep -q "SIGTERM: copying what shard 0 stored" "$T/out/cancel-0.out"' "the cancelled task did not copy its database"
rid=$(sbatch --parsable --array=0 --export=ALL,GPULAB_SHARDS=2 --gres=none --output="$T/out/again-%a.out" \
    --time=5 slurm/gpulab-array.sbatch "$T/shared2" "$T/k.conf" $PL)
mid=$(sbatch --parsable --dependency=afterok:"$rid" --output="$T/out/merge2.out" --time=5 \
    slurm/gpulab-merge.sbatch "$T/shared2" "$T/shared2/merged.db")
while ! late && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do sleep 0.5; done
chk 'grep -q "resumes from $T/shared2/shard-0-of-2.db" "$T/out/again-0.out" &&
     grep -q "^gpulab: $((total0 - part)) ran" "$T/out/again-0.out"' \
    "shard 0 submitted again did not resume: $(grep -E "gpulab(-array)?:" "$T/out/again-0.out" | head -n 4)"
st=$(scontrol -o show job "$mid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
chk '[ "$st" = COMPLETED ]' "the second merge job: $st"
keys "$T/kref.db" >"$T/kref.keys"
keys "$T/shared2/merged.db" >"$T/kmerged.keys" 2>/dev/null
chk '[ -s "$T/kref.keys" ] && cmp -s "$T/kref.keys" "$T/kmerged.keys"' \
    "cancelled, resumed and merged: differs from one unsharded run: $(diff "$T/kref.keys" "$T/kmerged.keys" | head -n 4)"
chk '[ -z "$(ls "$T/local" 2>/dev/null)" ]' "the tasks left their node-local folders: $(ls "$T/local")"
echo "slurm: cluster part took $(( $(date +%s) - deadline + 120 )) s"
exit 0
