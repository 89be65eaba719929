#!/bin/sh
# tests/integration/messages.sh - the messages of storage and input-file errors
# name the file and the cause: a damaged or non-SQLite input among three to
# `merge` (which input, its file, nothing merged), a database in a folder that
# cannot be written and a new one there ("Permission denied"), a directory as
# the database, /dev/null as --db (refused, nothing made in /dev), `query` and
# `plan` on a damaged file; reading commands leave no -wal/-shm beside a
# read-only database; a kernel source that is /dev/zero, over 16 MiB or binary,
# a C reference or an included header over its limit, a config that is a folder,
# too large or unreadable; a very long echoed input is shortened and the reason
# after it kept. The tests run as root in CI, and root ignores permission bits:
# "cannot be written" is tested as the user nobody (setpriv), else with an
# immutable folder (chattr +i, which binds root too), else skipped with why.
# Must not need a GPU, nor leave anything outside its temporary folder.
G=./build/gpulab
umask 022   # the user nobody reads the configs written here
PL="--plugin build/tests/plugins/faults_plugin.so"
T=$(mktemp -d)
trap 'chattr -R -i "$T" 2>/dev/null; rm -rf "$T"' EXIT
export GPULAB_CACHE="$T/cache"
pass=0; fail=0; skip=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL messages: $2"; fi; }
[ -f build/tests/plugins/faults_plugin.so ] || { echo "messages: faults_plugin.so is missing (make all)"; echo "messages: 0 passed, 1 failed"; exit 1; }
cat >"$T/s.conf" <<'CONF'
study = msg
[cpu]
family = faults
variants = fault_ok
N = 1000
warmup = 0
samples_min = 1
samples_max = 1
CONF
# nothing beside a database but itself
alone() { [ -f "$1" ] && [ ! -e "$1-wal" ] && [ ! -e "$1-shm" ] && [ ! -e "$1-journal" ]; }
$G run "$T/s.conf" --db "$T/a.db" $PL >/dev/null 2>&1
cp "$T/a.db" "$T/b.db"; cp "$T/a.db" "$T/c.db"
psz=$(sqlite3 "$T/a.db" "pragma page_size")

# --- merge: a damaged input, a non-SQLite input among three -------------------------
pg=$(sqlite3 "$T/b.db" "select rootpage from sqlite_master where name = 'sample'")
head -c "$psz" /dev/zero | tr '\0' '\245' | dd of="$T/b.db" bs="$psz" seek=$((pg - 1)) conv=notrunc 2>/dev/null
$G merge "$T/out.db" "$T/a.db" "$T/b.db" "$T/c.db" >"$T/m.out" 2>"$T/m.err"; rc=$?
check '[ $rc -eq 3 ] && grep -q "^gpulab: merge: input 2 of 3: database $T/b.db is damaged (.*malformed.*); nothing was merged$" "$T/m.err"' \
    "damaged input: exit $rc: $(cat "$T/m.err")"
check '[ ! -e "$T/out.db" ] && ! grep -q "runs added" "$T/m.out"' "damaged input: something was merged: $(cat "$T/m.out")"
printf 'a text file, not a database\n' >"$T/text.db"
$G merge "$T/out.db" "$T/a.db" "$T/c.db" "$T/text.db" >/dev/null 2>"$T/m2.err"; rc=$?
check '[ $rc -eq 3 ] && grep -q "^gpulab: merge: input 3 of 3: $T/text.db: not a SQLite database (file is not a database); nothing was merged$" "$T/m2.err" && [ ! -e "$T/out.db" ]' \
    "non-SQLite input: exit $rc: $(cat "$T/m2.err")"
check '! grep -q "PRAGMA" "$T/m2.err"' "non-SQLite input: the message shows SQL: $(cat "$T/m2.err")"
check 'alone "$T/a.db" && alone "$T/c.db"' "merge's inputs have files beside them: $(ls "$T")"

# --- query and plan on a damaged file, on a file that is not SQLite ------------------
$G query --db "$T/b.db" "select * from sample" >/dev/null 2>"$T/q.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^gpulab: query: database $T/b.db is damaged (database disk image is malformed)$" "$T/q.err"' \
    "query on a damaged table: exit $rc: $(cat "$T/q.err")"
