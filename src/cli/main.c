/* main.c - gpulab's command line: parse arguments, print help, dispatch to a
 * subcommand (commands.h). Exit codes: 0 ok, 1 runs failed or were wrong,
 * 2 usage or config error, 3 storage error, 4 a device is busy, 5 merge
 * conflicts, 6 merge inputs of different configs, 7 run: nothing could run,
 * 130/143 interrupted (SIGINT/SIGTERM).
 * Must not do any subcommand's work itself. */
#include "commands.h"
#include "target.h"
#include "compare.h"
#include "fileutil.h"
#include "nearest.h"
#include "registry.h"
#include "sweep.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DB "db/results.db"

static const char *usage_main =
    "usage: gpulab COMMAND [ARGS]\n"
    "\n"
    "  run CONFIG...      run every sweep in the configs, store results (resumes)\n"
    "  plan CONFIG...     what would run, what is done, what is skipped and why\n"
    "  list [FAMILY]      variants, the parameters each reads, and all parameters\n"
    "  query SQL|-f FILE  SQL on the results database, read-only unless --write\n"
    "                     (--csv --tsv --md --latex --json)\n"
    "  merge OUT IN...    merge the databases of shards (run --shard) into OUT\n"
    "  init FILE.cu       write a starter config for a kernel file's __global__ functions\n"
    "  compare A B        did B make it faster than A, and why: per point the ratio of\n"
    "                     medians with its 95 % CI, a verdict, the counter changes\n"
    "  device             describe the CPU and GPU, and store the description\n"
    "  metrics [PATTERN]  the hardware counter metrics this GPU supports\n"
    "\n"
    "  gpulab COMMAND --help   help for one command;  gpulab --version\n"
    "exit codes: 0 ok, 1 some runs failed or were wrong, 2 usage or config error,\n"
    "            3 storage error, 4 a device is busy (run --no-wait),\n"
    "            5 merge conflicts, 6 merge inputs of different configs,\n"
    "            7 run: nothing could run here (no GPU, every point skipped) and\n"
    "              nothing was done before,\n"
    "            (compare: 1 a point is slower beyond the threshold)\n"
    "            130 interrupted (SIGINT), 143 (SIGTERM)\n"
    "documentation: README.md; docs/cli.md (commands), docs/configs.md (configs),\n"
    "               docs/kernels.md (your own kernels), docs/database.md (the results view),\n"
    "               docs/cluster.md (several machines, Slurm)\n";

/* Every command takes --help (-h): its usage, on stdout, exit 0. */
#define HELP_HELP "  -h, --help      print this help\n"

#define SHARD_HELP \
    "  --shard I/N     run only shard I of N (I from 0): the jobs whose key (study, family,\n" \
    "                  variant, parameters; not the device) hashes to I modulo N; default\n" \
    "                  in a Slurm job array: SLURM_ARRAY_TASK_ID's place among the array's\n" \
    "                  ids of SLURM_ARRAY_TASK_COUNT; 0/1 = the whole plan\n"

