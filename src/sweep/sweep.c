/* sweep.c - see sweep.h. Must not print: the commands do. */
#include "sweep.h"
#include "search_plan.h"
#include "cpuinfo.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "registry.h"
#include "sha256.h"
#include "target.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int section_has_gpu(const struct gl_section *s)
{
    for (int i = 0; i < s->nvariants; i++) {
        const struct gl_variant *v = gl_section_variant(s, i);
        if (v && strcmp(v->device, "gpu") == 0)
            return 1;
    }
    return 0;
}

static const char *section_metrics(const struct gl_section *s)
{
    return s->metrics[0] ? s->metrics : "default";
}

/* ---- the GPUs of the sweep (run --gpus) ------------------------------------ */

int gl_sweep_gpus_syntax(const char *gpus, char *err, size_t errlen)
{
    if (strcmp(gpus, "all") == 0)
        return 0;
    const char *p = gpus;
    int n = 0;
    long seen[GL_GPUS_MAX];
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        long v = strtol(p, &end, 10);
        for (int i = 0; i < n; i++)
            if (seen[i] == v) {
                snprintf(err, errlen, "--gpus %s: GPU %ld is named twice", gpus, v);
                return -1;
            }
        if (n == GL_GPUS_MAX) {
            snprintf(err, errlen, "--gpus %s: at most %d GPUs", gpus, GL_GPUS_MAX);
            return -1;
        }
        seen[n++] = v;
        p = end;
        if (*p == '\0')
            return 0;
        if (*p != ',')
            break;
        p++;
    }
    snprintf(err, errlen, "--gpus wants all or a list of GPU numbers such as 0,2, got '%s'",
             gpus);
    return -1;
}

/* Entry i of the driver's CUDA_VISIBLE_DEVICES (the GPU CUDA shows as ordinal
 * i), or i itself when it is not set: what worker i is given to see. */
static void visible_entry(int i, char *out, size_t len)
{
    const char *e = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(out, len, "%d", i);
    if (!e)
        return;
    int at = 0;
    for (const char *p = e; *p; at++) {
        size_t n = strcspn(p, ",");
        if (at == i) {
            while (n > 0 && (*p == ' ' || *p == '\t'))
                p++, n--;
            snprintf(out, len, "%.*s", (int)n, p);
            return;
        }
        p += n;
        if (*p == ',')
            p++;
    }
}

/* Same model as db/views.sql's device_model: kind, name, cores, SMs, compute
 * capability. */
static int same_model(const struct gl_device *a, const struct gl_device *b)
{
    return strcmp(a->kind, b->kind) == 0 && strcmp(a->name, b->name) == 0 &&
           a->cores == b->cores && a->sm_count == b->sm_count && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor;
}

/* One worker per GPU of the --gpus list, each seeing only its own, started
 * together. 0 (sw->nworkers set; no GPU here at all: nworkers 0, the caller
 * starts one worker as without --gpus), 2 (a GPU the list names is not here),
 * 1 (a worker or its GPU did not start) with err. */