cp "$T/a.db" "$T/d.db"   # sqlite_master itself damaged: seen while the file is opened
head -c 200 /dev/zero | tr '\0' '\245' | dd of="$T/d.db" bs=1 seek=100 conv=notrunc 2>/dev/null
for c in query plan; do
    if [ $c = query ]; then $G query "select 1" --db "$T/d.db" >/dev/null 2>"$T/d.err"; rc=$?
    else $G plan "$T/s.conf" --db "$T/d.db" $PL >/dev/null 2>"$T/d.err"; rc=$?; fi
    check '[ $rc -eq 2 ] && grep -q "^gpulab: database $T/d.db is damaged (.*malformed)$" "$T/d.err"' \
        "$c on a damaged file: exit $rc: $(cat "$T/d.err")"
    if [ $c = query ]; then $G query "select 1" --db "$T/text.db" >/dev/null 2>"$T/t.err"; rc=$?
    else $G plan "$T/s.conf" --db "$T/text.db" $PL >/dev/null 2>"$T/t.err"; rc=$?; fi
    check '[ $rc -eq 2 ] && grep -q "^gpulab: $T/text.db: not a SQLite database (file is not a database)$" "$T/t.err"' \
        "$c on a text file: exit $rc: $(cat "$T/t.err")"
done
check 'alone "$T/d.db" && alone "$T/text.db"' "query or plan left files beside a damaged file: $(ls "$T")"

# --- a directory as the database; /dev/null as the database ------------------------
mkdir "$T/dir.db"
for c in run plan query; do
    if [ $c = query ]; then $G query "select 1" --db "$T/dir.db" >/dev/null 2>"$T/x.err"; rc=$?
    else $G $c "$T/s.conf" --db "$T/dir.db" $PL >/dev/null 2>"$T/x.err"; rc=$?; fi
    check '[ $rc -ne 0 ] && grep -q "^gpulab: $T/dir.db: is a directory, not a database file$" "$T/x.err"' "$c on a directory: exit $rc: $(cat "$T/x.err")"
done
check '[ -z "$(ls -A "$T/dir.db")" ]' "something was made in the directory given as the database: $(ls -A "$T/dir.db")"
before=$(ls -d /dev/null?* 2>/dev/null)
for c in run plan query merge; do
    case $c in
    query) $G query "select 1" --db /dev/null >/dev/null 2>"$T/x.err"; rc=$? ;;
    merge) $G merge /dev/null "$T/a.db" >/dev/null 2>"$T/x.err"; rc=$? ;;
    *) $G $c "$T/s.conf" --db /dev/null $PL >/dev/null 2>"$T/x.err"; rc=$? ;;
    esac
    check '[ $rc -ne 0 ] && grep -q "/dev/null: is not a regular file (a character device), not a database file" "$T/x.err"' "$c on /dev/null: exit $rc: $(cat "$T/x.err")"
done
check '[ "$(ls -d /dev/null?* 2>/dev/null)" = "$before" ]' "files made beside /dev/null: $(ls -d /dev/null?* 2>/dev/null)"
check '[ -c /dev/null ]' "/dev/null is no longer a character device"

# --- reading commands leave nothing beside a read-only database ----------------------
cp "$T/a.db" "$T/ro.db"
chmod 444 "$T/ro.db"   # root may still write it: read, then tidied
$G plan "$T/s.conf" --db "$T/ro.db" $PL >"$T/p.out" 2>&1; rc=$?
check '[ $rc -eq 0 ] && grep -q "1 done" "$T/p.out" && alone "$T/ro.db"' "plan on a read-only database: exit $rc, beside it: $(ls "$T" | grep ro.db)"
$G query --db "$T/ro.db" "select count(*) from run" >/dev/null 2>&1; rc=$?
check '[ $rc -eq 0 ] && alone "$T/ro.db"' "query on a read-only database: exit $rc, beside it: $(ls "$T" | grep ro.db)"
$G plan "$T/s.conf" --db "$T/a.db" $PL >/dev/null 2>&1
$G query --db "$T/a.db" "select count(*) from run" >/dev/null 2>&1
check 'alone "$T/a.db"' "plan and query on a database leave files beside it: $(ls "$T" | grep a.db)"