static const char *usage_run =
    "usage: gpulab run CONFIG... [--db PATH] [--force] [--only VARIANT] [--arch N] [--dry-run]\n"
    "                  [--gpus all|N,M...] [--no-wait] [--clocks none|base] [--profile-self]\n"
    "                  [--shard I/N] [--plugin LIB.so]...\n"
    "  --db PATH       results database (default " DEFAULT_DB ")\n"
    "  --force         run again what the database already holds as ok\n"
    "  --gpus all|N,M  one worker per GPU (all of them, or CUDA's numbers N, M... as this\n"
    "                  process sees them), the runs spread over them, largest first, into\n"
    "                  the one database; without it, one worker on GPU 0\n"
    "  --no-wait       when another gpulab measures on a device this sweep needs, exit 4\n"
    "                  instead of waiting for it (locks in $GPULAB_LOCK_DIR, default\n"
    "                  /tmp/gpulab-locks)\n"
    "  --clocks MODE   none (default): leave the GPUs' clocks as they are; base: lock the SM\n"
    "                  clock of each GPU of the sweep to its base clock, as Nsight Compute\n"
    "                  does, where NVML allows it (root), and reset it at the end (also on\n"
    "                  SIGINT/SIGTERM); the session records what was asked, what was done\n"
    "                  and why not\n"
    "  --only VARIANT  run only this variant name\n"
    "  --arch N        compile users' kernels for compute capability N (90 = sm_90) when\n"
    "                  there is no GPU here (default: the GPU's, else 90); an arch-specific\n"
    "                  target (90a, 100f) is every kernel section's that names none, GPU or not\n"
    "  --dry-run       print the plan instead of running (same as `gpulab plan`, which lists\n"
    "                  every configuration; `gpulab plan --summary` for the counts only)\n"
    "  --profile-self  print where each run's wall time went (setup, verification, warm-up,\n"
    "                  samples, counter replays, store) and a table of the sweep's totals\n"
    "  --plugin LIB    add the variants of a plugin built against src/core/plugin.h\n"
    "                  (repeatable)\n"
    SHARD_HELP
    "  exit 0 ok (also when everything was already done), 1 runs failed or wrong,\n"
    "  2 usage/config error, 3 storage error, 4 a device is busy (--no-wait),\n"
    "  7 nothing could run: no point ran and none was done before, every one needing\n"
    "    what this machine lacks (a GPU) or skipped (rejected by check, by the harness),\n"
    "  130 SIGINT, 143 SIGTERM (forwarded to the worker; the run in flight is dropped)\n"
    HELP_HELP;

static const char *usage_plan =
    "usage: gpulab plan CONFIG... [--db PATH] [--only VARIANT] [--force] [--arch N] [--summary]\n"
    "                  [--shard I/N] [--plugin LIB.so]...\n"
    "  lists every configuration with its state (run, done, skip, no-gpu, busy),\n"
    "  then counts per section and variant and the reasons for what is skipped;\n"
    "  compiles the users' kernels (kernel sections) as `run` would. Runs nothing\n"
    "  and writes nothing (exit 0 whatever the plan holds).\n"
    "  --db PATH       the results database that tells what is done, read only (default\n"
    "                  " DEFAULT_DB "; missing: nothing is done)\n"
    "  --force         plan as `run --force` would: what is done is run again\n"
    "  --only VARIANT  only this variant name\n"
    "  --arch N        compute capability to compile for without a GPU (default 90); an\n"
    "                  arch-specific target (90a, 100f) is every kernel section's that names none\n"
    "  --summary       counts only, no per-configuration lines\n"
    "  --plugin LIB    add the variants of a plugin (repeatable), as `run` does\n"
    SHARD_HELP
    "                  (the other shards' jobs are counted as \"in other shards\")\n"
    HELP_HELP;

static const char *usage_merge =
    "usage: gpulab merge OUT.db IN.db... [--allow-conflicts] [--allow-mixed-configs]\n"
    "  adds to OUT.db (made when missing) every device, session and run of each IN.db\n"
    "  that OUT.db lacks, with the runs' samples, metrics and named parameters; what\n"
    "  OUT.db holds already is not added twice, so merging again adds nothing, and a\n"
    "  shard's database merged again after that shard ran on adds exactly the rest.\n"
    "  Each IN.db is checked first (PRAGMA integrity_check, schema version); the\n"
    "  inputs must have run the same configs (the latest session of each study has\n"
    "  the same config SHA-256 in every input); one transaction per input.\n"
    "  --allow-conflicts      merge an input that holds another result of a run OUT.db\n"
    "                         holds (the same key, another status, median or error),\n"
    "                         keeping both rows; without it that input is not merged\n"
    "  --allow-mixed-configs  merge inputs whose configs differ\n"
    "  exit 0 merged, 2 usage, 3 storage error (OUT.db, or a damaged or unreadable\n"
    "  input: nothing merged), 5 conflicts (listed; their inputs not merged),\n"
    "  6 inputs of different configs (nothing merged)\n"
    HELP_HELP;

