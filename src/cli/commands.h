/* commands.h - the subcommands behind main(): each parses nothing itself (main
 * does) and returns the process exit code: 0 ok, 1 runs failed or were wrong,
 * 2 usage or config error, 3 storage error, 4 a device is busy (run --no-wait),
 * 5 and 6 merge's (below), 7 run: nothing could run (GL_EXIT_NOTHING_RAN); compare's 1
 * is a slower point. Must not call exit(). */
#ifndef GL_COMMANDS_H
#define GL_COMMANDS_H

#include "store.h"

/* `run` in which no point executed, none was done before and none is another
 * process's, while some could not run here (no GPU, rejected by check, skipped
 * by the harness). A sweep whose points are all done already exits 0. */
#define GL_EXIT_NOTHING_RAN 7

struct gl_run_opts {
    const char *db;
    int force;
    int dry_run;
    int profile_self;  /* --profile-self: where each run's time went (selfprof.h) */
    const char *only;
    int arch;          /* --arch N: compute capability for user kernels without a GPU (0 = 90) */
    int argc;          /* the whole command line, stored with the session */
    char **argv;
    int no_wait;       /* run --no-wait: refuse (exit 4) when a device is locked by another sweep */
    int clocks_base;   /* run --clocks base: lock the GPU's SM clock to base for the sweep */
    const char *shard; /* --shard I/N (shard.h); NULL: from a Slurm job array, else the whole plan */
    const char *gpus;  /* run --gpus all|0,2: one worker per GPU (NULL: one worker, GPU 0) */
};

int gl_cmd_run(int npaths, char **paths, const struct gl_run_opts *o);
int gl_cmd_plan(int npaths, char **paths, const struct gl_run_opts *o, int list_all);
int gl_cmd_list(const char *family);
int gl_cmd_query(const char *db, const char *sql, enum gl_format fmt, int write);
int gl_cmd_device(const char *db);
int gl_cmd_metrics(int npats, char *const *pats);
/* `gpulab merge OUT IN...` (cmd_merge.c): exit 0, 2 usage, 3 storage (OUT, or a
 * damaged or unreadable input), 5 conflicts (an input not merged), 6 inputs of
 * different configs (nothing merged). */
struct gl_merge_opts {
    int allow_conflicts;      /* --allow-conflicts: merge them anyway, listed */
    int allow_mixed_configs;  /* --allow-mixed-configs: merge inputs of different configs */
};
int gl_cmd_merge(const char *out, int nin, char **in, const struct gl_merge_opts *o);
/* `gpulab init FILE.cu [-o OUT|-] [--force]` (cmd_init.c): a starter config for
 * the file's kernels. 0, 1 a config that does not read (a bug), 2 usage or no
 * kernel, 3 cannot write OUT. */
int gl_cmd_init(const char *cu, const char *out, int force);

/* `gpulab compare A B` (cmd_compare.c): exit 0, 1 a point is slower beyond the
 * threshold, 2 bad input (nothing written), 3 the saved comparison could not be
 * written. */
struct gl_compare_opts {
    const char *a, *b;           /* the sides' selections ("all" when not given) */
    const char *db_a, *db_b;     /* their databases */
    double threshold;            /* relative; < 0: the measured noise floor */
    int resamples;
    unsigned long long seed;
    const char *ignore;          /* --ignore NAME,...: dimensions left out of the match */
    int by_clock;                /* --clock-normalise: verdicts on the ratio of cycles */
    enum gl_format fmt;
    const char *save;            /* --save FILE: the comparison, for --load and make report */
    const char *load;            /* --load FILE: print a saved comparison instead */
};
int gl_cmd_compare(const struct gl_compare_opts *o);

#endif