# --- a folder that cannot be written, a file that cannot be read -------------------
# as nobody (permission bits bind it), else with chattr +i (binds root too)
mkdir "$T/u"; chmod 755 "$T"
as=""; denied=""
if setpriv --reuid=65534 --regid=65534 --clear-groups $G --version >/dev/null 2>&1 &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -r build/tests/plugins/faults_plugin.so; then
    as="setpriv --reuid=65534 --regid=65534 --clear-groups env GPULAB_CACHE=$T/u/cache"
    denied="Permission denied"
    chown 65534 "$T/u"
fi
cp "$T/a.db" "$T/u/w.db"; [ -n "$as" ] && chown 65534 "$T/u/w.db"
lock_dir()   { if [ -n "$as" ]; then chmod 555 "$T/u"; else chattr +i "$T/u" 2>/dev/null; fi; }
unlock_dir() { if [ -n "$as" ]; then chmod 755 "$T/u"; else chattr -i "$T/u" 2>/dev/null; fi; }
if [ -z "$as" ] && lock_dir && ! touch "$T/u/probe" 2>/dev/null; then denied="Operation not permitted"; fi
unlock_dir; rm -f "$T/u/probe"
if [ -z "$denied" ]; then
    echo "messages: the read-only folder is not tested: neither setpriv to the user nobody nor chattr +i works here"
    skip=$((skip + 7))
else
    lock_dir
    sum=$(cksum <"$T/u/w.db")
    $as $G run "$T/s.conf" --db "$T/u/w.db" $PL >/dev/null 2>"$T/x.err"; rc=$?
    check '[ $rc -eq 3 ] && grep -q "^gpulab: $T/u/w.db: cannot write the database: its folder $T/u cannot be written ($denied)" "$T/x.err"' \
        "run in a read-only folder: exit $rc: $(cat "$T/x.err")"
    check '[ "$(cksum <"$T/u/w.db")" = "$sum" ] && alone "$T/u/w.db"' "run in a read-only folder changed the file or left files: $(ls "$T/u")"
    $as $G run "$T/s.conf" --db "$T/u/new.db" $PL >/dev/null 2>"$T/x.err"; rc=$?
    check '[ $rc -eq 3 ] && grep -q "^gpulab: $T/u/new.db: cannot create the database: its folder $T/u cannot be written: $denied$" "$T/x.err" && [ ! -e "$T/u/new.db" ]' \
        "a new database in a read-only folder: exit $rc: $(cat "$T/x.err")"
    $as $G plan "$T/s.conf" --db "$T/u/w.db" $PL >"$T/p.out" 2>&1; rc=$?
    check '[ $rc -eq 0 ] && grep -q "1 done" "$T/p.out" && alone "$T/u/w.db"' "plan in a read-only folder: exit $rc: $(tail -n 2 "$T/p.out")"
    unlock_dir
    if [ -n "$as" ]; then
        # a read-only file in a folder nobody can write: read as it is, nothing made
        chmod 444 "$T/u/w.db"
        $as $G plan "$T/s.conf" --db "$T/u/w.db" $PL >"$T/p.out" 2>&1; rc=$?
        $as $G query --db "$T/u/w.db" "select count(*) from run" >/dev/null 2>&1; rc2=$?
        check '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && alone "$T/u/w.db"' "plan/query on a read-only file: exit $rc/$rc2, beside it: $(ls "$T/u")"
        $as $G run "$T/s.conf" --db "$T/u/w.db" $PL >/dev/null 2>"$T/x.err"; rc=$?
        check '[ $rc -eq 3 ] && grep -q "^gpulab: $T/u/w.db: cannot write the database: Permission denied$" "$T/x.err" && alone "$T/u/w.db"' \
            "run on a read-only file: exit $rc: $(cat "$T/x.err")"
        # a config nobody may read
        cp "$T/s.conf" "$T/u/secret.conf"; chmod 600 "$T/u/secret.conf"
        $as $G plan "$T/u/secret.conf" >/dev/null 2>"$T/x.err"; rc=$?
        check '[ $rc -eq 2 ] && grep -q "^$T/u/secret.conf: cannot read the config: Permission denied$" "$T/x.err"' \
            "an unreadable config: exit $rc: $(cat "$T/x.err")"
    else
        skip=$((skip + 3))
        echo "messages: the read-only file is not tested: setpriv to the user nobody does not work here"
    fi
fi