static const char *usage_init =
    "usage: gpulab init FILE.cu [-o OUT.conf | -o -] [--force]\n"
    "  writes a starter config for the file's __global__ functions, read from its text:\n"
    "  a section per kernel; pointer parameters become buffers of their element type\n"
    "  (const ones inputs, the others outputs), integer scalars N or named parameters\n"
    "  after their C names, floating scalars 1, template parameters named parameters;\n"
    "  the block size of the file's own <<<...>>> launch where it can be read, else\n"
    "  256 (16 x 16 for kernels that use .y); small sizes (N = 1<<16, or 256 for 2-D).\n"
    "  `gpulab plan` reads it as written; edit sizes, inits, scalars and verify from there.\n"
    "  -o OUT.conf  where to write it (default: FILE.conf beside FILE.cu); -o - prints it\n"
    "  --force      replace OUT.conf when it exists (without it: exit 2, nothing written)\n"
    HELP_HELP
    "  exit 0 written, 2 usage, no kernel or OUT exists, 3 cannot write OUT\n";

static const char *usage_compare =
    "usage: gpulab compare [A [B]] [--db PATH [--db PATH]] [--threshold T] [--ignore NAME,...]\n"
    "                      [--clock-normalise] [--resamples R] [--seed S] [--md|--csv]\n"
    "                      [--save FILE] | --load FILE [--md|--csv]\n"
    "  B against A, per point (runs matched on study, family, variant, device model and\n"
    "  every parameter, less what a side names): the ratio median(B)/median(A) of the raw\n"
    "  samples with its 95 % percentile-bootstrap interval, a verdict, the ratio of cycles\n"
    "  where the SM clocks are known, and the counter changes (DRAM bytes, L1/L2 hit,\n"
    "  occupancy, excess wavefronts, instructions, energy); then the geometric mean.\n"
    "  A, B       a selection of ok runs: terms joined by commas, default all:\n"
    "             all | session=ID|latest|latest-N | study= | family= | variant= |\n"
    "             device=MODEL-ID|cpu|gpu|NAME|GLOB | code=HASH-PREFIX | n=, bs=, ... (a\n"
    "             parameter) | TILE= (a named parameter) | where=SQL on the results view\n"
    "             (last: it takes the rest)\n"
    "  --db PATH  once: both sides' database; twice: A's, then B's (default " DEFAULT_DB ");\n"
    "             opened read-only, never written\n"
    "  --threshold T  same within [1/(1+T), 1+T]: 2% or 0.02; default noise: the noise floor,\n"
    "             the 95th percentile of each run's second-half/first-half interval\n"
    "  --ignore NAMES  leave these dimensions out of the match (e.g. variant,device)\n"
    "  --clock-normalise  verdicts on the ratio of cycles (time x SM clock) where known\n"
    "  --resamples R  bootstrap resamples (default 2000)\n"
    "  --seed S   the bootstrap's seed (default 1): the same inputs print the same numbers\n"
    "  --md       the summary as a list, then the table, in Markdown\n"
    "  --csv      one row per point, every column at full precision (summary on stderr)\n"
    "  --save FILE  also write the comparison to FILE (a SQLite file of its own) for\n"
    "             --load and `make report COMPARE=FILE`\n"
    "  --load FILE  print a saved comparison again (same table, same exit code)\n"
    HELP_HELP
    "  verdicts: slower (interval above 1+T), faster (below 1/(1+T)), same (within),\n"
    "            unsure (across a bound, or fewer than 4 samples on a side)\n"
    "  exit 0, 1 a point is slower, 2 bad input (nothing written), 3 --save failed\n";

