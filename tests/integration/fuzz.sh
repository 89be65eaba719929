#!/bin/sh
# tests/integration/fuzz.sh - fuzz the config reader (src/config*.c) and the
# expression language (src/core/expr.c) under ASan + UBSan: builds
# tests/fuzz/fuzz_config.c with clang's libFuzzer into build/fuzz/, replays the
# seed corpus, fuzzes for FUZZ_SECONDS (default 60) on a copy of it (inputs up to
# 4096 bytes), then replays every input in tests/fuzz/regressions/ (crashes found
# once, kept so they stay fixed). A check passes when no crash, leak, hang or UB
# report comes out. A new crash input is left in build/fuzz/artifacts/: copy it
# into tests/fuzz/regressions/ with the fix. Must not write into tests/fuzz/;
# the corpus grows in a temporary folder of its own, removed at the end.
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CC_FUZZ=${CC_FUZZ:-clang}
B=build/fuzz
BIN=$B/fuzz_config
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL fuzz: $*"; }

SRC="tests/fuzz/fuzz_config.c src/core/*.c src/config/*.c src/registry/*.c src/host/util.c
     experiments/*.c experiments/cpu/*.c"
HDR="src/core/*.h src/*/*.h experiments/*.h experiments/cpu/*.h"
mkdir -p $B
# rebuild when the binary is missing or older than any source or header
stale=1
if [ -x $BIN ]; then
    stale=$(find $SRC $HDR -newer $BIN 2>/dev/null | head -n 1)
fi
if [ -n "$stale" ]; then
    if ! command -v "$CC_FUZZ" >/dev/null 2>&1 ||
       ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' |
         "$CC_FUZZ" -fsanitize=fuzzer,address,undefined -x c -o $B/probe - >/dev/null 2>&1; then
        echo "fuzz: skipped: no clang with libFuzzer"
        echo "fuzz: 0 passed, 0 failed, 1 skipped"
        exit 0
    fi
    rm -f $B/probe
    # shellcheck disable=SC2086
    if ! "$CC_FUZZ" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -g -O1 -std=c11 -D_GNU_SOURCE -fopenmp -Isrc/core -Isrc/host -Isrc/registry -Isrc/config -Iexperiments \
        -Iexperiments/cpu -o $BIN.tmp $SRC -lm -ldl >$B/build.log 2>&1; then
        cat $B/build.log
        bad "building $BIN failed"
        echo "fuzz: $pass passed, $fail failed"
        exit 1
    fi
    mv $BIN.tmp $BIN
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The corpus copy grows to thousands of files: a work folder of this run outside
# build/ (other scripts copy build/, and two runs must not share one).
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -r tests/fuzz/corpus "$W/corpus"
mkdir -p "$W/artifacts"
LOG=$W/fuzz.log
# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: a runaway allocation
OPTS="-max_len=4096 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$W/artifacts/"
# a crash input found: kept in build/fuzz/artifacts/ with the log
keep() {
    mkdir -p $B/artifacts
    cp "$W"/artifacts/* $B/artifacts/ 2>/dev/null
    cp "$LOG" $B/artifacts/last.log
}

# 1. the seed corpus, each input once
if $BIN $OPTS -runs=0 "$W/corpus" >"$LOG" 2>&1; then ok; else
    tail -n 40 "$LOG"; keep; bad "replaying tests/fuzz/corpus crashed (log: $B/artifacts/last.log)"; fi

# 2. fuzzing for FUZZ_SECONDS on the copy
if $BIN $OPTS -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 "$W/corpus" >"$LOG" 2>&1; then
    ok
    echo "fuzz: $(grep -E '^stat::number_of_executed_units' "$LOG" | tail -n 1 | sed 's/.*: *//') inputs in ${FUZZ_SECONDS} s, no crash"
else
    tail -n 60 "$LOG"
    keep
    bad "fuzzing found a crash: $(ls "$W/artifacts/" | tr '\n' ' ')(copied to $B/artifacts/, log last.log)"
fi

# 3. every committed crash input, one check each
for f in tests/fuzz/regressions/*; do
    [ -f "$f" ] || continue
    case "$f" in */README*) continue;; esac
    if $BIN $OPTS "$f" >"$LOG" 2>&1; then ok; else tail -n 40 "$LOG"; bad "regression $f crashes again"; fi
done

echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
