#!/bin/sh
# tests/integration/search.sh - searches (strategy =) without a GPU: the fake GPU
# plugin's `bowl` (tests/plugins/fake_gpu.c) is a space of 12^4 points (M, P, BS, K)
# with one best point (M=9 P=4 BS=7 K=3, 1 ms), local minima, a `where` that drops
# points, a check that rejects BS*K > 96 and wrong runs where M + P = 17. Checked:
# local, annealing and genetic find the best point within 400 evaluations (2.5 % of
# the launchable points) for at least 3 of 5 seeds, random within 80 % of a smaller
# space; every evaluated point is stored once, none rejected or dropped is run;
# the same seed gives the same points; a search killed with kill -9 resumes without
# running a point twice and ends with the points of an uninterrupted one; a longer
# budget resumes the stored points and adds only new ones; `-gflops` finds the same
# best; a budget in seconds stops; `plan` says the strategy, the space and its
# rejections, the budget and what is stored; a config with a search plans fast; bad
# keys are file:line errors (exit 2). The report's search figure is checked by
# tests/integration/report.sh's way (plots/search_progress.sql on the database
# made here). Must not need a GPU; about 20 s.
G=./build/gpulab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL search: $2"; fi; }
sq() { sqlite3 "$1" "$2" 2>&1; }
FAKE=build/tests/plugins/fake_gpu.so
[ -f "$FAKE" ] || { echo "search: $FAKE is missing (make all)"; echo "search: 0 passed, 1 failed"; exit 1; }
export GPULAB_PLUGIN="$FAKE" GPULAB_LOCK_DIR="$T/locks"
unset CUDA_VISIBLE_DEVICES GPULAB_FAKE_MODELS GPULAB_FAKE_COUNTERS GPULAB_UNIT_MIN GPULAB_BATCH GPULAB_FAKE_GPUS

# conf STRATEGY SEED BUDGET [RANGE] [OBJECTIVE]: the bowl's config on stdout
conf() {
    r=${4:-1:12:1}
    cat <<CONF
study = bowl
warmup = 0
samples_min = 1
samples_max = 1
metrics = none
[bowl]
family = fake
variants = bowl
M = $r
P = $r
BS = $r
K = $r
where = (M + P) % 7 != 0
strategy = $1
budget = $3
search_seed = $2
objective = ${5:-time}
CONF
}
# the evaluations (runs of the section, in order) up to the first at the best point; "" if never
found_at() { sq "$1" "select (select count(*) from run where status <> 'skipped' and id <= b.id) from (select min(id) id from run where m = 9 and p = 4 and bs = 7 and k = 3 and status = 'ok') b where b.id is not null"; }

# (a) each strategy, 5 seeds
for st in local annealing genetic random; do
    hits=0
    for seed in 1 2 3 4 5; do
        db="$T/$st$seed.db"
        if [ $st = random ]; then
            conf $st $seed 80% "" >"$T/c.conf"
            sed -i 's/^M = .*/M = 6:11:1/; s/^P = .*/P = 1:6:1/; s/^BS = .*/BS = 4:9:1/; s/^K = .*/K = 1:6:1/' "$T/c.conf"
        else
            conf $st $seed 400 >"$T/c.conf"
        fi
        $G run "$T/c.conf" --db "$db" >"$T/$st$seed.out" 2>&1
        at=$(found_at "$db")
        [ -n "$at" ] && hits=$((hits + 1))
        n=$(sq "$db" "select count(*) from run")
        distinct=$(sq "$db" "select count(distinct m || ',' || p || ',' || bs || ',' || k) from run")
        check '[ "$n" = "$distinct" ]' "$st seed $seed: $n runs of $distinct points (a point ran twice)"
        check '[ "$(sq "$db" "select count(*) from run where status = '"'skipped'"' or bs * k > 96 or (m + p) % 7 = 0")" = 0 ]' \
            "$st seed $seed: a rejected or dropped point was run"
        grep -q "^gpulab: search \[bowl\] ($st, search_seed $seed): [0-9]* evaluations" "$T/$st$seed.out"
        check '[ $? -eq 0 ]' "$st seed $seed: no summary: $(tail -2 "$T/$st$seed.out")"
        [ $st != random ] && check '[ "$n" = 400 ]' "$st seed $seed: $n evaluations (budget 400)"
    done
    check '[ $hits -ge 3 ]' "$st: the best point found for $hits of 5 seeds (want 3 or more)"
    echo "search: $st found the best point for $hits of 5 seeds"