static const char *usage_query =
    "usage: gpulab query SQL | -f FILE [--db PATH] [--csv|--tsv|--md|--latex|--json] [--write]\n"
    "  prints the rows of the last statement; the `results` view is the documented surface\n"
    "  -f FILE    the SQL from FILE instead of the command line\n"
    "  --db PATH  an existing results database (default " DEFAULT_DB "), opened read-only\n"
    "  --csv      comma-separated values, a header line first\n"
    "  --tsv      tab-separated values, a header line first\n"
    "  --md       a Markdown table\n"
    "  --latex    a LaTeX tabular\n"
    "  --json     a JSON array of objects, one per row\n"
    "             (none of them: an aligned table for the terminal)\n"
    "  --write    open it as `run` does (created or migrated) and let the statements\n"
    "             write (INSERT, DELETE, ATTACH, PRAGMA x = y ...); without it they are\n"
    "             refused before they run (exit 2)\n"
    HELP_HELP;

static const char *usage_list =
    "usage: gpulab list [FAMILY] [--plugin LIB.so]...\n"
    "  the variants (of FAMILY, or all), the parameters each reads, and all parameters\n"
    "  --plugin LIB    add the variants of a plugin (repeatable), as `run` does\n"
    HELP_HELP;

static const char *usage_device =
    "usage: gpulab device [--db PATH]\n"
    "  describe the CPU and GPU, and store the description\n"
    "  --db PATH       results database (default " DEFAULT_DB ")\n"
    HELP_HELP;

static const char *usage_metrics =
    "usage: gpulab metrics [PATTERN...]\n"
    "  the hardware counter metrics this GPU supports; with patterns, those matching one:\n"
    "  a pattern with * ? or [ is a glob over the whole name, any other a substring\n"
    "  (exit 1 when none matches)\n"
    HELP_HELP;

static int want_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* The compute capabilities CUDA 13's NVRTC and nvcc build for (--arch). */
static const int archs[] = { 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121 };
#define ARCHS "75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121"

static int known_arch(long v)
{
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (archs[i] == v)
            return 1;
    return 0;
}

static int nearest_arch(long v)
{
    int best = archs[0];
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (labs(archs[i] - v) < labs(best - v))
            best = archs[i];
    return best;
}

static int usage_error(const char *usage, const char *msg, const char *arg)
{
    fprintf(stderr, "gpulab: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", usage);
    return 2;
}

/* The commands, for "did you mean" (main() dispatches on the same names). */
static const char *const commands[] = {
    "run", "plan", "list", "query", "merge", "init", "compare", "device", "metrics", "help",
    "version", NULL
};

/* An unknown command: the nearest known one when there is one, the usage; 2. */
static int unknown_command(const char *cmd)
{
    struct gl_nearest near;
    gl_nearest_init(&near, cmd);
    for (int i = 0; commands[i]; i++)
        gl_nearest_offer(&near, commands[i]);
    if (near.best)
        fprintf(stderr, "gpulab: unknown command %s (did you mean '%s'?)\n%s", cmd, near.best,
                usage_main);
    else
        fprintf(stderr, "gpulab: unknown command %s\n%s", cmd, usage_main);
    return 2;
}

/* run and plan share their options. Leaves config paths in paths/npaths and
 * --plugin paths in plugins/nplugins (both arrays of argc entries). */
