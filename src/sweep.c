/* sweep.c - see sweep.h. Must not print: the commands do. */
#include "sweep.h"
#include "cpuinfo.h"
#include "kernel_variant.h"
#include "metric_sets.h"
#include "registry.h"

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

int gl_sweep_prepare(struct gl_sweep *sw, int npaths, char **paths, const char *only,
                     int force, int arch, gl_store *store, const struct gl_sweep_watch *watch,
                     char *err, size_t errlen)
{
    memset(sw, 0, sizeof *sw);
    sw->arch = arch;
    sw->force = force;
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
    /* 2. The CPU is always described; the worker says whether a GPU is usable. */
    gl_cpu_describe(&sw->cpu);
    if (store) {
        sw->cpu_id = gl_store_device(store, &sw->cpu);
        if (sw->cpu_id < 0) {
            snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
            return 1;
        }
    }
    if (gl_worker_start(&sw->worker, sw->gpu_wanted, err, errlen) != 0)
        return 1;
    sw->gpu_ok = sw->worker.ready.gpu_ok;
    snprintf(sw->gpu_why, sizeof sw->gpu_why, "%s", sw->worker.ready.why);
    if (sw->gpu_ok) {
        sw->gpu = sw->worker.ready.gpu;
        if (store) {
            sw->gpu_id = gl_store_device(store, &sw->gpu);
            if (sw->gpu_id < 0) {
                snprintf(err, errlen, "cannot store the device: %s", gl_store_errmsg(store));
                return 1;
            }
        }
    }
    /* 3. Expand against the real device limits (static limits without a GPU). */
    for (int i = 0; i < sw->nconfigs; i++)
        if (gl_expand(&sw->configs[i], sw->gpu_ok ? &sw->gpu : NULL, only, &sw->exps[i], err,
                      errlen) != 0)
            return 2;
    /* 3b. Every distinct user kernel point compiles before anything runs. */
    int crc = gl_sweep_compile(sw, watch, err, errlen);
    if (crc != 0)
        return crc;
    /* 4. Metric names are checked on the GPU itself, once per distinct spec. */
    if (sw->gpu_ok) {
        int first = 1;
        for (int i = 0; i < sw->nconfigs; i++) {
            for (int j = 0; j < sw->configs[i].nsections; j++) {
                const struct gl_section *s = &sw->configs[i].sections[j];
                if (!section_has_gpu(s))
                    continue;
                char merr[1024];
                int rc = gl_worker_metrics(&sw->worker, section_metrics(s), merr, sizeof merr);
                if (rc == -2) {
                    snprintf(err, errlen, "%s:%d: %s", sw->configs[i].path,
                             s->metrics_line ? s->metrics_line : s->line, merr);
                    return 2;
                }
                if (rc == -3) {
                    snprintf(err, errlen, "%s", merr);
                    return 1;
                }
                if (first) {
                    sw->counters = rc;
                    if (rc < 0)
                        snprintf(sw->counters_why, sizeof sw->counters_why, "%s", merr);
                    first = 0;
                }
                if (rc == -1)
                    break;   /* unavailable for every spec alike */
            }
        }
    }
    return 0;
}

void gl_sweep_key(const struct gl_sweep *sw, const struct gl_job *job, struct gl_run_key *k)
{
    k->device_id = strcmp(job->v->device, "gpu") == 0 ? sw->gpu_id : sw->cpu_id;
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
    if (store && !sw->force) {
        struct gl_run_key k;
        gl_sweep_key(sw, job, &k);
        if (gl_store_has_ok(store, &k) == 1)
            return GL_JOB_DONE;
    }
    if (store) {
        struct gl_run_key k;
        gl_sweep_key(sw, job, &k);
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
            enum gl_job_state st = gl_sweep_state(sw, store, job);
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
    gl_sweep_key(sw, job, &k);
    switch (gl_store_claim(store, &k, sw->force, sw->surveyed ? sw->surveyed_last : -1, NULL, 0)) {
    case GL_CLAIM_TAKEN: return GL_JOB_RUN;
    case GL_CLAIM_DONE: return GL_JOB_DONE;   /* by this process, earlier in the sweep */
    case GL_CLAIM_ELSEWHERE: return GL_JOB_ELSEWHERE;   /* stored by another since the survey */
    case GL_CLAIM_BUSY: return GL_JOB_ELSEWHERE;
    default: return -1;
    }
}

void gl_sweep_free(struct gl_sweep *sw)
{
    gl_worker_stop(&sw->worker);
    gl_devlock_release(&sw->locks);   /* after the worker: it measures no more */
    for (int i = 0; i < sw->nconfigs; i++) {
        gl_expansion_free(&sw->exps[i]);
        gl_config_free(&sw->configs[i]);
    }
    free(sw->exps);
    free(sw->configs);
    free(sw->surveyed);
    memset(sw, 0, sizeof *sw);
}
