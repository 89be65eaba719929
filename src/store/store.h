/* store.h - the SQLite store: open (create or migrate to db/schema.sql's version),
 * record devices, sessions and results, answer "is this run already done", and
 * run ad-hoc queries with formatted output. In a process, the parent is the only
 * writer; several processes may write one file, and split a plan through claims.
 * Its parts: store_open.c (open, create, migrate, views), store_path.c (the
 * file as a file: what may be opened, why it cannot be), store_sql.c (the SQL
 * generated from gl_param_table and gl_metric_table), store_bind.c (errors and
 * binding by column name), store_device.c (devices, sessions), store_run.c
 * (writing runs), store_resume.c (the resume lookup), store_claim.c (run claims:
 * several processes on one database split a plan), store_query.c (ad-hoc
 * queries), store_merge_facts.c and store_merge.c (`gpulab merge`: what a
 * database holds, and merging one into another); store_int.h is what they share.
 * Must not run kernels or parse configs. */
#ifndef GL_STORE_H
#define GL_STORE_H

#include <stdio.h>
#include "gpulab.h"
#include "params.h"

typedef struct gl_store gl_store;

/* Open or create path: WAL, foreign keys, busy timeout; create the schema or
 * migrate an older one (PRAGMA user_version) in one transaction. Before any of
 * that writes, PRAGMA quick_check (skipped for a file over GL_STORE_CHECK_MAX
 * bytes): a damaged file is refused untouched with -2 and err "database PATH is
 * damaged (quick_check: ...)". Refused before SQLite sees them: a directory or
 * a device as path, and a file this user cannot write or in a folder it cannot
 * write (err says which, with the system's words: "Permission denied"). Every
 * err names path. 0, or -1 / -2 + err. */
#define GL_STORE_CHECK_MAX (2LL << 30)
int gl_store_open(const char *path, gl_store **out, char *err, size_t errlen);
/* Open an existing path without writing to it (no create, WAL switch, migration
 * or view re-creation): the views are made in the connection's TEMP schema.
 * A file of an older schema version is read into memory and the copy migrated
 * (the file is not touched; `run` or `device` migrate it for good). Refuses a
 * missing file ("no database PATH"), an empty one, another program's and a
 * newer one, a directory or a device. Leaves no file beside path: the -wal and
 * -shm a reader's connection makes are removed at close (when no other process
 * has the file open), and a file this user cannot write is read as immutable
 * when no -wal is there. On such a store gl_store_query refuses statements that
 * write, and gl_store_device only looks up. 0 or -1 + err (naming path). */
int gl_store_open_readonly(const char *path, gl_store **out, char *err, size_t errlen);
void gl_store_close(gl_store *s);
const char *gl_store_errmsg(gl_store *s);

/* Insert the device if its ident is new (properties too), return its id (>0), -1 on error.
 * On a read-only store: the row of that ident, else the first of its model (kind,
 * name, cores, SMs, compute capability, as db/views.sql's device_model), else 0. */
long long gl_store_device(gl_store *s, const struct gl_device *d);
/* The device's measured copy bandwidth, recorded when its row has none yet
 * (properties as first seen; measured under the device's lock, after the row
 * was made). Nothing on a read-only store or without a measurement. 0, or -1. */
int gl_store_device_bandwidth(gl_store *s, long long device_id, double gbs);
/* 1 when the device's memory ceilings are recorded, 0 when not (yet), -1 on error. */
int gl_store_device_has_ceilings(gl_store *s, long long device_id);
/* Record the memory ceilings (struct gl_ceilings) when the row has none yet:
 * each measured one (> 0; the others NULL), the clock, c->why as the reason
 * and the time. When none was measured only the reason is written ("not
 * measured: ..."), and a later measurement may still fill them. Nothing on a
 * read-only store. 0, or -1. */
int gl_store_device_ceilings(gl_store *s, long long device_id, const struct gl_ceilings *c);
/* The same for ceilings measured earlier, at measured_at (UTC text, as
 * ceilings_at is written; NULL = now): those a new database takes from the
 * machine's ceilings cache (ceilings_cache.h). */
int gl_store_device_ceilings_at(gl_store *s, long long device_id, const struct gl_ceilings *c,
                                const char *measured_at);

