/* test_shard.c - `--shard I/N` (src/sweep/shard.c): parsing I/N and refusing what is
 * not a shard; deriving it from a Slurm job array's variables (ids from 0 or
 * 1, a step, a single task, ids that are no range, variables missing); the
 * shard key's documented text (shard.h) and what it leaves out (the node's
 * core count for threads = 0); slices of expanded configs that are disjoint,
 * cover the plan, keep every point when a point is added, and are not far
 * from even for a large plan. Must not run any variant or touch a database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sha256.h"
#include "shard.h"
#include "t.h"

static char err[1024];

static int parses(const char *text, int i, int n)
{
    struct gl_shard sh;
    return gl_shard_parse(text, &sh, err, sizeof err) == 0 && sh.index == i && sh.count == n;
}

static int refused(const char *text, const char *why)
{
    struct gl_shard sh;
    err[0] = '\0';
    int rc = gl_shard_parse(text, &sh, err, sizeof err);
    if (rc == 0 || !strstr(err, why))
        printf("  --shard '%s': rc %d, '%s' (want '%s')\n", text, rc, err, why);
    return rc != 0 && strstr(err, why);
}

/* A stand-in environment: NAME=value pairs. */
static const char *envv[16];

static const char *fake_env(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; envv[i]; i++)
        if (strncmp(envv[i], name, n) == 0 && envv[i][n] == '=')
            return envv[i] + n + 1;
    return NULL;
}