static int start_gpu_workers(struct gl_sweep *sw, const char *gpus, char *err, size_t errlen)
{
    char why[GL_REASON_MAX];
    int count = gl_worker_count_gpus(why, sizeof why), nums[GL_GPUS_MAX], n = 0;
    sw->nworkers = 0;
    if (count <= 0)
        return 0;   /* no GPU: the one worker says why */
    if (strcmp(gpus, "all") == 0) {
        if (count > GL_GPUS_MAX) {
            snprintf(err, errlen, "gpulab: --gpus all: %d GPUs here, gpulab drives at most %d "
                     "at once: name them (--gpus 0,1,...)", count, GL_GPUS_MAX);
            return 2;
        }
        for (n = 0; n < count; n++)
            nums[n] = n;
    } else {
        for (const char *p = gpus; *p; p += *p == ',') {
            char *end;
            long v = strtol(p, &end, 10);
            if (v >= count) {
                if (count == 1)
                    snprintf(err, errlen, "gpulab: --gpus %s: there is no GPU %ld here "
                             "(1 GPU: 0)", gpus, v);
                else
                    snprintf(err, errlen, "gpulab: --gpus %s: there is no GPU %ld here "
                             "(%d GPUs: 0 to %d)", gpus, v, count, count - 1);
                return 2;
            }
            nums[n++] = (int)v;
            p = end;
        }
    }
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct gl_worker *w = &sw->workers[i];
        visible_entry(nums[i], w->visible, sizeof w->visible);
        sw->gpu_num[i] = nums[i];
        if (gl_worker_spawn(w, 1, err, errlen) != 0)
            rc = 1;
        else
            sw->nworkers = i + 1;
    }
    for (int i = 0; i < sw->nworkers; i++) {   /* every spawned one is awaited */
        struct gl_worker *w = &sw->workers[i];
        char werr[512];
        if (gl_worker_await(w, werr, sizeof werr) != 0 || !w->ready.gpu_ok) {
            if (rc == 0)
                snprintf(err, errlen, "--gpus: GPU %d (CUDA_VISIBLE_DEVICES=%s): %s", nums[i],
                         w->visible, w->pid > 0 ? w->ready.why : werr);
            rc = 1;
            continue;
        }
        sw->gpus[i] = w->ready.gpu;
        for (int j = 0; j < i && rc == 0; j++)
            if (strcmp(sw->gpus[j].ident, sw->gpus[i].ident) == 0) {
                snprintf(err, errlen, "gpulab: --gpus: GPU %d and GPU %d are the same device (%s)",
                         nums[j], nums[i], sw->gpus[i].ident);
                rc = 2;
            }
    }
    return rc;
}

/* The model (index into sw->model_first) of worker slot w's GPU; sw->nmodels
 * when none of those known yet has its model. */
static int model_of(const struct gl_sweep *sw, int w)
{
    int m = 0;
    while (m < sw->nmodels && !same_model(&sw->gpus[sw->model_first[m]], &sw->gpus[w]))
        m++;
    return m;
}

/* The workers: one per GPU (gpus given), or one as always. 0, 1 or 2 with err. */
static int start_workers(struct gl_sweep *sw, const char *gpus, char *err, size_t errlen)
{
    sw->multi = gpus != NULL;
    if (gpus && sw->gpu_wanted) {
        int rc = start_gpu_workers(sw, gpus, err, errlen);
        if (rc != 0)
            return rc;
    }
    if (sw->nworkers == 0) {
        if (gl_worker_start(&sw->workers[0], sw->gpu_wanted, err, errlen) != 0)
            return 1;
        sw->nworkers = 1;
        if (sw->workers[0].ready.gpu_ok)
            sw->gpus[0] = sw->workers[0].ready.gpu;
    }
    sw->gpu_ok = sw->workers[0].ready.gpu_ok;
    snprintf(sw->gpu_why, sizeof sw->gpu_why, "%s", sw->workers[0].ready.why);
    if (sw->gpu_ok)
        sw->gpu = sw->gpus[0];
    sw->nmodels = 0;
    for (int i = 0; sw->gpu_ok && i < sw->nworkers; i++)
        if (model_of(sw, i) == sw->nmodels)
            sw->model_first[sw->nmodels++] = i;
    return 0;
}

/* --arch 90a: every kernel section without its own `arch` gets the target,
 * folded into its hash (a run for sm_90a is not one for sm_90). */
static void cli_target(struct gl_config *c, int arch)
{
    if (!gl_arch_suffix(arch))
        return;
    for (int i = 0; i < c->nsections; i++) {
        struct gl_kernel *k = c->sections[i].kernel;
        if (!k || k->arch)
            continue;
        k->arch = arch;
        struct gl_sha256 h;
        unsigned char d[32];
        char name[16];
        gl_arch_name(arch, name, sizeof name);
        gl_sha256_init(&h);
        gl_sha256_update(&h, k->hash, strlen(k->hash));
        gl_sha256_update(&h, " arch ", 6);
        gl_sha256_update(&h, name, strlen(name));
        gl_sha256_final(&h, d);
        for (int j = 0; j < 32; j++)
            snprintf(k->hash + 2 * j, 3, "%02x", d[j]);
    }
}