struct gl_session_info {
    const char *tool_version;
    const char *git_revision;
    const char *host;
    const char *argv;          /* the command line, space-joined */
    const char *config_path;
    const char *config_text;
    const char *config_hash;   /* hex SHA-256 of config_text */
    const char *study;
    /* What gpulab saw of the machine as the session began (schema: session);
     * have_facts 0 (a zeroed struct): none of it recorded, all NULL. */
    int have_facts;
    double load1;              /* 1-minute load average; < 0 unknown (NULL) */
    double lock_wait_s;        /* seconds waited for device locks; < 0 unknown */
    long long gpu_procs;       /* other processes on the GPU; < 0 not checked (NULL) ... */
    const char *gpu_procs_reason;   /* ... and why */
    /* The GPU's clocks (schema: session); have_clocks 0: none recorded, all NULL. */
    int have_clocks;
    const char *clocks_asked;  /* "none" | "base" (run --clocks) */
    int clocks_locked;         /* 1 locked by gpulab, 0 not; < 0 unknown (NULL) */
    const char *clocks_reason; /* what was done, or why not */
    int sm_clock_mhz, sm_app_clock_mhz, sm_app_default_mhz, sm_max_clock_mhz; /* <= 0: NULL */
    const char *clock_events;  /* NVML clock event reasons, "" none; NULL unknown */
    const char *nvml_reason;   /* why the NVML readings are NULL */
};
long long gl_store_session_begin(gl_store *s, const struct gl_session_info *si);
/* The slice of the plan the session runs (--shard I/N: index I of count N),
 * recorded right after it began; a session without it ran the whole plan. 0 or -1. */
int gl_store_session_shard(gl_store *s, long long session_id, int index, int count);
/* Set the session's end time and remake the results_<study> views (a study that
 * got its first named parameters in this session gets its view). 0 or -1. */
int gl_store_session_end(gl_store *s, long long session_id);

/* What identifies a run for resume: device + family + variant + every parameter
 * + a user kernel's named parameters and hash. */
struct gl_run_key {
    long long device_id;
    const char *family;
    const char *variant;
    const struct gl_params *p;
    const char *study;   /* part of the identity: a run shared by two studies runs in each */
    /* The named parameters p->user as gl_params_user_format writes them (column
     * run.uparams). NULL or "": taken from p->user (none for a built-in variant);
     * given, it must be that text, else the store refuses the key. */
    const char *uparams;
    /* A user kernel's hash (kernel.h's `hash`; column run.code_hash), NULL or ""
     * for a built-in variant. */
    const char *code_hash;
};
/* 1 if an ok run with exactly this key is stored, 0 if not, -1 on error. Every
 * part matches exactly and NULL only NULL: a built-in variant's key finds no
 * run with named parameters or a hash, an edited kernel's (new code_hash) none
 * of the old kernel's runs. The device matches by model (the device_model view
 * of db/views.sql: kind, name, cores or SMs, compute capability), so a sweep
 * resumes on whichever H100 of a cluster it lands on; the run's own device row
 * keeps the UUID. */
int gl_store_has_ok(gl_store *s, const struct gl_run_key *k);
/* An ok run of key k whose counters were lost to another run of its profiling
 * batch (metrics_reason GL_REASON_BATCH_LOST, or ending GL_REASON_OTHER_RUN:
 * stored so by an older gpulab) does not count: the next `run` profiles it.
 * The same holds for gl_store_claim's "done". */

/* What the latest ok run of key k cost, in ms of kernel and copy time: its
 * median times the kernel's executions (verification, warm-up, samples,
 * profiler passes) plus its copies: the scheduler's estimate (`run --gpus`).
 * -1 when none is stored, -2 on an error. */
double gl_store_run_cost(gl_store *s, const struct gl_run_key *k);

/* 1 if a run with exactly this key and this status is stored (used so that a
 * launch rejected by check() is recorded as skipped once, not on every re-run). */
int gl_store_has_status(gl_store *s, const struct gl_run_key *k, const char *status);

