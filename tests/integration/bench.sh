#!/bin/sh
# tests/integration/bench.sh - bench/ncu_agree's matching and statistics without a
# GPU: a real gpulab database with hand-made GPU rows (three repeats of two runs)
# stands in for the gpulab sweeps, a recorded-format ncu CSV (NCU_CSV) for ncu, and
# the medians, worst, bias and noise floor it prints are checked against values
# worked out by hand, first with one ncu process, then with an EXTRA metric and
# PADS, then with three processes. Must not touch anything outside its temporary directory.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
chk() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL bench: $2"; fi; }

# the database: one GPU, two single-launch runs per sweep, sweeps = repeats 1..3
$G query --write --db "$T/fix.db" "select 1" >/dev/null || { echo "bench: 0 passed, 1 failed"; exit 1; }
gt="11000 11550 12100"; gl="93.0 93.5 94.0"      # matmul/global (8,8,1)x(16,16,1)
st="4900 4900 4900"; sl="94.5 94.5 94.5"          # stencil/shared (2,8,1)x(16,16,1)
i=1
while [ $i -le 3 ]; do
    cp "$T/fix.db" "$T/gl$i.src.db"
    a=$(echo $gt | cut -d' ' -f$i); b=$(echo $gl | cut -d' ' -f$i)
    c=$(echo $st | cut -d' ' -f$i); d=$(echo $sl | cut -d' ' -f$i)
    $G query --write --db "$T/gl$i.src.db" "
        insert into device (id, kind, name, ident) values (1, 'gpu', 'Test GPU', 'GPU-test');
        insert into session (id) values (1);
        insert into run (id, session_id, device_id, study, family, variant, status, launches,
            grid_x, grid_y, grid_z, block_x, block_y, block_z, passes, n, bs) values
            (1, 1, 1, 's', 'matmul', 'global', 'ok', 1, 8, 8, 1, 16, 16, 1, 2, 128, 16),
            (2, 1, 1, 's', 'stencil', 'shared', 'ok', 1, 2, 8, 1, 16, 16, 1, 2, 130, 16);
        insert into metric (run_id, name, value, unit) values
            (1, 'gpu__time_duration.sum', $a, 'ns'), (1, 'lts__t_sector_hit_rate.pct', $b, '%'),
            (2, 'gpu__time_duration.sum', $c, 'ns'), (2, 'lts__t_sector_hit_rate.pct', $d, '%'),
            (1, 'gpc__cycles_elapsed.max', $((a * 2)), 'cycle');" \
        >/dev/null || fail=$((fail + 1))
    i=$((i + 1))
done
# ncu: three launches of each kernel, in its CSV layout (values with thousands separators)
{
    echo '==PROF== Connected to process 1'
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    id=0
    for v in "10,000 90" "11,000 92" "12,000 94"; do
        set -- $v
        echo "\"$id\",\"1\",\"gpulab\",\"h\",\"void matmul_global<1>(const float *, const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"x\",\"gpu__time_duration.sum\",\"ns\",\"$1\""
        echo "\"$id\",\"1\",\"gpulab\",\"h\",\"void matmul_global<1>(const float *, const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"x\",\"lts__t_sector_hit_rate.pct\",\"%\",\"$2\""
        id=$((id + 1))
        echo "\"$id\",\"1\",\"gpulab\",\"h\",\"void stencil_shared(const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(2, 8, 1)\",\"0\",\"9.0\",\"x\",\"gpu__time_duration.sum\",\"ns\",\"5,000\""
        echo "\"$id\",\"1\",\"gpulab\",\"h\",\"void stencil_shared(const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(2, 8, 1)\",\"0\",\"9.0\",\"x\",\"lts__t_sector_hit_rate.pct\",\"%\",\"95\""
        id=$((id + 1))
    done
} >"$T/ncu.csv"
# gpulab stand-in: `run` does nothing; `query --db DB --csv SQL` (ncu_agree's only
# form) answers from the hand-made sweep whose number DB's name carries
cat >"$T/g" <<EOS
#!/bin/sh
[ "\$1" = run ] && echo "gl \${GPULAB_PAD:-unset}" >>"$T/pads" && exit 0
[ "\$1" = query ] && [ "\$2" = --db ] && [ "\$4" = --csv ] || exit 2
cp "$T/gl\$(basename "\$3" .db | tr -dc 0-9).src.db" "\$3" || exit 2
exec "$PWD/$G" query --db "\$3" --csv "\$5"
EOS
chmod +x "$T/g"
GPULAB="$T/g" NCU=/bin/true NCU_CSV="$T/ncu.csv" REPEAT=3 sh bench/ncu_agree bench/agree.conf >"$T/out" 2>&1
line() { grep -A1 "^  $1 " "$T/out"; }
chk 'grep -q "gpulab runs profiled: 6 (3 sweeps), ncu records: 12" "$T/out"' "run and record counts ($(grep 'runs profiled' "$T/out"))"
chk 'grep -Eq "^1 +matmul/global +gpu__time_duration.sum +11550 +11000 +\+5.00%" "$T/out"' "matmul time: median 11550 vs 11000 = +5.00 %"
chk 'grep -Eq "^2 +stencil/shared +lts__t_sector_hit_rate.pct +94.5 +95 +-0.50pt" "$T/out"' "stencil L2 hit: 94.5 vs 95 = -0.50 pt"
chk 'line gpu__time_duration.sum | grep -q "n=2 *median *3.50%  worst *5.00%  bias +1.50%"' "time summary: $(line gpu__time_duration.sum | head -1)"
chk 'line gpu__time_duration.sum | grep -q "ncu vs itself: median *4.55%  worst *18.18%  (6 pairs"' "time noise floor: $(line gpu__time_duration.sum | tail -1)"
chk 'line lts__t_sector_hit_rate.pct | grep -q "n=2 *median *1.00pt  worst *1.50pt  bias +0.50pt"' "L2 summary: $(line lts__t_sector_hit_rate.pct | head -1)"
chk 'line lts__t_sector_hit_rate.pct | grep -q "ncu vs itself: median *1.00pt  worst *4.00pt"' "L2 noise floor: $(line lts__t_sector_hit_rate.pct | tail -1)"
chk 'grep -q "dram__bytes_read.sum *no comparable runs" "$T/out"' "metrics without values are not compared"
chk '! grep -q "no ncu record" "$T/out"' "a run with ncu records reported as unmatched"
[ "$fail" -eq 0 ] || cat "$T/out"