static int parse_run_opts(int argc, char **argv, const char *usage, struct gl_run_opts *o,
                          char **paths, int *npaths, char **plugins, int *nplugins, int *summary)
{
    *npaths = 0;
    *nplugins = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--db") == 0 || strcmp(a, "--only") == 0 || strcmp(a, "--arch") == 0 ||
            strcmp(a, "--plugin") == 0 || strcmp(a, "--shard") == 0 ||
            (!summary && strcmp(a, "--clocks") == 0)) {
            if (i + 1 >= argc)
                return usage_error(usage, "missing value after", a);
            if (strcmp(a, "--clocks") == 0) {
                const char *m = argv[++i];
                if (strcmp(m, "base") == 0)
                    o->clocks_base = 1;
                else if (strcmp(m, "none") == 0)
                    o->clocks_base = 0;
                else
                    return usage_error(usage, "--clocks wants none or base, got", m);
            } else if (strcmp(a, "--shard") == 0) {
                o->shard = argv[++i];   /* checked by the command (shard.h) */
            } else if (strcmp(a, "--plugin") == 0) {
                plugins[(*nplugins)++] = argv[++i];
            } else if (strcmp(a, "--db") == 0) {
                o->db = argv[++i];
                if (o->db[0] == '\0')
                    return usage_error(usage, "empty database path", NULL);
            } else if (strcmp(a, "--only") == 0) {
                o->only = argv[++i];
            } else {
                char why[200];
                if (gl_arch_parse(argv[++i], &o->arch, why, sizeof why) != 0)
                    return usage_error(usage, "--arch wants a compute capability such as 90 or "
                                       "an arch-specific target such as 90a, got", argv[i]);
                int cc = gl_arch_cc(o->arch);
                if (!known_arch(cc)) {
                    char msg[256];
                    snprintf(msg, sizeof msg, "--arch %d is no compute capability the CUDA 13 "
                             "compilers build for (%s; did you mean %d?), got", cc, ARCHS,
                             nearest_arch(cc));
                    return usage_error(usage, msg, argv[i]);
                }
            }
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1;
        } else if (!summary && strcmp(a, "--dry-run") == 0) {
            o->dry_run = 1;
        } else if (!summary && strcmp(a, "--profile-self") == 0) {
            o->profile_self = 1;
        } else if (!summary && strcmp(a, "--no-wait") == 0) {
            o->no_wait = 1;
        } else if (!summary && strcmp(a, "--gpus") == 0) {
            char why[256];
            if (i + 1 >= argc)
                return usage_error(usage, "missing value after", a);
            o->gpus = argv[++i];
            if (gl_sweep_gpus_syntax(o->gpus, why, sizeof why) != 0)
                return usage_error(usage, why, NULL);
        } else if (summary && strcmp(a, "--summary") == 0) {
            *summary = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            return usage_error(usage, "unknown option", a);
        } else {
            paths[(*npaths)++] = argv[i];
        }
    }
    if (*npaths == 0)
        return usage_error(usage, "no config given", NULL);
    return 0;
}

/* --threshold: noise, N% or a fraction; -1 for the noise floor, -2 malformed. */
static double parse_threshold(const char *v)
{
    if (strcmp(v, "noise") == 0)
        return -1;
    char *end;
    double t = strtod(v, &end);
    if (end == v || t != t)
        return -2;
    if (*end == '%' && end[1] == '\0')
        t /= 100.0;
    else if (*end != '\0')
        return -2;
    return t >= 0 && t < 1 ? t : -2;
}