done
# the summary names the best point
grep -q "best median_ms = 1 at M=9 P=4 BS=7 K=3" "$T/annealing1.out"
check '[ $? -eq 0 ]' "annealing: summary $(grep 'search \[' "$T/annealing1.out")"

# (b) the same seed, the same points (a new database)
conf genetic 2 400 >"$T/c.conf"
$G run "$T/c.conf" --db "$T/again.db" >/dev/null 2>&1
pts() { sq "$1" "select m, p, bs, k from run order by m, p, bs, k"; }
check '[ "$(pts "$T/again.db")" = "$(pts "$T/genetic2.db")" ]' "genetic seed 2 twice: different points"

# (c) kill -9 in the middle, then resume: no point twice, the points of the uninterrupted search
conf annealing 4 400 >"$T/c.conf"
GPULAB_FAKE_LOG="$T/kill.log" $G run "$T/c.conf" --db "$T/kill.db" >"$T/kill.out" 2>&1 &
pid=$!
i=0
runs_logged() { n=$(grep -c '^run ' "$T/kill.log" 2>/dev/null); echo "${n:-0}"; }
while [ $i -lt 200 ] && [ "$(runs_logged)" -lt 120 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
before=$(sq "$T/kill.db" "select count(*) from run")
check '[ "$before" -gt 0 ] && [ "$before" -lt 400 ]' "kill -9: $before runs stored before the kill (want some, not all)"
$G run "$T/c.conf" --db "$T/kill.db" >"$T/resume.out" 2>&1
n=$(sq "$T/kill.db" "select count(*) from run")
distinct=$(sq "$T/kill.db" "select count(distinct m || ',' || p || ',' || bs || ',' || k) from run")
check '[ "$n" = 400 ] && [ "$distinct" = 400 ]' "resume: $n runs of $distinct points (want 400 of 400)"
check '[ "$(pts "$T/kill.db")" = "$(pts "$T/annealing4.db")" ]' "resume: not the points of the uninterrupted search"
grep -q "from stored runs" "$T/resume.out" && grep -Eq "\(([0-9]+) ran, $before from stored runs\)" "$T/resume.out"
check '[ $? -eq 0 ]' "resume: $(grep 'search \[' "$T/resume.out") (want $before from stored runs)"

# (d) a longer budget goes on from the stored points (genetic: its points do not
# depend on the budget; annealing's schedule spans it)
conf genetic 3 500 >"$T/c.conf"
$G run "$T/c.conf" --db "$T/genetic3.db" >"$T/more.out" 2>&1
nd=$(sq "$T/genetic3.db" "select count(*), count(distinct m || ',' || p || ',' || bs || ',' || k) from run")
check '[ "$nd" = "500|500" ]' "budget 400 -> 500: runs, points: $nd"
grep -q "(100 ran, 400 from stored runs)" "$T/more.out"
check '[ $? -eq 0 ]' "budget 500: $(grep 'search \[' "$T/more.out")"

# (e) -gflops: the bowl's gflops is 1 / ms, so its best is the fastest point
conf genetic 1 400 "" -gflops >"$T/c.conf"
$G run "$T/c.conf" --db "$T/gf.db" >"$T/gf.out" 2>&1
grep -q "best -gflops = 1 at M=9 P=4 BS=7 K=3" "$T/gf.out"
check '[ $? -eq 0 ]' "-gflops: $(grep 'search \[' "$T/gf.out")"

# (f) a budget in seconds stops the search
conf random 1 0.3s >"$T/c.conf"
$G run "$T/c.conf" --db "$T/secs.db" >"$T/secs.out" 2>&1
n=$(sq "$T/secs.db" "select count(*) from run")
check '[ "$n" -gt 0 ] && [ "$n" -lt 16113 ]' "budget 0.3s: $n evaluations"

# (g) plan: the strategy, the space, the budget and what is stored
conf annealing 4 500 >"$T/c.conf"
$G plan "$T/c.conf" --db "$T/kill.db" >"$T/plan.out" 2>&1
check 'grep -q "search: strategy annealing, search_seed 4, objective time (median_ms, smaller is better)" "$T/plan.out"' "plan: $(cat "$T/plan.out")"
check 'grep -q "space: 20736 points (M 12, P 12, BS 12, K 12): 16113 launchable, 3024 dropped by where, 1599 rejected by check" "$T/plan.out"' "plan: space: $(grep space "$T/plan.out")"
check 'grep -q "budget: 500 evaluations" "$T/plan.out"' "plan: budget: $(grep budget "$T/plan.out")"
check 'grep -q "stored: 400 runs of this section" "$T/plan.out"' "plan: stored: $(grep stored "$T/plan.out")"
check 'grep -q "^total: 500 to run" "$T/plan.out"' "plan: total: $(grep total "$T/plan.out")"

# (h) the report's table and figure data find the search in its database
sm=$($G query --db "$T/annealing1.db" -f report/tables/search_summary.sql --csv 2>&1)
echo "$sm" | grep -q "^bowl/bowl,annealing,1,400,.*,1,M=9 P=4 BS=7 K=3,"
check '[ $? -eq 0 ]' "search_summary.sql: $sm"
pr=$($G query --db "$T/annealing1.db" -f plots/search_progress.sql --csv 2>&1)
check '[ "$(echo "$pr" | grep -c "^evaluations,bowl/bowl annealing seed 1,")" -ge 300 ] && [ "$(echo "$pr" | grep -c "^seconds,")" -ge 300 ]' \
    "search_progress.sql: $(echo "$pr" | head -3)"
check '[ "$(echo "$pr" | grep "^evaluations," | tail -1 | cut -d, -f4)" = 1 ]' "search_progress.sql: last best $(echo "$pr" | grep "^evaluations," | tail -1)"

# (i) bad keys: file:line errors, exit 2, no database made
bad() {   # LINE-PATTERN SED-EXPRESSION WHAT
    pat=$1
    conf annealing 1 400 | sed "$2" >"$T/bad.conf"
    $G plan "$T/bad.conf" --db "$T/bad.db" >"$T/bad.out" 2>&1
    rc=$?
    check '[ $rc -eq 2 ] && grep -qF "$pat" "$T/bad.out" && [ ! -e "$T/bad.db" ]' "$3: exit $rc: $(cat "$T/bad.out")"
}
bad "bad.conf:14: unknown strategy 'anealing' (did you mean 'annealing'?)" 's/^strategy = .*/strategy = anealing/' "unknown strategy"
bad "bad.conf:15: budget = -1 must be more than 0" 's/^budget = .*/budget = -1/' "budget = -1"
bad "bad.conf:15: bad budget '10 parsecs'" 's/^budget = .*/budget = 10 parsecs/' "budget unit"
bad "bad.conf:17: objective 'gflop': the results view has no column 'gflop' (did you mean 'gflops'?)" 's/^objective = .*/objective = gflop/' "objective naming no column"
bad "bad.conf:17: objective 'variant': column 'variant' holds text" 's/^objective = .*/objective = variant/' "objective naming a text column"
bad "bad.conf:16: bad search_seed 'x'" 's/^search_seed = .*/search_seed = x/' "search_seed"
bad "bad.conf:15: 'budget' belongs to a search" 's/^strategy = .*/strategy = exhaustive/' "budget without a search"

echo "search: $pass passed, $fail failed"
[ $fail -eq 0 ]