/* The values expressions see of the GPU (target.h): slot 0's, or an assumed
 * H100 SXM's without one; said when a config names them. */
static int device_values(struct gl_sweep *sw, char *err, size_t errlen)
{
    struct gl_devvals d;
    gl_devvals_assume(&d);
    if (sw->gpu_ok && sw->gpu.sm_count > 0) {
        d.assumed = 0;
        d.sm_count = sw->gpu.sm_count;
        if (sw->gpu.max_threads_per_sm > 0)
            d.threads_per_sm = sw->gpu.max_threads_per_sm;
        if (sw->gpu.max_blocks_per_sm > 0)
            d.blocks_per_sm = sw->gpu.max_blocks_per_sm;
        if (sw->gpu.smem_per_sm > 0)
            d.smem_per_sm = sw->gpu.smem_per_sm;
    }
    gl_devvals_set(&d);
    int named = 0;
    for (int i = 0; i < sw->nconfigs; i++) {
        int r = gl_config_device_values(&sw->configs[i], err, errlen);
        if (r < 0)
            return -1;
        named |= r || strstr(sw->configs[i].text, "sm_count") ||
                 strstr(sw->configs[i].text, "occupancy");
    }
    if (named && d.assumed)
        snprintf(sw->devvals_said, sizeof sw->devvals_said, "gpulab: no GPU: sm_count = %lld "
                 "(an H100 SXM's) is assumed; occupancy() in parameter values and where is "
                 "estimated from 2048 threads, 32 blocks and 228 KiB per SM (registers not "
                 "counted); a run uses its GPU's, and its kernel's occupancy in grid, block "
                 "and smem", d.sm_count);
    else if (named)
        snprintf(sw->devvals_said, sizeof sw->devvals_said, "gpulab: sm_count = %lld (%s); "
                 "occupancy() in parameter values and where is estimated from the GPU's "
                 "limits (registers not counted), in grid, block and smem it is the kernel's",
                 d.sm_count, sw->gpu.name);
    return 0;
}

/* Step 4's checks: each GPU section's metrics spec, asked of every worker in
 * slot order (then configs, sections). The first worker of each GPU model
 * answers for its model (`answers`); the others are asked only to set their
 * profilers up before their first run, and their answers are read and let go
 * (each says at its first job what is wrong there, as before). */
struct metrics_check {
    int model, w, answers;
    int asked;                        /* sent before the compile */
    const struct gl_config *cfg;
    const struct gl_section *s;
};

/* Asked of one worker before the compile, at most: each answer is about 1 KiB,
 * and neither side reads while the compile runs (gl_worker_metrics_ask). */
#define METRICS_AHEAD 16

/* The checks, malloc'ed in *out: their count, or -1 out of memory. */
static int metrics_checks(const struct gl_sweep *sw, struct metrics_check **out)
{
    int nsec = 0, n = 0;
    *out = NULL;
    for (int i = 0; i < sw->nconfigs; i++)
        for (int j = 0; j < sw->configs[i].nsections; j++)
            nsec += section_has_gpu(&sw->configs[i].sections[j]);
    if (!sw->gpu_ok || nsec == 0)
        return 0;
    *out = malloc((size_t)sw->nworkers * (size_t)nsec * sizeof **out);
    if (!*out)
        return -1;
    for (int w = 0; w < sw->nworkers; w++) {
        int m = model_of(sw, w);
        for (int i = 0; i < sw->nconfigs; i++)
            for (int j = 0; j < sw->configs[i].nsections; j++) {
                const struct gl_section *s = &sw->configs[i].sections[j];
                if (!section_has_gpu(s))
                    continue;
                struct metrics_check *c = &(*out)[n++];
                c->model = m;
                c->w = w;
                c->answers = sw->model_first[m] == w;
                c->asked = 0;
                c->cfg = &sw->configs[i];
                c->s = s;
            }
    }
    return n;
}