/* One scalar argument of a user kernel's run (run_scalar's row). */
struct gl_run_scalar {
    int idx;                   /* its position in args, from 1 */
    const char *name;          /* the kernel's parameter name; NULL: not known */
    const char *type;          /* "float", "int", ... */
    const char *expr;          /* as the config wrote it */
    int is_real;               /* 1: d holds the value (floating types), else i */
    long long i;
    double d;
};
/* ---- searches (store_search.c) ----
 * A search (src/sweep/search.c) reads what it evaluated from the runs stored:
 * a point is evaluated when any run of its key is stored (ok, wrong, failed or
 * skipped by the harness), so that resuming never runs it again. */
struct gl_search_point {
    long long run_id;
    char status[16];
    double value;     /* the objective column of its results row; NAN when NULL or not ok */
    double seconds;   /* what it took the search: from the previous stored run of its study
                         and section in its session (else its own start) to its storing */
};
/* The latest run of key k (an ok one first) and its objective column of the
 * results view. 1 found, 0 none, -1 error. */
int gl_store_search_point(gl_store *s, const struct gl_run_key *k, const char *column,
                          struct gl_search_point *out);
/* Is column a numeric column of the results view? 1 yes; 0 no such column
 * (near, if not NULL, gets the nearest name or ""); 2 a text column; -1 error. */
int gl_store_results_column(gl_store *s, const char *column, char *near, size_t nearlen);
/* Runs (not skipped ones) of study and section stored: -1 on error. */
long long gl_store_section_runs(gl_store *s, const char *study, const char *section);

struct gl_run_info {
    long long session_id;
    const char *study;
    const char *section;
    const struct gl_timing *t;
    double flops;              /* analytic, <0 unknown */
    double min_bytes;          /* analytic, <0 unknown */
    double started;            /* Unix time its timing began (run.started_at); <= 0 unknown */
    /* A user kernel's compiler ("nvrtc" | "nvcc") and its section's `options` as
     * written ("" for none): run.compiler, run.compile_options. NULL for a
     * built-in variant (stored as NULL). */
    const char *compiler;
    const char *compile_options;
    /* A user kernel's scalar arguments at the run's point (table run_scalar), none
     * for a built-in variant. */
    int nscalars;
    const struct gl_run_scalar *scalars;
    /* A user kernel's target ("sm_90", "sm_90a": run.target) and how it was
     * launched ("plain", "cooperative", "cluster 2x1x1": run.launch_kind); NULL for a
     * built-in variant. */
    const char *target;
    const char *launch_kind;
};
/* Store one result (run row, one run_param row per named parameter, samples,
 * metrics, launch info) in one transaction, which also deletes this process's
 * claim on the key (gl_store_claim), if it holds one.
 * Summary statistics are computed from r->samples_ms here. Returns run id or -1. */
long long gl_store_result(gl_store *s, const struct gl_run_key *k, const struct gl_run_info *ri,
                          const struct gl_result *r);
/* The results of one batch in one transaction: between begin and commit each
 * gl_store_result is a savepoint of it (one that fails leaves the others), and
 * the batch costs one commit (one sync of the log) instead of one per run.
 * begin: 0, or -1 (then each result commits alone, as without it). commit: 0,
 * or -1 with everything since begin rolled back (store those results again).
 * A process killed in between loses that batch's results, which a resumed
 * run measures again. */
int gl_store_batch_begin(gl_store *s);
int gl_store_batch_commit(gl_store *s);

/* ---- run claims (store_claim.c) ----
 * Before a run starts, the process claims its key, so that two processes running
 * one plan on one database split it. The holder is host + boot id + pid + the
 * pid's start time; a claim whose holder is gone (same host) is taken over, one
 * from another host is left alone (delete it with `gpulab query --write`). */
enum { GL_CLAIM_TAKEN = 0, GL_CLAIM_DONE = 1, GL_CLAIM_BUSY = 2, GL_CLAIM_ELSEWHERE = 3 };
/* In one IMMEDIATE transaction: force or not, a run of k (ok, wrong or failed)
 * that another process stored after run id `since` (>= 0: gl_store_last_run
 * when the caller planned; -1 no such check) gives GL_CLAIM_ELSEWHERE, so that
 * a point is not run twice; unless force, an ok run of k gives GL_CLAIM_DONE;
 * a claim of k held by another live process gives GL_CLAIM_BUSY
 * (holder, if not NULL, gets "pid N on HOST since TIME"); else the claim is this
 * process's (taken, taken over from a dead holder, or already ours) and
 * GL_CLAIM_TAKEN. -1 on error (and on a read-only store). */