# --- kernel sources, included headers, C references, configs: regular files, limits --
mkdir -p "$T/k"
cat >"$T/k/scale.cu" <<'CU'
__global__ void scale(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
CU
kconf() {   # kconf NAME SOURCE [EXTRA LINE]: a kernel config in $T/k
    printf 'study = k\n[scale]\nsource = %s\nvariants = scale\nN = 1024\nbuffer.in = float[N] random\nbuffer.out = float[N] output\nargs = out, in, int N\ngrid = cdiv(N, 256)\nblock = 256\n%s\n' "$2" "${3:-}" >"$T/k/$1.conf"
}
kconf zero /dev/zero
$G plan "$T/k/zero.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/k/zero.conf:3: source: cannot read the kernel file /dev/zero: is not a regular file (a character device)$" "$T/x.err"' \
    "source = /dev/zero: exit $rc: $(cat "$T/x.err")"
truncate -s 17M "$T/k/big.cu"
kconf big big.cu
$G plan "$T/k/big.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/k/big.conf:3: source: cannot read the kernel file $T/k/big.cu: is 17.0 MiB, over the limit of 16.0 MiB$" "$T/x.err"' \
    "a 17 MiB source: exit $rc: $(cat "$T/x.err")"
{ cat "$T/k/scale.cu"; head -c 4096 /dev/urandom; printf '\0'; } >"$T/k/bin.cu"
kconf bin bin.cu
$G plan "$T/k/bin.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/k/bin.conf:3: source: the kernel file $T/k/bin.cu is not text (a NUL byte at byte [0-9]*)" "$T/x.err" && ! grep -q variants "$T/x.err"' \
    "a binary source: exit $rc: $(cat "$T/x.err")"
truncate -s 257M "$T/k/ref.so"
kconf cref scale.cu "verify = c:ref.so:scale_ref"
$G plan "$T/k/cref.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/k/cref.conf:11: verify: cannot read the C reference $T/k/ref.so: is 257.0 MiB, over the limit of 256.0 MiB$" "$T/x.err"' \
    "a 257 MiB C reference: exit $rc: $(cat "$T/x.err")"
ln -s /dev/zero "$T/k/zero.c"
kconf crefdev scale.cu "verify = c:zero.c:scale_ref"
$G plan "$T/k/crefdev.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "verify: cannot read the C reference $T/k/zero.c: is not a regular file (a character device)$" "$T/x.err"' \
    "a C reference that is /dev/zero: exit $rc: $(cat "$T/x.err")"
{ echo '#include "huge.h"'; cat "$T/k/scale.cu"; } >"$T/k/inc.cu"
truncate -s 17M "$T/k/huge.h"
kconf inc inc.cu
$G plan "$T/k/inc.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "cannot read the included file $T/k/huge.h: is 17.0 MiB, over the limit of 16.0 MiB" "$T/x.err"' \
    "a 17 MiB header: exit $rc: $(cat "$T/x.err")"
mkdir "$T/dir.conf"
$G plan "$T/dir.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/dir.conf: cannot read the config: is a directory$" "$T/x.err"' "a config that is a directory: exit $rc: $(cat "$T/x.err")"
truncate -s 17M "$T/huge.conf"
$G plan "$T/huge.conf" >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/huge.conf: cannot read the config: is 17.0 MiB, over the limit of 16.0 MiB$" "$T/x.err"' "a 17 MiB config: exit $rc: $(cat "$T/x.err")"
$G plan /dev/zero >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^/dev/zero: cannot read the config: is not a regular file (a character device)$" "$T/x.err"' "/dev/zero as a config: exit $rc: $(cat "$T/x.err")"

# --- a very long echoed input: shortened, the reason after it kept --------------------
long=$(head -c 3000 /dev/zero | tr '\0' 'v')
printf 'study = x\n[cpu]\nfamily = faults\nvariants = %s\nN = 1\n' "$long" >"$T/long.conf"
$G plan "$T/long.conf" $PL >/dev/null 2>"$T/x.err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "^$T/long.conf:4: unknown variant '"'"'v*\.\.\.'"'"' of family faults (variants: .*fault_ok.*)$" "$T/x.err" && [ "$(wc -c <"$T/x.err")" -lt 600 ]' \
    "a long echoed input: exit $rc: $(cut -c1-300 "$T/x.err")"

if [ "$skip" -gt 0 ]; then
    echo "messages: $pass passed, $fail failed, $skip skipped"
else
    echo "messages: $pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
