/* shard.c - see shard.h: parse --shard I/N, derive it from a Slurm job array's
 * environment, and hash a job's shard key. Must not print or touch the store. */
#include "shard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "sha256.h"

#define SHARD_MAX 1000000

/* A whole decimal number in [lo, hi]. 0, or -1. */
static int whole(const char *s, long lo, long hi, long *v)
{
    char *end;
    if (!s || !*s || *s == '+' || *s == ' ')
        return -1;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

int gl_shard_parse(const char *text, struct gl_shard *sh, char *err, size_t errlen)
{
    memset(sh, 0, sizeof *sh);
    const char *slash = text ? strchr(text, '/') : NULL;
    char idx[32];
    long i, n;
    if (!slash || (size_t)(slash - text) >= sizeof idx) {
        snprintf(err, errlen, "--shard wants I/N (shard I of N, I counting from 0), got '%s'",
                 text ? text : "");
        return -1;
    }
    memcpy(idx, text, (size_t)(slash - text));
    idx[slash - text] = '\0';
    if (whole(idx, 0, LONG_MAX, &i) != 0 || whole(slash + 1, 1, SHARD_MAX, &n) != 0) {
        snprintf(err, errlen, "--shard wants I/N with 0 <= I < N <= %d, got '%s'", SHARD_MAX, text);
        return -1;
    }
    if (i >= n) {
        snprintf(err, errlen, "--shard %s: I counts from 0, so shard I of %ld is 0 to %ld", text,
                 n, n - 1);
        return -1;
    }
    sh->index = (int)i;
    sh->count = (int)n;
    snprintf(sh->from, sizeof sh->from, "--shard");
    return 0;
}

static const char *real_env(const char *name)
{
    return getenv(name);
}

int gl_shard_resolve(const char *opt, const char *(*env)(const char *name), struct gl_shard *sh,
                     char *err, size_t errlen)
{
    if (opt)
        return gl_shard_parse(opt, sh, err, errlen);
    memset(sh, 0, sizeof *sh);
    if (!env)
        env = real_env;
    const char *id_s = env("SLURM_ARRAY_TASK_ID");
    if (!id_s || !*id_s)
        return 0;
    const char *count_s = env("SLURM_ARRAY_TASK_COUNT"), *min_s = env("SLURM_ARRAY_TASK_MIN");
    const char *max_s = env("SLURM_ARRAY_TASK_MAX"), *step_s = env("SLURM_ARRAY_TASK_STEP");
    long id, count, min, max, step = 1;
    if (whole(id_s, 0, LONG_MAX, &id) != 0 || whole(count_s, 1, SHARD_MAX, &count) != 0 ||
        whole(min_s, 0, LONG_MAX, &min) != 0 || whole(max_s, 0, LONG_MAX, &max) != 0 ||
        (step_s && *step_s && whole(step_s, 1, LONG_MAX, &step) != 0)) {
        snprintf(err, errlen, "inside a Slurm job array (SLURM_ARRAY_TASK_ID=%s), but "
                              "SLURM_ARRAY_TASK_COUNT, _MIN, _MAX or _STEP is missing or not a "
                              "number: pass --shard I/N", id_s);
        return -1;
    }
    /* ids MIN, MIN+STEP, ... MAX: COUNT of them, ID one of them */
    if (max < min || (max - min) / step != count - 1 || (max - min) % step != 0 || id < min ||
        id > max || (id - min) % step != 0) {
        snprintf(err, errlen, "the Slurm job array's task ids are not %ld, %ld + %ld, ... %ld "
                              "(SLURM_ARRAY_TASK_ID=%ld, _COUNT=%ld, _MIN=%ld, _MAX=%ld, "
                              "_STEP=%ld), so its count is not the number of shards: pass "
                              "--shard I/N", min, min, step, max, id, count, min, max, step);
        return -1;
    }
    sh->index = (int)((id - min) / step);
    sh->count = (int)count;
    snprintf(sh->from, sizeof sh->from, "SLURM_ARRAY_TASK_ID=%ld of %ld..%ld step %ld", id, min,
             max, step);
    return 0;
}

static void put(struct gl_sha256 *h, const char *name, const char *value)
{
    gl_sha256_update(h, name, strlen(name));
    gl_sha256_update(h, "=", 1);
    gl_sha256_update(h, value, strlen(value));
    gl_sha256_update(h, "\n", 1);
}

uint64_t gl_shard_hash(const struct gl_job *job)
{
    struct gl_sha256 h;
    unsigned char d[32];
    char num[32];
    gl_sha256_init(&h);
    gl_sha256_update(&h, "gpulab shard key 1\n", 19);
    put(&h, "study", job->study ? job->study : "");
    put(&h, "family", job->v->family);
    put(&h, "variant", job->v->name);
    put(&h, "device", job->v->device);
    for (int i = 0; i < GL_NPARAMS; i++) {
        enum gl_param_id id = (enum gl_param_id)i;
        if (!gl_params_is_set(&job->p, id))
            continue;
        if (gl_param_table[i].is_text) {
            put(&h, gl_param_table[i].name, gl_params_get_text(&job->p, id));
            continue;
        }
        long v = gl_params_get(&job->p, id);
        if (id == GL_P_THREADS && job->threads_all)
            v = 0;   /* every core: the same point on a node of any size */
        snprintf(num, sizeof num, "%ld", v);
        put(&h, gl_param_table[i].name, num);
    }
    for (int i = 0; i < job->p.nuser; i++) {
        char name[GL_UPARAM_NAME + 8];
        snprintf(name, sizeof name, "user.%s", job->p.user[i].name);
        snprintf(num, sizeof num, "%ld", job->p.user[i].v);
        put(&h, name, num);
    }
    gl_sha256_final(&h, d);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | d[i];
    return v;
}

int gl_shard_has(const struct gl_shard *sh, const struct gl_job *job)
{
    if (!sh || sh->count <= 1)
        return 1;
    return gl_shard_hash(job) % (uint64_t)sh->count == (uint64_t)sh->index;
}