int gl_store_claim(gl_store *s, const struct gl_run_key *k, int force, long long since,
                   char *holder, size_t holderlen);
/* The highest run id stored (0: none), -1 on error: a `since` for gl_store_claim. */
long long gl_store_last_run(gl_store *s);
/* 1 when a live process other than this one holds a claim on k, 0 when not,
 * -1 on error. Only reads (a read-only store answers too). */
int gl_store_claim_held(gl_store *s, const struct gl_run_key *k);
/* Give back this process's claim on k (a run that will not be stored), or all
 * of them (gl_store_close does that too). 0 or -1. */
int gl_store_unclaim(gl_store *s, const struct gl_run_key *k);
int gl_store_unclaim_all(gl_store *s);

/* ---- merging databases (store_merge_facts.c, store_merge.c) ----
 * `gpulab merge OUT IN...`: every input is opened with gl_store_open_readonly
 * (an older schema is migrated in memory), checked whole, described, and then
 * merged into OUT (gl_store_open) in one transaction of its own. */

/* PRAGMA integrity_check of the whole file. 0 sound; -2 damaged, with err
 * "database PATH is damaged (integrity_check: ...)"; -1 the check could not run. */
int gl_store_integrity(gl_store *s, const char *path, char *err, size_t errlen);

/* One study of a database as its latest session (by started_at, then id) ran it. */
struct gl_merge_study {
    char study[64];
    char config_hash[65];
    char config_path[512];
    char started_at[40];
    char host[128];
    char tool[192];          /* tool_version and git_revision */
    int shard_index, shard_count;   /* count 0: the whole plan */
};
struct gl_merge_facts {
    int nstudies;
    struct gl_merge_study *studies;   /* in study order */
    long long sessions, runs, claims;
};
/* 0, or -1 (gl_store_errmsg). gl_merge_facts_free frees the studies. */
int gl_store_merge_facts(gl_store *s, struct gl_merge_facts *f);
void gl_merge_facts_free(struct gl_merge_facts *f);
/* Every distinct (shard_index, shard_count) of the sessions of study that ran
 * the config config_hash, through fn (count 0: a session of the whole plan).
 * 0 or -1. */
int gl_store_merge_shards(gl_store *s, const char *study, const char *config_hash,
                          void (*fn)(void *arg, int index, int count), void *arg);

/* A conflict: a run of one key (study, device model, family, variant, every
 * parameter, named parameters, code hash) that OUT holds and the input does not,
 * and a run of that key that the input brings, with another outcome (status,
 * median_ms or max_rel_err). */
struct gl_merge_side {
    long long run_id;          /* had: OUT's run id; got: the input's run id */
    const char *status, *reason;
    double median_ms, max_rel_err;   /* NaN: NULL */
    const char *host, *started_at;   /* its session's */
};
struct gl_merge_conflict {
    const char *study, *family, *variant, *device;
    const char *params;        /* "N=128 BS=16 TILE=32": the parameters and named ones */
    struct gl_merge_side had, got;
};
struct gl_merge_counts {
    long long devices, sessions, sessions_ended;   /* added; sessions whose end was added */
    long long runs, runs_present;                  /* added; already in OUT */
    long long rows;            /* samples, metrics, named parameters ... added with the runs */
    long long conflicts;
};
/* Merge in into out, in one transaction on out: devices by ident, sessions by
 * (host, started_at, study, config_path, config_hash, argv), runs by (session,
 * device, created_at, study, section, family, variant, every parameter,
 * uparams, code_hash, status, started_at), each new run with the rows of every
 * table that has a run_id column; claims and meta are not merged. A table it
 * does not know (none of those, and no run_id) is an error, so a schema that
 * grows cannot lose data quietly. Conflicts go to on_conflict (may be NULL).
 * 0 merged; 1 conflicts and !allow_conflicts: rolled back, out as it was; -1 an
 * error (gl_store_errmsg(out), reading in included), rolled back.
 * *n counts what was added (zero when rolled back, but for conflicts). */
int gl_store_merge(gl_store *out, gl_store *in, int allow_conflicts,
                   void (*on_conflict)(void *arg, const struct gl_merge_conflict *c), void *arg,
                   struct gl_merge_counts *n);