# EXTRA: a metric outside the default set, read from the metric table and compared
cp "$T/ncu.csv" "$T/ncux.csv"
for c in 19,000 20,000 21,000; do
    echo "\"9\",\"1\",\"gpulab\",\"h\",\"void matmul_global<1>(const float *, const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"x\",\"gpc__cycles_elapsed.max\",\"cycle\",\"$c\""
done >>"$T/ncux.csv"
GPULAB="$T/g" NCU=/bin/true NCU_CSV="$T/ncux.csv" REPEAT=3 EXTRA=gpc__cycles_elapsed.max \
    sh bench/ncu_agree bench/agree.conf >"$T/outx" 2>&1
chk 'grep -Eq "^1 +matmul/global +gpc__cycles_elapsed.max +23100 +20000 +\+15.50%" "$T/outx"' \
    "EXTRA metric: cycles median 23100 vs 20000 ($(grep gpc__cycles "$T/outx" | head -1))"
chk 'grep -Eq "^1 +matmul/global +gpu__time_duration.sum +11550 +11000 +\+5.00%" "$T/outx"' "EXTRA keeps the default metrics"
EXTRA="x; drop" NCU=/bin/true sh bench/ncu_agree bench/agree.conf >"$T/outbad" 2>&1; rc=$?
chk '[ $rc -ne 0 ] && grep -q "EXTRA must be metric names" "$T/outbad"' "a bad EXTRA is refused"
[ "$fail" -eq 0 ] || cat "$T/outx"

# PADS: process i of each side gets the i-th pad (cycling); ncu stands in as a
# script that notes its GPULAB_PAD and prints the recorded CSV
printf '#!/bin/sh\necho "ncu ${GPULAB_PAD:-unset}" >>"%s/pads"\ncat "%s/ncu.csv"\n' "$T" "$T" >"$T/ncu"
chmod +x "$T/ncu"
: >"$T/pads"
GPULAB="$T/g" NCU="$T/ncu" REPEAT=3 PADS="0 4096" sh bench/ncu_agree bench/agree.conf >"$T/outp" 2>&1
chk '[ "$(tr "\n" " " <"$T/pads")" = "gl 0 gl 4096 gl 0 ncu 0 ncu 4096 ncu 0 " ]' "pads per process: $(tr '\n' ' ' <"$T/pads")"
chk 'grep -q "GPULAB_PAD per process: 0 4096" "$T/outp"' "the pads are announced"
: >"$T/pads"
GPULAB="$T/g" NCU="$T/ncu" REPEAT=1 sh bench/ncu_agree bench/agree.conf >"$T/outp" 2>&1
chk '[ "$(tr "\n" " " <"$T/pads")" = "gl unset ncu unset " ]' "no PADS, GPULAB_PAD empty: $(tr '\n' ' ' <"$T/pads")"
PADS="0 4k" NCU=/bin/true sh bench/ncu_agree bench/agree.conf >"$T/outbad" 2>&1; rc=$?
chk '[ $rc -ne 0 ] && grep -q "PADS must be byte counts" "$T/outbad"' "a bad PADS is refused"

# several ncu processes: a kernel's ncu value is the median of the process
# medians (not of all launches), and the noise floor compares processes
{
    echo '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
    id=0
    for v in "1 10,000" "1 12,000" "2 13,000" "2 13,000" "3 11,000"; do
        set -- $v
        echo "\"$id\",\"$1\",\"gpulab\",\"h\",\"void matmul_global<1>(const float *, const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"x\",\"gpu__time_duration.sum\",\"ns\",\"$2\""
        echo "\"$id\",\"$1\",\"gpulab\",\"h\",\"void stencil_shared(const float *, float *, int, int, int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(2, 8, 1)\",\"0\",\"9.0\",\"x\",\"gpu__time_duration.sum\",\"ns\",\"5,000\""
        id=$((id + 1))
    done
} >"$T/ncu3.csv"
GPULAB="$T/g" NCU=/bin/true NCU_CSV="$T/ncu3.csv" REPEAT=3 sh bench/ncu_agree bench/agree.conf >"$T/out3" 2>&1
chk 'grep -q "ncu records: 10 (3 processes)" "$T/out3"' "process count ($(grep 'runs profiled' "$T/out3"))"
chk 'grep -Eq "^1 +matmul/global +gpu__time_duration.sum +11550 +11000 +\+5.00%" "$T/out3"' "matmul time: ncu median of process medians 11000 (not 12000)"
chk 'grep -A1 "^  gpu__time_duration.sum " "$T/out3" | grep -q "ncu vs itself: median *0.00%  worst *18.18%  (6 pairs of processes)"' \
    "process noise floor: $(grep -A1 "^  gpu__time_duration.sum " "$T/out3" | tail -1)"
[ "$fail" -eq 0 ] || cat "$T/out3"
echo "bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