/* Before the compile: the first METRICS_AHEAD checks of each worker sent. */
static void metrics_ask_ahead(struct gl_sweep *sw, struct metrics_check *mc, int n)
{
    int sent[GL_GPUS_MAX] = { 0 };
    for (int k = 0; k < n; k++) {
        struct metrics_check *c = &mc[k];
        char merr[1024];
        /* a worker that failed an ask is reaped (pid 0): its checks are asked
         * after the compile, and fail there */
        if (sent[c->w] >= METRICS_AHEAD || sw->workers[c->w].pid <= 0)
            continue;
        c->asked = gl_worker_metrics_ask(&sw->workers[c->w], section_metrics(c->s), merr,
                                         sizeof merr) == 0;
        sent[c->w] += c->asked;
    }
}

/* Step 4: the answers to the checks (each one asked already is read, even when
 * use is 0, the compile having failed, so that no answer is left in a pipe).
 * A model whose counters are unavailable is asked nothing more: its answer is
 * the same for every spec. 0, or 1 / 2 + err. */
static int metrics_answers(struct gl_sweep *sw, const struct metrics_check *mc, int n, int use,
                           char *err, size_t errlen)
{
    int rc = 0, skip_model = -1, first_done = 0;
    for (int k = 0; k < n; k++) {
        const struct metrics_check *c = &mc[k];
        struct gl_worker *w = &sw->workers[c->w];
        char merr[1024];
        int wanted = use && rc == 0 && c->answers && c->model != skip_model;
        if (!c->asked && !wanted)
            continue;
        int r = c->asked ? gl_worker_metrics_answer(w, merr, sizeof merr)
                         : gl_worker_metrics(w, section_metrics(c->s), merr, sizeof merr);
        if (!wanted)
            continue;
        if (r == -2) {
            snprintf(err, errlen, "%s:%d: %s", c->cfg->path,
                     c->s->metrics_line ? c->s->metrics_line : c->s->line, merr);
            rc = 2;
            continue;
        }
        if (r == -3) {
            snprintf(err, errlen, "%s", merr);
            rc = 1;
            continue;
        }
        if (c->model == 0 && !first_done) {   /* the first GPU's first answer */
            sw->counters = r;
            if (r < 0)
                snprintf(sw->counters_why, sizeof sw->counters_why, "%s", merr);
            first_done = 1;
        }
        if (r == -1)
            skip_model = c->model;
    }
    return rc;
}