/* ---- the runs one side of `gpulab compare` selects (store_select.c) ---- */

/* What identifies a run's point besides its named parameters: study, family,
 * variant, device (model name), then every parameter in gl_param_table's order. */
#define GL_SEL_FIXED 4
#define GL_SEL_NDIMS (GL_SEL_FIXED + GL_NPARAMS)
/* The name of dimension i (study, family, variant, device, then the parameters'
 * columns: n, bs ...), NULL past the end. */
const char *gl_sel_dim_name(int i);

struct gl_sel_bind {   /* a value bound to the clause's next ? */
    int is_int;
    long long i;
    const char *t;
};
struct gl_sel_run {
    long long run_id, session_id;
    char *dim[GL_SEL_NDIMS];   /* each dimension's value as text; NULL: NULL */
    char *uparams;             /* "TILE=16 BLOCK_ROWS=8" or NULL */
    char *code_hash;
    double clock_mhz;          /* SM clock: the profiled replay's, else the one its session
                                  locked (run --clocks base); NaN unknown */
    double *counter;           /* the counters asked for, NaN: NULL or no such column */
    int nsamples;
    double *samples;           /* in the order taken */
};
struct gl_selection {
    int nruns;
    struct gl_sel_run *runs;   /* by run id */
    int ncounters;
    int *present;              /* counter i is a column of this file's results view */
    int contaminated;          /* ok runs it left out: marked contaminated (the column
                                  `contaminated` of results, where the file has it) */
};
/* The ok runs of the results view (alias r) for which `where` (SQL, its ?s bound
 * to b[0..nb) in order; NULL or "" for all) holds, with the counters (results
 * columns; one the view lacks is NaN everywhere, present[i] 0) and samples;
 * a run whose `contaminated` (where the view has that column) is not NULL is
 * left out and counted.
 * 0, or -1 with SQLite's or the store's message in err (a malformed or
 * writing clause included). gl_selection_free frees it. */
int gl_store_select(gl_store *s, const char *where, const struct gl_sel_bind *b, int nb,
                    const char *const *counters, int ncounters, struct gl_selection *out,
                    char *err, size_t errlen);
void gl_selection_free(struct gl_selection *sel);
/* 1 when the view or table has the column, 0 when not, -1 on error. */
int gl_store_has_column(gl_store *s, const char *view, const char *col);
/* Every distinct named parameter of the file's runs, in name order, through fn. 0 or -1. */
int gl_store_named_param_names(gl_store *s, void (*fn)(void *arg, const char *name), void *arg);

/* ---- a saved comparison (store_cmpfile.c) ----
 * `gpulab compare --save FILE` writes struct gl_cmp_result (compare.h) into a
 * SQLite file of its own (meta.application 'gpulab-compare': tables
 * comparison, point, unmatched; docs/cli.md#compare), never into a results
 * database; `--load FILE` and `make report COMPARE=FILE` read it back. */
struct gl_cmp_result;
/* Write r to path through path.tmp and a rename; an existing path is replaced
 * only when it is a saved comparison. 0, or -1 with err. */
int gl_cmpfile_save(const char *path, const struct gl_cmp_result *r, char *err, size_t errlen);
/* 1 when path is a saved comparison, 0 when it is another file, -1 when there
 * is no such file. */
int gl_cmpfile_is(const char *path);
/* Read a saved comparison into r (gl_cmp_result_free frees it). 0, or -1 with err. */
int gl_cmpfile_load(const char *path, struct gl_cmp_result *r, char *err, size_t errlen);

enum gl_format { GL_FMT_TABLE, GL_FMT_CSV, GL_FMT_TSV, GL_FMT_MD, GL_FMT_LATEX, GL_FMT_JSON };
/* Run sql (one or more statements; the last one's rows are printed) in fmt to out.
 * NULL is printed as empty (csv/tsv/md/table/latex) or null (json). 0 or -1 + err.
 * On a read-only store a statement that would write (sqlite3_stmt_readonly, and
 * ATTACH, DETACH and PRAGMA assignments) is refused before it runs. */
int gl_store_query(gl_store *s, const char *sql, enum gl_format fmt, FILE *out,
                   char *err, size_t errlen);

#endif