/* Resolve with ID COUNT MIN MAX STEP (STEP NULL: unset). rc, sh filled. */
static int slurm(const char *id, const char *count, const char *min, const char *max,
                 const char *step, struct gl_shard *sh)
{
    static char b[5][64];
    int k = 0;
    const char *names[] = { "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                            "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP" };
    const char *vals[] = { id, count, min, max, step };
    for (int i = 0; i < 5; i++)
        if (vals[i]) {
            snprintf(b[i], sizeof b[i], "%s=%s", names[i], vals[i]);
            envv[k++] = b[i];
        }
    envv[k] = NULL;
    err[0] = '\0';
    return gl_shard_resolve(NULL, fake_env, sh, err, sizeof err);
}

static void test_parse(void)
{
    CHECK(parses("0/1", 0, 1));
    CHECK(parses("0/4", 0, 4));
    CHECK(parses("3/4", 3, 4));
    CHECK(parses("999999/1000000", 999999, 1000000));
    CHECK(refused("4/4", "I counts from 0"));
    CHECK(refused("1/0", "0 <= I < N"));
    CHECK(refused("-1/2", "0 <= I < N"));
    CHECK(refused("+1/2", "0 <= I < N"));
    CHECK(refused("1/2x", "0 <= I < N"));
    CHECK(refused("a/b", "0 <= I < N"));
    CHECK(refused("/2", "0 <= I < N"));
    CHECK(refused("1/", "0 <= I < N"));
    CHECK(refused("3", "wants I/N"));
    CHECK(refused("", "wants I/N"));
    CHECK(refused("1/2000000", "0 <= I < N"));
}

static void test_slurm(void)
{
    struct gl_shard sh;
    /* not in an array: the whole plan */
    envv[0] = NULL;
    CHECK(gl_shard_resolve(NULL, fake_env, &sh, err, sizeof err) == 0 && sh.count == 0);
    /* --array=0-7 and --array=1-8: shards 0..7 of 8 */
    CHECK(slurm("0", "8", "0", "7", "1", &sh) == 0 && sh.index == 0 && sh.count == 8);
    CHECK(slurm("7", "8", "0", "7", "1", &sh) == 0 && sh.index == 7 && sh.count == 8);
    CHECK(slurm("1", "8", "1", "8", "1", &sh) == 0 && sh.index == 0 && sh.count == 8);
    CHECK(slurm("8", "8", "1", "8", NULL, &sh) == 0 && sh.index == 7 && sh.count == 8);
    CHECK(strstr(sh.from, "SLURM_ARRAY_TASK_ID=8") != NULL);
    /* --array=0-14:2: ids 0, 2 ... 14, shards 0..7 of 8 */
    CHECK(slurm("6", "8", "0", "14", "2", &sh) == 0 && sh.index == 3 && sh.count == 8);
    /* --array=5: one task, the whole plan as shard 0/1 */
    CHECK(slurm("5", "1", "5", "5", "1", &sh) == 0 && sh.index == 0 && sh.count == 1);
    /* --array=1,3,7: no range, its count is no number of shards */
    CHECK(slurm("3", "3", "1", "7", "1", &sh) != 0 && strstr(err, "pass --shard I/N"));
    /* an id off the step, or outside MIN..MAX */
    CHECK(slurm("5", "8", "0", "14", "2", &sh) != 0);
    CHECK(slurm("9", "8", "1", "8", "1", &sh) != 0);
    /* a variable missing or not a number */
    CHECK(slurm("3", NULL, "0", "7", "1", &sh) != 0 && strstr(err, "missing or not a number"));
    CHECK(slurm("3", "8", "0", "seven", "1", &sh) != 0);
    CHECK(slurm("3", "8", "0", "7", "0", &sh) != 0);
    /* --shard wins over the environment; 0/1 is the whole plan inside an array */
    slurm("3", "8", "0", "7", "1", &sh);
    CHECK(gl_shard_resolve("0/1", fake_env, &sh, err, sizeof err) == 0 && sh.index == 0 &&
          sh.count == 1);
    CHECK(gl_shard_resolve("2/5", fake_env, &sh, err, sizeof err) == 0 && sh.index == 2 &&
          sh.count == 5 && strcmp(sh.from, "--shard") == 0);
}

static struct gl_config cfg;
static struct gl_expansion ex;

static int load(const char *text)
{
    err[0] = '\0';
    if (gl_config_parse("t.conf", text, &cfg, err, sizeof err) != 0 ||
        gl_expand(&cfg, NULL, NULL, &ex, err, sizeof err) != 0) {
        printf("  %s\n", err);
        return -1;
    }
    return 0;
}

static void unload(void)
{
    gl_expansion_free(&ex);
    gl_config_free(&cfg);
}

/* The key's text, as shard.h documents it, hashed here independently. */
static uint64_t documented(const char *text)
{
    unsigned char d[32];
    struct gl_sha256 h;
    gl_sha256_init(&h);
    gl_sha256_update(&h, text, strlen(text));
    gl_sha256_final(&h, d);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | d[i];
    return v;
}

static void test_key(void)
{
    if (load("study = keys\n[s]\nfamily = stencil\nvariants = omp\nN = 130\nR = 2\n"
             "threads = 0, 3\n") != 0) {
        CHECK(0);
        return;
    }
    CHECK(ex.njobs == 2);
    /* threads = 0 is the node's core count in p, and 0 in the key */
    const struct gl_job *all = &ex.jobs[0], *three = &ex.jobs[1];
    CHECK(all->threads_all == 1 && all->p.threads >= 1);
    CHECK(three->threads_all == 0 && three->p.threads == 3);
    CHECK(gl_shard_hash(all) == documented("gpulab shard key 1\nstudy=keys\nfamily=stencil\n"
                                           "variant=omp\ndevice=cpu\nN=130\nR=2\nthreads=0\n"
                                           "seed=42\n"));
    CHECK(gl_shard_hash(three) == documented("gpulab shard key 1\nstudy=keys\nfamily=stencil\n"
                                             "variant=omp\ndevice=cpu\nN=130\nR=2\nthreads=3\n"
                                             "seed=42\n"));
    struct gl_job other = *all;
    other.p.threads = all->p.threads + 13;   /* a node with more cores */
    CHECK(gl_shard_hash(&other) == gl_shard_hash(all));
    other.study = "keys2";   /* the study is part of it */
    CHECK(gl_shard_hash(&other) != gl_shard_hash(all));
    unload();
}

/* The one shard of n that job j belongs to: -1 none, -2 more than one. */
static int job_shard(const struct gl_job *j, int n)
{
    int found = -1;
    for (int i = 0; i < n; i++) {
        struct gl_shard sh = { i, n, "" };
        if (gl_shard_has(&sh, j)) {
            if (found >= 0)
                return -2;   /* in two shards */
            found = i;
        }
    }
    return found;
}

static void test_slices(void)
{
    const int n = 7;
    if (load("study = slices\n[v]\nfamily = vecadd\nvariants = seq, omp\nN = 1:2000:1\n") != 0) {
        CHECK(0);
        return;
    }
    int njobs = ex.njobs, count[7] = { 0 }, bad = 0;
    int *before = malloc((size_t)njobs * sizeof *before);
    long *nval = malloc((size_t)njobs * sizeof *nval);
    const char **var = malloc((size_t)njobs * sizeof *var);
    if (!before || !nval || !var) {
        CHECK(0);
        free(before);
        free(nval);
        free(var);
        unload();
        return;
    }
    for (int j = 0; j < njobs; j++) {
        before[j] = job_shard(&ex.jobs[j], n);
        nval[j] = ex.jobs[j].p.n;
        var[j] = ex.jobs[j].v->name;   /* registry-owned: outlives the expansion */
        if (before[j] < 0)
            bad++;
        else
            count[before[j]]++;
    }
    CHECK(njobs == 4000);
    CHECK(bad == 0);   /* every job in exactly one shard: disjoint, and they cover the plan */
    /* not far from even: 4000/7 = 571 each, within 15 % */
    for (int i = 0; i < n; i++)
        CHECK(count[i] > 485 && count[i] < 657);
    unload();
    /* points added (N to 2500, and a third variant): no old point moves */
    if (load("study = slices\n[v]\nfamily = vecadd\nvariants = seq, omp\nN = 1:2500:1\n"
             "[w]\nfamily = stencil\nvariants = seq\nN = 64\nR = 1\n") != 0) {
        CHECK(0);
    } else {
        int moved = 0, found = 0;
        for (int j = 0; j < ex.njobs; j++)
            for (int k = 0; k < njobs; k++)
                if (ex.jobs[j].p.n == nval[k] && strcmp(ex.jobs[j].v->name, var[k]) == 0 &&
                    strcmp(ex.jobs[j].v->family, "vecadd") == 0) {
                    found++;
                    moved += job_shard(&ex.jobs[j], n) != before[k];
                }
        CHECK(found == njobs);
        CHECK(moved == 0);
        unload();
    }
    free(before);
    free(nval);
    free(var);
}

int main(void)
{
    if (!t_load_plugins())
        return t_done("test_shard");
    test_parse();
    test_slurm();
    test_key();
    test_slices();
    return t_done("test_shard");
}