int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, const char *gpus, gl_store *store,
                     const struct gl_sweep_watch *watch, char *err, size_t errlen)
{
    double t0 = gl_now();
    memset(sw, 0, sizeof *sw);
    sw->arch = arch;
    sw->force = force;
    gl_arch_plan_base = arch > 0 ? gl_arch_cc(arch) : 90;
    sw->counters = -1;
    sw->configs = calloc((size_t)npaths, sizeof *sw->configs);
    sw->exps = calloc((size_t)npaths, sizeof *sw->exps);
    if (!sw->configs || !sw->exps) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    /* 1. Parse every config and check metric specs before anything runs. */
    for (int i = 0; i < npaths; i++) {
        if (gl_config_load(paths[i], &sw->configs[i], err, errlen) != 0)
            return 2;
        sw->nconfigs = i + 1;
        cli_target(&sw->configs[i], arch);
        for (int j = 0; j < sw->configs[i].nsections; j++) {
            const struct gl_section *s = &sw->configs[i].sections[j];
            struct gl_metric_req req;
            char merr[512];
            if (gl_metric_resolve(section_metrics(s), &req, merr, sizeof merr) != 0) {
                snprintf(err, errlen, "%s:%d: %s", paths[i],
                         s->metrics_line ? s->metrics_line : s->line, merr);
                return 2;
            }
            if (section_has_gpu(s))
                sw->gpu_wanted = 1;
        }
    }
    double t = gl_now();
    sw->prep_s[GL_PREP_CONFIGS] = t - t0;
    /* 2. The CPU is always described; the worker says whether a GPU is usable. */
    gl_cpu_describe(&sw->cpu);
    if (store) {
        sw->cpu_id = gl_store_device(store, &sw->cpu);
        if (sw->cpu_id < 0) {
            snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
            return 1;
        }
    }
    if (gpus && gl_sweep_gpus_syntax(gpus, err, errlen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "gpulab: %s", why);
        return 2;
    }
    int wrc = start_workers(sw, gpus, err, errlen);
    sw->prep_s[GL_PREP_WORKERS] = gl_now() - t;
    if (wrc != 0)
        return wrc;
    t = gl_now();
    for (int i = 0; sw->gpu_ok && store && i < sw->nworkers; i++) {
        sw->gpu_ids[i] = gl_store_device(store, &sw->gpus[i]);
        if (sw->gpu_ids[i] < 0) {
            snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
            return 1;
        }
    }
    sw->gpu_id = sw->gpu_ids[0];
    /* 3. Expand against the real device limits (static limits without a GPU),
     * with the parameter values that name the GPU's (G = sm_count) made with it. */
    if (device_values(sw, err, errlen) != 0)
        return 2;
    for (int i = 0; i < sw->nconfigs; i++)
        if (gl_expand(&sw->configs[i], sw->gpu_ok ? &sw->gpu : NULL, only, &sw->exps[i], err,
                      errlen) != 0)
            return 2;
    /* 3a. Every search's objective is a numeric column of the results view. */
    int src = gl_search_check(sw->configs, sw->nconfigs, err, errlen);
    if (src != 0)
        return src;
    /* 3b. Every distinct user kernel point compiles before anything runs (a
     * searched section's first launchable point only: the worker compiles the
     * points its search picks). The metrics checks of step 4 are asked first, so
     * that every worker sets its profiler up meanwhile. */
    struct metrics_check *mc = NULL;
    int nmc = metrics_checks(sw, &mc);
    if (nmc < 0) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    sw->prep_s[GL_PREP_PLAN] = gl_now() - t;
    t = gl_now();
    metrics_ask_ahead(sw, mc, nmc);
    int crc = gl_sweep_compile(sw, watch, err, errlen);
    sw->prep_s[GL_PREP_COMPILE] = gl_now() - t;
    t = gl_now();
    /* 4. Metric names are checked on the GPU itself, once per distinct spec
     * and model (the first GPU's answer says whether counters are available). */
    int rc = metrics_answers(sw, mc, nmc, crc == 0, err, errlen);
    sw->prep_s[GL_PREP_COUNTERS] = gl_now() - t;
    free(mc);
    return crc != 0 ? crc : rc;
}

void gl_sweep_key(const struct gl_sweep *sw, const struct gl_job *job, struct gl_run_key *k)
{
    gl_sweep_key_on(sw, job, 0, k);
}

void gl_sweep_key_on(const struct gl_sweep *sw, const struct gl_job *job, int slot,
                     struct gl_run_key *k)
{
    if (slot < 0 || slot >= sw->nworkers)
        slot = 0;
    k->device_id = strcmp(job->v->device, "gpu") == 0 ? sw->gpu_ids[slot] : sw->cpu_id;
    k->family = job->v->family;
    k->variant = job->v->name;
    k->p = &job->p;
    k->study = job->study;
    /* a user kernel: its named parameters (from p->user) and its code's hash;
     * a variant of a --plugin: the hash of the plugin's file */
    const struct gl_kernel_variant *kv = gl_kernel_variant_of(job->v);
    k->uparams = NULL;
    k->code_hash = kv ? kv->k->hash : gl_variant_code_hash(job->v);
}