static int cmd_compare(int argc, char **argv)
{
    struct gl_compare_opts o = { .a = NULL, .b = NULL, .threshold = -1,
                                 .resamples = GL_CMP_RESAMPLES, .seed = 1, .fmt = GL_FMT_TABLE };
    const char *dbs[2] = { NULL, NULL };
    int ndb = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--db") == 0 || strcmp(a, "--threshold") == 0 || strcmp(a, "--ignore") == 0 ||
            strcmp(a, "--resamples") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--save") == 0 ||
            strcmp(a, "--load") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_compare, "missing value after", a);
            const char *v = argv[++i];
            if (strcmp(a, "--db") == 0) {
                if (ndb == 2)
                    return usage_error(usage_compare, "--db at most twice (A's, then B's):", v);
                if (v[0] == '\0')
                    return usage_error(usage_compare, "empty database path", NULL);
                dbs[ndb++] = v;
            } else if (strcmp(a, "--threshold") == 0) {
                o.threshold = parse_threshold(v);
                if (o.threshold == -2)
                    return usage_error(usage_compare, "--threshold wants noise, a percentage "
                                       "(2%) or a fraction in [0, 1) (0.02), got", v);
            } else if (strcmp(a, "--resamples") == 0) {
                char *end;
                long n = strtol(v, &end, 10);
                if (end == v || *end || n < 100 || n > 100000)
                    return usage_error(usage_compare, "--resamples wants 100 to 100000, got", v);
                o.resamples = (int)n;
            } else if (strcmp(a, "--seed") == 0) {
                char *end;
                unsigned long long n = strtoull(v, &end, 10);
                if (end == v || *end || v[0] == '-')
                    return usage_error(usage_compare, "--seed wants a whole number, got", v);
                o.seed = n;
            } else if (strcmp(a, "--ignore") == 0) {
                o.ignore = v;
            } else if (v[0] == '\0') {
                return usage_error(usage_compare, "empty file name after", a);
            } else if (strcmp(a, "--save") == 0) {
                o.save = v;
            } else {
                o.load = v;
            }
        } else if (strcmp(a, "--md") == 0) {
            o.fmt = GL_FMT_MD;
        } else if (strcmp(a, "--csv") == 0) {
            o.fmt = GL_FMT_CSV;
        } else if (strcmp(a, "--clock-normalise") == 0 || strcmp(a, "--clock-normalize") == 0) {
            o.by_clock = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            return usage_error(usage_compare, "unknown option", a);
        } else if (!o.a) {
            o.a = a;
        } else if (!o.b) {
            o.b = a;
        } else {
            return usage_error(usage_compare, "more than two sides:", a);
        }
    }
    if (o.load) {
        if (o.a || ndb || o.save)
            return usage_error(usage_compare, "--load prints a saved comparison: no sides, --db "
                               "or --save with it", NULL);
        return gl_cmd_compare(&o);
    }
    if (!o.a && ndb < 2)
        return usage_error(usage_compare, "no sides given (A and B, or --db twice)", NULL);
    if (!o.b && ndb < 2)
        return usage_error(usage_compare, "no side B given", NULL);
    o.a = o.a ? o.a : "all";
    o.b = o.b ? o.b : "all";
    o.db_a = dbs[0] ? dbs[0] : DEFAULT_DB;
    o.db_b = dbs[1] ? dbs[1] : o.db_a;
    return gl_cmd_compare(&o);
}

static int cmd_query(int argc, char **argv)
{
    const char *db = DEFAULT_DB, *sql = NULL, *file = NULL;
    enum gl_format fmt = GL_FMT_TABLE;
    int write = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--db") == 0 || strcmp(a, "-f") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_query, "missing value after", a);
            if (strcmp(a, "--db") == 0)
                db = argv[++i];
            else
                file = argv[++i];
            if (db[0] == '\0')
                return usage_error(usage_query, "empty database path", NULL);
        } else if (strcmp(a, "--write") == 0) write = 1;
        else if (strcmp(a, "--csv") == 0) fmt = GL_FMT_CSV;
        else if (strcmp(a, "--tsv") == 0) fmt = GL_FMT_TSV;
        else if (strcmp(a, "--md") == 0) fmt = GL_FMT_MD;
        else if (strcmp(a, "--latex") == 0) fmt = GL_FMT_LATEX;
        else if (strcmp(a, "--json") == 0) fmt = GL_FMT_JSON;
        else if (a[0] == '-' && a[1] == '-')
            return usage_error(usage_query, "unknown option", a);
        else if (sql)
            return usage_error(usage_query, "more than one SQL argument:", a);
        else
            sql = a;
    }
    if (!sql && !file)
        return usage_error(usage_query, "no SQL given", NULL);
    if (sql && file)
        return usage_error(usage_query, "give SQL or -f FILE, not both", NULL);
    if (file) {
        char err[512];
        char *text = gl_file_read_max(file, GL_TEXT_MAX, GL_READ_PIPE, NULL, err, sizeof err);
        if (!text) {
            fprintf(stderr, "gpulab: %s\n", err);
            return 2;
        }
        int rc = gl_cmd_query(db, text, fmt, write);
        free(text);
        return rc;
    }
    return gl_cmd_query(db, sql, fmt, write);
}