enum gl_job_state gl_sweep_state(struct gl_sweep *sw, gl_store *store, const struct gl_job *job)
{
    if (!gl_shard_has(&sw->shard, job))
        return GL_JOB_OTHER_SHARD;
    /* A rejected point is shown as such with or without a GPU: check() used
     * the GPU's limits when there is one, every GPU's static limits if not. */
    if (job->skip[0])
        return GL_JOB_REJECTED;
    if (strcmp(job->v->device, "gpu") == 0 && !sw->gpu_ok)
        return GL_JOB_NO_GPU;
    /* A GPU job is done when the model of any GPU of the sweep holds it: on a
     * host with GPUs of several models it runs once, on whichever takes it. */
    int nkeys = strcmp(job->v->device, "gpu") == 0 && sw->nmodels > 1 ? sw->nmodels : 1;
    for (int m = 0; store && !sw->force && m < nkeys; m++) {
        struct gl_run_key k;
        gl_sweep_key_on(sw, job, nkeys > 1 ? sw->model_first[m] : 0, &k);
        if (gl_store_has_ok(store, &k) == 1)
            return GL_JOB_DONE;
    }
    for (int m = 0; store && m < nkeys; m++) {
        struct gl_run_key k;
        gl_sweep_key_on(sw, job, nkeys > 1 ? sw->model_first[m] : 0, &k);
        if (k.device_id > 0 && gl_store_claim_held(store, &k) == 1)
            return GL_JOB_ELSEWHERE;
    }
    return GL_JOB_RUN;
}

int gl_sweep_survey(struct gl_sweep *sw, gl_store *store, int *need_cpu, int *need_gpu)
{
    int n = 0;
    *need_cpu = *need_gpu = 0;
    for (int ci = 0; ci < sw->nconfigs; ci++)
        n += sw->exps[ci].njobs;
    free(sw->surveyed);
    sw->surveyed = malloc(n > 0 ? (size_t)n : 1);
    if (!sw->surveyed)
        return -1;
    sw->surveyed_last = store ? gl_store_last_run(store) : -1;
    n = 0;
    for (int ci = 0; ci < sw->nconfigs; ci++)
        for (int ji = 0; ji < sw->exps[ci].njobs; ji++) {
            const struct gl_job *job = &sw->exps[ci].jobs[ji];
            /* a search looks its points up itself, as it picks them */
            enum gl_job_state st = job->searched && !job->skip[0] ? GL_JOB_RUN
                                                                  : gl_sweep_state(sw, store, job);
            sw->surveyed[n++] = (unsigned char)st;
            if (st == GL_JOB_RUN || st == GL_JOB_ELSEWHERE) {
                if (strcmp(job->v->device, "gpu") == 0)
                    *need_gpu = 1;
                else
                    *need_cpu = 1;
            }
        }
    return 0;
}

int gl_sweep_claim(struct gl_sweep *sw, gl_store *store, int ci, int ji)
{
    return gl_sweep_claim_on(sw, store, ci, ji, 0);
}

int gl_sweep_claim_on(struct gl_sweep *sw, gl_store *store, int ci, int ji, int slot)
{
    const struct gl_job *job = &sw->exps[ci].jobs[ji];
    int idx = ji;
    for (int i = 0; i < ci; i++)
        idx += sw->exps[i].njobs;
    int before = sw->surveyed ? sw->surveyed[idx] : GL_JOB_RUN;
    if (!gl_shard_has(&sw->shard, job))
        return GL_JOB_OTHER_SHARD;
    if (job->skip[0])
        return GL_JOB_REJECTED;
    if (strcmp(job->v->device, "gpu") == 0 && !sw->gpu_ok)
        return GL_JOB_NO_GPU;
    if (before == GL_JOB_DONE)
        return GL_JOB_DONE;
    struct gl_run_key k;
    gl_sweep_key_on(sw, job, slot, &k);
    switch (gl_store_claim(store, &k, sw->force, sw->surveyed ? sw->surveyed_last : -1, NULL, 0)) {
    case GL_CLAIM_TAKEN: return GL_JOB_RUN;
    case GL_CLAIM_DONE: return GL_JOB_DONE;   /* by this process, earlier in the sweep */
    case GL_CLAIM_ELSEWHERE: return GL_JOB_ELSEWHERE;   /* stored by another since the survey */
    case GL_CLAIM_BUSY: return GL_JOB_ELSEWHERE;
    default: return -1;
    }
}