/* The variants come from the plugins built next to the executable, then from
 * the users' plugins named with --plugin, in order. 0; 1 when a built-in
 * plugin is missing; 2 when a user's plugin is refused (the message names it). */
static int load_plugins(char *const *user, int nuser)
{
    char dir[1024], err[1400];
    gl_exe_dir(dir, sizeof dir);
    if (gl_registry_load(dir, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: %s (rebuild: make)\n", err);
        return 1;
    }
    for (int i = 0; i < nuser; i++)
        if (gl_registry_add_user(user[i], err, sizeof err) != 0) {
            fprintf(stderr, "gpulab: %s\n", err);   /* err names the file */
            return 2;
        }
    return 0;
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) would kill us with no word: ignored, a write
     * past it fails with EFBIG and the store says so. */
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR) {
        fprintf(stderr, "gpulab: cannot ignore SIGXFSZ\n");
        return 1;
    }
    if (argc < 2)
        return usage_error(usage_main, "no command given", NULL);
    const char *cmd = argv[1];
    int rest = argc - 2;
    char **args = argv + 2;
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("gpulab %s (%s)\n", GL_VERSION, gl_git_revision());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0 || strcmp(cmd, "plan") == 0) {
        int is_run = strcmp(cmd, "run") == 0, summary = 0, npaths = 0;
        const char *usage = is_run ? usage_run : usage_plan;
        if (want_help(rest, args)) {
            fputs(usage, stdout);
            return 0;
        }
        struct gl_run_opts o = { .db = DEFAULT_DB, .argc = argc, .argv = argv };
        int nplugins = 0;
        char **paths = calloc((size_t)argc, sizeof *paths);
        char **plugins = calloc((size_t)argc, sizeof *plugins);
        if (!paths || !plugins) {
            free(paths);
            free(plugins);
            fprintf(stderr, "gpulab: out of memory\n");
            return 2;
        }
        int rc = parse_run_opts(rest, args, usage, &o, paths, &npaths, plugins, &nplugins,
                                is_run ? NULL : &summary);
        if (rc == 0)
            rc = load_plugins(plugins, nplugins);
        if (rc == 0)
            rc = is_run ? gl_cmd_run(npaths, paths, &o) : gl_cmd_plan(npaths, paths, &o, !summary);
        free(paths);
        free(plugins);
        return rc;
    }
    if (strcmp(cmd, "query") == 0) {
        if (want_help(rest, args)) {
            fputs(usage_query, stdout);
            return 0;
        }
        return cmd_query(rest, args);
    }
    if (strcmp(cmd, "compare") == 0) {
        if (want_help(rest, args)) {
            fputs(usage_compare, stdout);
            return 0;
        }
        return cmd_compare(rest, args);
    }
    if (strcmp(cmd, "list") == 0) {
        const char *family = NULL;
        int nplugins = 0, rc;
        if (want_help(rest, args)) {
            fputs(usage_list, stdout);
            return 0;
        }
        char **plugins = calloc((size_t)argc, sizeof *plugins);
        if (!plugins) {
            fprintf(stderr, "gpulab: out of memory\n");
            return 2;
        }
        for (int i = 0; i < rest; i++) {
            if (strcmp(args[i], "--plugin") == 0) {
                if (i + 1 >= rest) {
                    free(plugins);
                    return usage_error(usage_list, "missing value after", args[i]);
                }
                plugins[nplugins++] = args[++i];
            } else if (args[i][0] == '-' || family) {
                free(plugins);
                return usage_error(usage_list, "unexpected argument", args[i]);
            } else {
                family = args[i];
            }
        }
        rc = load_plugins(plugins, nplugins);
        free(plugins);
        if (rc != 0)
            return rc;
        return gl_cmd_list(family);
    }
    if (strcmp(cmd, "merge") == 0) {
        struct gl_merge_opts mo = { 0, 0 };
        if (want_help(rest, args)) {
            fputs(usage_merge, stdout);
            return 0;
        }
        char **files = calloc((size_t)argc, sizeof *files);
        int nfiles = 0;
        if (!files) {
            fprintf(stderr, "gpulab: out of memory\n");
            return 2;
        }
        for (int i = 0; i < rest; i++) {
            if (strcmp(args[i], "--allow-conflicts") == 0) {
                mo.allow_conflicts = 1;
            } else if (strcmp(args[i], "--allow-mixed-configs") == 0) {
                mo.allow_mixed_configs = 1;
            } else if (args[i][0] == '-' && args[i][1] == '-') {
                free(files);
                return usage_error(usage_merge, "unknown option", args[i]);
            } else if (args[i][0] == '\0') {
                free(files);
                return usage_error(usage_merge, "empty database path", NULL);
            } else {
                files[nfiles++] = args[i];
            }
        }
        if (nfiles < 2) {
            free(files);
            return usage_error(usage_merge, nfiles ? "no input database given" :
                                                     "no output database given", NULL);
        }
        int rc = gl_cmd_merge(files[0], nfiles - 1, files + 1, &mo);
        free(files);
        return rc;
    }
    if (strcmp(cmd, "init") == 0) {
        const char *cu = NULL, *out = NULL;
        int force = 0;
        if (want_help(rest, args)) {
            fputs(usage_init, stdout);
            return 0;
        }
        for (int i = 0; i < rest; i++) {
            if (strcmp(args[i], "--force") == 0)
                force = 1;
            else if (strcmp(args[i], "-o") == 0 && i + 1 < rest && args[i + 1][0])
                out = args[++i];
            else if (strcmp(args[i], "-o") == 0)
                return usage_error(usage_init, "missing value after", args[i]);
            else if (args[i][0] == '-')
                return usage_error(usage_init, "unknown option", args[i]);
            else if (cu)
                return usage_error(usage_init, "one kernel file at a time; unexpected", args[i]);
            else if (args[i][0])
                cu = args[i];
        }
        if (!cu)
            return usage_error(usage_init, "no kernel file given", NULL);
        return gl_cmd_init(cu, out, force);
    }
    if (strcmp(cmd, "device") == 0) {
        const char *db = DEFAULT_DB;
        if (want_help(rest, args)) {
            fputs(usage_device, stdout);
            return 0;
        }
        if (rest == 2 && strcmp(args[0], "--db") == 0)
            db = args[1];
        else if (rest == 1 && strcmp(args[0], "--db") == 0)
            return usage_error(usage_device, "missing value after", args[0]);
        else if (rest != 0)
            return usage_error(usage_device, "unexpected argument", args[0]);
        if (db[0] == '\0')
            return usage_error(usage_device, "empty database path", NULL);
        if (load_plugins(NULL, 0) != 0)
            return 1;
        return gl_cmd_device(db);
    }
    if (strcmp(cmd, "metrics") == 0) {
        if (want_help(rest, args)) {
            fputs(usage_metrics, stdout);
            return 0;
        }
        for (int i = 0; i < rest; i++)
            if (args[i][0] == '-' || args[i][0] == '\0')
                return usage_error(usage_metrics, "unexpected argument", args[i]);
        if (load_plugins(NULL, 0) != 0)
            return 1;
        return gl_cmd_metrics(rest, args);
    }
    return unknown_command(cmd);
}
