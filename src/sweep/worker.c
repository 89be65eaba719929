/* worker.c - see worker.h. The child side runs every job through its variant's
 * run (the plugins were loaded by the parent before the fork) and drives the
 * GPU's device operations; messages are fixed-size structs written whole
 * (parent and child are the same binary). */
#include "worker.h"
#include "interrupt.h"
#include "metric_sets.h"
#include "registry.h"
#include "run_watch.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* MSG_RESULT_LAST: a result after which the worker exits (sticky CUDA error). */
/* MSG_BATCH: several jobs whose results come back in order once all have run
 * (their profiling is done together at the end). */
/* MSG_BANDWIDTH: measure the GPU's copy bandwidth; MSG_BANDWIDTH_REPLY: a double. */
/* MSG_CEILINGS: measure the memory levels' ceilings; MSG_CEILINGS_REPLY: a struct
 * ceilings_reply (after which the worker exits when rc is -1: context lost). */
enum { MSG_JOB = 1, MSG_METRICS, MSG_QUIT, MSG_READY, MSG_RESULT, MSG_RESULT_LAST, MSG_METRICS_REPLY,
       MSG_BATCH, MSG_BANDWIDTH, MSG_BANDWIDTH_REPLY, MSG_CEILINGS, MSG_CEILINGS_REPLY };

struct ceilings_reply {
    int rc;
    struct gl_ceilings c;
};

struct msg_hdr {
    int type;
    int len;   /* payload bytes that follow */
};

struct metrics_reply {
    int rc;
    char err[1024];
};

/* ---- pipe I/O --------------------------------------------------------------- */

static int send_msg(int fd, int type, const void *payload, int len)
{
    struct msg_hdr h = { type, len };
    if (gl_write_all(fd, &h, sizeof h) != 0)
        return -1;
    return len > 0 ? gl_write_all(fd, payload, (size_t)len) : 0;
}

/* Read len bytes, waiting at most deadline (gl_now() seconds; <= 0: forever).
 * In the parent (w given) the wait also ends when SIGINT or SIGTERM comes
 * (interrupt.h), and calls w->on_wait every w->wait_every seconds of a job.
 * 0 ok, -1 EOF/error, -2 timed out, -3 interrupted. */
static int read_all_w(struct gl_worker *w, int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len > 0) {
        if (w && gl_interrupt_signal())
            return -3;
        if (deadline > 0) {
            double now = gl_now(), left = deadline - now;
            if (left <= 0)
                return -2;
            int tick = w && w->on_wait && w->wait_every > 0 && w->job_started > 0;
            if (tick && now >= w->next_wait) {
                w->on_wait(w->wait_arg, now - w->job_started);
                w->next_wait = now + w->wait_every;
            }
            double wait = tick && w->next_wait - now < left ? w->next_wait - now : left;
            struct pollfd pfd[2] = { { fd, POLLIN, 0 }, { w ? gl_interrupt_fd() : -1, POLLIN, 0 } };
            int ms = wait > 1e6 ? 1000000000 : (int)(wait * 1000.0) + 1;
            int pr = poll(pfd, pfd[1].fd >= 0 ? 2 : 1, ms);
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr < 0)
                return -1;
            if (pfd[1].fd >= 0 && pfd[1].revents)
                return -3;
            if (pr == 0)
                continue;   /* a tick or the deadline: the loop decides */
        }
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len, double deadline)
{
    return read_all_w(NULL, fd, buf, len, deadline);
}

/* ---- child ------------------------------------------------------------------ */

struct child_state {
    const struct gl_device_ops *api;   /* the GPU's, when one is wanted and its plugin loaded */
    int gpu_ok;
    char gpu_why[GL_REASON_MAX];      /* why not, when gpu_ok == 0 */
    char current_spec[512];   /* metrics spec the profiler is configured for */
    struct gl_metric_req current_req;   /* ... resolved (valid when has_req) */
    int has_req;
    int counters;             /* passes of the current configuration; <0 unavailable */
    char counters_why[GL_REASON_MAX];
    char gpu_uuid[128];       /* the GPU's, for the run watch (run_watch.h) */
};

/* Configure the profiler for spec. Returns passes, -1, -2. */
static int child_setup_metrics(struct child_state *cs, const char *spec, char *err, size_t errlen)
{
    struct gl_metric_req req;
    cs->has_req = 0;
    if (gl_metric_resolve(spec, &req, err, errlen) != 0)
        return -2;
    int rc = cs->api->profiler_setup(&req, err, errlen);
    cs->current_req = req;
    cs->has_req = 1;
    return rc;
}

/* 1 when spec asks for exactly the metrics the profiler is configured for
 * (another text for the same set: "default" and its names spelt out): the
 * configuration, its range profiler object and its sessions stay. */
static int child_same_metrics(const struct child_state *cs, const char *spec)
{
    struct gl_metric_req req;
    char err[256];
    if (!cs->has_req || cs->counters < 0 || gl_metric_resolve(spec, &req, err, sizeof err) != 0)
        return 0;
    if (req.n != cs->current_req.n || req.drain != cs->current_req.drain)
        return 0;
    for (int i = 0; i < req.n; i++)
        if (strcmp(req.names[i], cs->current_req.names[i]) != 0)
            return 0;
    return 1;
}

/* Why a run has no metrics, where nothing more specific was said. */
static void child_metrics_reason(const struct child_state *cs, struct gl_result *r)
{
    if (r->nmetrics != 0 || r->metrics_reason[0] != '\0')
        return;
    if (cs->counters == 0)
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not requested (metrics = none)");
    else if (cs->counters < 0)
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "counters unavailable: %.200s",
                 cs->counters_why);
    else if (r->status != GL_OK)
        snprintf(r->metrics_reason, sizeof r->metrics_reason, "not profiled: run was not ok");
}

/* Run one job. in_batch: inside batch_begin/batch_end (GPU runs are profiled at
 * batch_end; call child_metrics_reason after it). */
static void child_run_job(struct child_state *cs, const struct gl_job *job, struct gl_result *r,
                          int in_batch, int *fatal)
{
    memset(r, 0, sizeof *r);
    r->max_rel_err = -1;
    r->h2d_ms = r->d2h_ms = -1;
    *fatal = 0;
    const struct gl_variant *v = job->v;
    struct gl_run_watch watch;
    if (strcmp(v->device, "cpu") == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        double t0 = gl_now();
        /* the CPUs it keeps busy: its threads (0: every CPU), one when it reads none */
        int cores = !(v->params & GL_PBIT(GL_P_THREADS)) ? 1
                    : job->p.threads > 0                 ? (int)job->p.threads
                                                         : (int)cpus;
        gl_run_watch_start(&watch, cores, NULL);
        v->run(v, &job->p, &job->t, r);
        gl_run_watch_stop(&watch, r);
        r->phase_ms[GL_PH_RUN] = (gl_now() - t0) * 1e3;
        snprintf(r->metrics_reason, sizeof r->metrics_reason,
                 "CPU run: no hardware counters are collected");
        if (r->energy_j <= 0 && !r->energy_reason[0])
            snprintf(r->energy_reason, sizeof r->energy_reason,
                     "CPU run: no energy counter is read");
        return;
    }
    if (!cs->gpu_ok) {
        r->status = GL_FAILED;
        snprintf(r->reason, sizeof r->reason, "no GPU in the worker: %.200s", cs->gpu_why);
        return;
    }
    const char *spec = (job->metrics && job->metrics[0]) ? job->metrics : "default";
    if (strcmp(spec, cs->current_spec) != 0 && child_same_metrics(cs, spec))
        snprintf(cs->current_spec, sizeof cs->current_spec, "%s", spec);
    if (strcmp(spec, cs->current_spec) != 0) {
        char err[1024];
        if (in_batch && cs->api->batch_end() != 0) {   /* parked runs use the old set */
            *fatal = 1;
            r->status = GL_FAILED;
            snprintf(r->reason, sizeof r->reason, "CUDA context lost before the run");
            return;
        }
        int rc = child_setup_metrics(cs, spec, err, sizeof err);
        snprintf(cs->current_spec, sizeof cs->current_spec, "%s", spec);
        cs->counters = rc;
        if (rc < 0)
            snprintf(cs->counters_why, sizeof cs->counters_why, "%.250s", err);
        if (in_batch)
            cs->api->batch_begin();
    }
    double t0 = gl_now();
    gl_run_watch_start(&watch, 1, cs->gpu_uuid);
    double t1 = gl_now();
    if (v->run(v, &job->p, &job->t, r) != 0)
        *fatal = 1;
    double t2 = gl_now();
    gl_run_watch_stop(&watch, r);
    double t3 = gl_now();
    r->watch_ms = ((t1 - t0) + (t3 - t2)) * 1e3;
    r->phase_ms[GL_PH_RUN] = (t3 - t0) * 1e3;
    if (!in_batch)
        child_metrics_reason(cs, r);
}

/* The jobs of a MSG_BATCH: run in order (GPU runs parked for profiling), profile
 * the parked ones together, send every result. Returns 1 when the worker must
 * exit (sticky CUDA error). */
static int child_run_batch(struct child_state *cs, int out, const struct gl_job *jobs, int n,
                           struct gl_result *res)
{
    int fatal = 0, done = 0;
    int batching = cs->gpu_ok && cs->api;
    static double replays[GL_BATCH_MAX];   /* each run's replay time before the batch's end */
    if (batching)
        cs->api->batch_begin();
    for (; done < n && !fatal; done++) {
        child_run_job(cs, &jobs[done], &res[done], batching, &fatal);
        replays[done] = res[done].phase_ms[GL_PH_PROFILE];
    }
    if (batching && cs->api->batch_end() != 0)
        fatal = 1;
    for (int i = 0; i < done; i++) {
        /* a parked run's replays happened at the batch's end: part of its run */
        res[i].phase_ms[GL_PH_RUN] += res[i].phase_ms[GL_PH_PROFILE] - replays[i];
        child_metrics_reason(cs, &res[i]);
        int last = fatal && i == done - 1;
        if (send_msg(out, last ? MSG_RESULT_LAST : MSG_RESULT, &res[i], sizeof res[i]) != 0)
            _exit(2);
    }
    return fatal;
}

static void child_main(int in, int out, int want_gpu)
{
    struct child_state cs;
    struct gl_ready ready;
    memset(&cs, 0, sizeof cs);
    memset(&ready, 0, sizeof ready);
    signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (want_gpu) {
        cs.api = gl_registry_gpu();
        if (!cs.api)
            snprintf(ready.why, sizeof ready.why, "%s", gl_registry_gpu_why());
        else if (cs.api->init(0, &ready.gpu, ready.why, sizeof ready.why) == 0)
            ready.gpu_ok = 1;
    } else {
        snprintf(ready.why, sizeof ready.why, "GPU not needed");
    }
    cs.gpu_ok = ready.gpu_ok;
    if (ready.gpu_ok)
        snprintf(cs.gpu_uuid, sizeof cs.gpu_uuid, "%s", ready.gpu.ident);
    snprintf(cs.gpu_why, sizeof cs.gpu_why, "%s", ready.why);
    if (send_msg(out, MSG_READY, &ready, sizeof ready) != 0)
        _exit(2);

    static struct gl_job job;
    static struct gl_result res;
    static struct gl_job bjobs[GL_BATCH_MAX];
    static struct gl_result bres[GL_BATCH_MAX];
    for (;;) {
        struct msg_hdr h;
        if (read_all(in, &h, sizeof h, 0) != 0)
            _exit(0);
        if (h.type == MSG_QUIT)
            break;
        if (h.type == MSG_METRICS) {
            char spec[512] = "";
            struct metrics_reply rep;
            memset(&rep, 0, sizeof rep);
            if (h.len <= 0 || h.len > (int)sizeof spec || read_all(in, spec, (size_t)h.len, 0) != 0)
                _exit(2);
            spec[sizeof spec - 1] = '\0';
            if (!cs.gpu_ok) {
                rep.rc = -1;
                snprintf(rep.err, sizeof rep.err, "%s", ready.why);
            } else if (child_same_metrics(&cs, spec)) {
                rep.rc = cs.counters;   /* configured already: kept (no new collection) */
                snprintf(cs.current_spec, sizeof cs.current_spec, "%s", spec);
            } else {
                rep.rc = child_setup_metrics(&cs, spec, rep.err, sizeof rep.err);
                snprintf(cs.current_spec, sizeof cs.current_spec, "%s", spec);
                cs.counters = rep.rc;
                if (rep.rc < 0)
                    snprintf(cs.counters_why, sizeof cs.counters_why, "%.250s", rep.err);
            }
            if (send_msg(out, MSG_METRICS_REPLY, &rep, sizeof rep) != 0)
                _exit(2);
            continue;
        }
        if (h.type == MSG_BANDWIDTH) {
            double bw = cs.gpu_ok && cs.api->copy_bandwidth ? cs.api->copy_bandwidth() : 0.0;
            if (send_msg(out, MSG_BANDWIDTH_REPLY, &bw, sizeof bw) != 0)
                _exit(2);
            continue;
        }
        if (h.type == MSG_CEILINGS) {
            struct ceilings_reply rep;
            memset(&rep, 0, sizeof rep);
            if (!cs.gpu_ok) {
                rep.rc = 1;
                snprintf(rep.c.why, sizeof rep.c.why, "no GPU: %.200s", ready.why);
            } else if (!cs.api->ceilings) {
                rep.rc = 1;
                snprintf(rep.c.why, sizeof rep.c.why, "the GPU plugin does not measure them");
            } else {
                rep.rc = cs.api->ceilings(&rep.c);
            }
            if (send_msg(out, MSG_CEILINGS_REPLY, &rep, sizeof rep) != 0)
                _exit(2);
            if (rep.rc < 0)
                _exit(3);   /* the CUDA context is unusable: the next job starts a new worker */
            continue;
        }
        if (h.type == MSG_BATCH) {
            int n = h.len / (int)sizeof bjobs[0];
            if (n < 1 || n > GL_BATCH_MAX || h.len != n * (int)sizeof bjobs[0] ||
                read_all(in, bjobs, (size_t)h.len, 0) != 0)
                _exit(2);
            if (child_run_batch(&cs, out, bjobs, n, bres))
                _exit(3);
            continue;
        }
        if (h.type != MSG_JOB || h.len != (int)sizeof job || read_all(in, &job, sizeof job, 0) != 0)
            _exit(2);
        int fatal = 0;
        child_run_job(&cs, &job, &res, 0, &fatal);
        if (send_msg(out, fatal ? MSG_RESULT_LAST : MSG_RESULT, &res, sizeof res) != 0)
            _exit(2);
        if (fatal)
            _exit(3);   /* the CUDA context is unusable: the parent starts a new worker */
    }
    gl_run_watch_shutdown();   /* no sample (NVML) under way while the plugin shuts down */
    if (cs.api)
        cs.api->shutdown();
    _exit(0);
}

/* ---- parent ----------------------------------------------------------------- */

/* Close the pipes and wait for the worker (killing it first if kill_it); why
 * says how it ended. Returns the signal that ended it, or 0. */
static int reap(struct gl_worker *w, int kill_it, char *why, size_t whylen)
{
    int status = 0, sig = 0;
    if (w->pid <= 0)
        return 0;
    if (kill_it)
        kill(w->pid, SIGKILL);
    close(w->to_child);
    close(w->from_child);
    if (waitpid(w->pid, &status, 0) == w->pid) {
        if (WIFSIGNALED(status))
            sig = WTERMSIG(status);
        if (why && WIFSIGNALED(status))
            snprintf(why, whylen, "worker killed by signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else if (why && WIFEXITED(status))
            snprintf(why, whylen, "worker exited with status %d", WEXITSTATUS(status));
    }
    w->pid = 0;
    return sig;
}

/* SIGINT or SIGTERM came while the worker ran a job: send it the same signal
 * (its default action ends it), give it half a second, then SIGKILL, and reap
 * it. What it was running is dropped. */
static void forward_interrupt(struct gl_worker *w)
{
    int sig = gl_interrupt_signal();
    w->job_started = 0;
    w->busy = 0;
    if (w->pid <= 0)
        return;
    kill(w->pid, sig ? sig : SIGTERM);
    for (int i = 0; i < 50; i++) {
        int status;
        pid_t r = waitpid(w->pid, &status, WNOHANG);
        if (r == w->pid || (r < 0 && errno == ECHILD)) {
            close(w->to_child);
            close(w->from_child);
            w->pid = 0;
            return;
        }
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    reap(w, 1, NULL, 0);
}

void gl_worker_interrupt(struct gl_worker *w)
{
    forward_interrupt(w);
}

int gl_worker_spawn(struct gl_worker *w, int want_gpu, char *err, size_t errlen)
{
    int down[2], up[2];
    if (pipe(down) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe(up) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        return -1;
    }
    if (pid == 0) {
        /* The worker dies with the driver: a killed sweep must not leave a run
         * going on that a resumed sweep would be timed against (or that holds
         * its output pipe). getppid() catches a parent that died before prctl. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        gl_interrupt_child();
        close(down[1]);
        close(up[0]);
        /* Its GPU alone: CUDA reads this when it initialises, which the
         * driver (the parent) never does, so it holds for everything in the
         * worker: gpulab's runtime, CUPTI, cuBLAS, a user plugin's own runtime. */
        if (w->visible[0] && setenv("CUDA_VISIBLE_DEVICES", w->visible, 1) != 0)
            _exit(1);
        child_main(down[0], up[1], want_gpu);
        _exit(0);
    }
    close(down[0]);
    close(up[1]);
    w->pid = pid;
    w->to_child = down[1];
    w->from_child = up[0];
    w->want_gpu = want_gpu;
    w->starts++;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int gl_worker_await(struct gl_worker *w, char *err, size_t errlen)
{
    struct msg_hdr h;
    double deadline = gl_now() + 300.0;
    if (read_all_w(w, w->from_child, &h, sizeof h, deadline) != 0 || h.type != MSG_READY ||
        h.len != (int)sizeof w->ready ||
        read_all_w(w, w->from_child, &w->ready, sizeof w->ready, deadline) != 0) {
        char why[128] = "no ready report";
        reap(w, 1, why, sizeof why);
        snprintf(err, errlen, "worker did not start: %s", why);
        return -1;
    }
    return 0;
}

int gl_worker_start(struct gl_worker *w, int want_gpu, char *err, size_t errlen)
{
    if (gl_worker_spawn(w, want_gpu, err, errlen) != 0)
        return -1;
    return gl_worker_await(w, err, errlen);
}

int gl_worker_count_gpus(char *err, size_t errlen)
{
    int fd;
    struct { int n; char err[GL_REASON_MAX]; } rep;
    pid_t pid = gl_fork_pipe(&fd, err, errlen);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const struct gl_device_ops *api = gl_registry_gpu();
        memset(&rep, 0, sizeof rep);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        gl_interrupt_child();
        if (!api) {
            rep.n = -1;
            snprintf(rep.err, sizeof rep.err, "%s", gl_registry_gpu_why());
        } else {
            rep.n = api->count ? api->count(rep.err, sizeof rep.err) : 1;
        }
        _exit(gl_write_all(fd, &rep, sizeof rep) == 0 ? 0 : 2);
    }
    int rc = read_all(fd, &rep, sizeof rep, gl_now() + 120.0);
    close(fd);
    if (rc != 0)
        kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (rc != 0) {
        snprintf(err, errlen, "the process counting the GPUs did not answer");
        return -1;
    }
    rep.err[sizeof rep.err - 1] = '\0';
    if (rep.n < 0)
        snprintf(err, errlen, "%s", rep.err);
    return rep.n < 0 ? -1 : rep.n;
}

int gl_worker_metrics_ask(struct gl_worker *w, const char *spec, char *err, size_t errlen)
{
    int len = (int)strlen(spec) + 1;
    if (len > 512) {
        snprintf(err, errlen, "metrics spec too long");
        return -2;
    }
    if (w->pid <= 0 || send_msg(w->to_child, MSG_METRICS, spec, len) != 0) {
        reap(w, 1, NULL, 0);
        snprintf(err, errlen, "worker did not answer the metrics check");
        return -3;
    }
    return 0;
}

int gl_worker_metrics_answer(struct gl_worker *w, char *err, size_t errlen)
{
    struct metrics_reply rep;
    struct msg_hdr h;
    if (w->pid <= 0 || read_all_w(w, w->from_child, &h, sizeof h, gl_now() + 300.0) != 0 ||
        h.type != MSG_METRICS_REPLY || h.len != (int)sizeof rep ||
        read_all_w(w, w->from_child, &rep, sizeof rep, gl_now() + 60.0) != 0) {
        reap(w, 1, NULL, 0);
        snprintf(err, errlen, "worker did not answer the metrics check");
        return -3;
    }
    snprintf(err, errlen, "%s", rep.err);
    return rep.rc;
}

int gl_worker_metrics(struct gl_worker *w, const char *spec, char *err, size_t errlen)
{
    int rc = gl_worker_metrics_ask(w, spec, err, errlen);
    return rc != 0 ? rc : gl_worker_metrics_answer(w, err, errlen);
}

double gl_worker_copy_bandwidth(struct gl_worker *w)
{
    struct msg_hdr h;
    double bw = 0.0;
    if (w->pid <= 0 || !w->ready.gpu_ok || send_msg(w->to_child, MSG_BANDWIDTH, NULL, 0) != 0 ||
        read_all_w(w, w->from_child, &h, sizeof h, gl_now() + 60.0) != 0 ||
        h.type != MSG_BANDWIDTH_REPLY || h.len != (int)sizeof bw ||
        read_all_w(w, w->from_child, &bw, sizeof bw, gl_now() + 10.0) != 0) {
        if (w->pid > 0)
            reap(w, 1, NULL, 0);
        return 0.0;
    }
    return bw > 0.0 ? bw : 0.0;
}

int gl_worker_ceilings(struct gl_worker *w, struct gl_ceilings *c)
{
    struct msg_hdr h;
    struct ceilings_reply rep;
    memset(c, 0, sizeof *c);
    if (w->pid <= 0 || !w->ready.gpu_ok) {
        snprintf(c->why, sizeof c->why, "no GPU");
        return 1;
    }
    if (send_msg(w->to_child, MSG_CEILINGS, NULL, 0) != 0 ||
        read_all_w(w, w->from_child, &h, sizeof h, gl_now() + 120.0) != 0 ||
        h.type != MSG_CEILINGS_REPLY || h.len != (int)sizeof rep ||
        read_all_w(w, w->from_child, &rep, sizeof rep, gl_now() + 10.0) != 0) {
        if (w->pid > 0)
            reap(w, 1, NULL, 0);
        snprintf(c->why, sizeof c->why, "the worker did not answer the ceilings' measurement");
        return 1;
    }
    *c = rep.c;
    c->why[sizeof c->why - 1] = '\0';
    if (rep.rc < 0)
        reap(w, 0, NULL, 0);   /* it exits: its context is lost */
    return rep.rc < 0 ? 1 : rep.rc;
}

/* Send a message to the worker; a worker that went away between jobs is
 * replaced, once. 0 sent; 1 not sent (the worker is gone); -1 no worker could
 * be started (err says why). */
static int send_or_restart(struct gl_worker *w, int type, const void *payload, int len, char *err,
                           size_t errlen)
{
    if (send_msg(w->to_child, type, payload, len) == 0)
        return 0;
    reap(w, 1, NULL, 0);
    if (gl_worker_start(w, w->want_gpu, err, errlen) != 0)
        return -1;
    return send_msg(w->to_child, type, payload, len) == 0 ? 0 : 1;
}

/* A job (or batch) starts now: the clock of w->on_wait. */
static void start_clock(struct gl_worker *w)
{
    w->job_started = gl_now();
    w->next_wait = w->job_started + w->wait_every;
}

static double job_timeout(const struct gl_job *job)
{
    return job->t.timeout_s > 0 ? job->t.timeout_s : 600.0;
}

/* A failed result saying why (the worker's own never came). */
static void failed_result(struct gl_result *r, const char *fmt, const char *what, double secs)
{
    memset(r, 0, sizeof *r);
    r->max_rel_err = -1;
    r->h2d_ms = r->d2h_ms = -1;
    r->status = GL_FAILED;
    if (what)
        snprintf(r->reason, sizeof r->reason, fmt, what);
    else
        snprintf(r->reason, sizeof r->reason, fmt, secs);
}

/* The unit is over: 1 complete, or the caller's -1 / -2. */
static int unit_over(struct gl_worker *w, int rc)
{
    w->busy = 0;
    w->job_started = 0;
    return rc;
}

/* One at a time: send job w->got alone, starting a worker if there is none. 0
 * sent (in flight), 1 the unit is complete (the rest could not be sent and are
 * recorded so), -1 no worker could be started, -2 a signal came meanwhile. */
static int send_single(struct gl_worker *w, char *err, size_t errlen)
{
    while (w->got < w->n) {
        if (w->pid <= 0 && gl_worker_start(w, w->want_gpu, err, errlen) != 0)
            return unit_over(w, gl_interrupt_signal() ? -2 : -1);
        const struct gl_job *job = &w->jobs[w->got];
        int sent = send_or_restart(w, MSG_JOB, job, (int)sizeof *job, err, errlen);
        if (sent < 0)
            return unit_over(w, gl_interrupt_signal() ? -2 : -1);
        if (sent == 0) {
            w->deadline = gl_now() + job_timeout(job);
            start_clock(w);
            return 0;
        }
        char why[128] = "";
        reap(w, 1, why, sizeof why);
        failed_result(&w->res[w->got++], "could not send the job to the worker (%s)", why, 0);
    }
    return unit_over(w, 1);
}

int gl_worker_submit(struct gl_worker *w, const struct gl_job *jobs, int n, char *err,
                     size_t errlen)
{
    if (n < 1 || n > GL_BATCH_MAX) {
        snprintf(err, errlen, "internal: batch of %d jobs", n);
        return -1;
    }
    if (!w->jobs)
        w->jobs = calloc(GL_BATCH_MAX, sizeof *w->jobs);
    if (!w->res)
        w->res = calloc(GL_BATCH_MAX, sizeof *w->res);
    if (!w->jobs || !w->res) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(w->jobs, jobs, (size_t)n * sizeof *jobs);
    w->n = n;
    w->got = 0;
    w->lost = 0;
    w->busy = 1;
    w->single = n == 1;
    if (w->single)
        return send_single(w, err, errlen);
    if (w->pid <= 0 && gl_worker_start(w, w->want_gpu, err, errlen) != 0)
        return unit_over(w, gl_interrupt_signal() ? -2 : -1);
    int sent = send_or_restart(w, MSG_BATCH, w->jobs, n * (int)sizeof *jobs, err, errlen);
    if (sent < 0)
        return unit_over(w, gl_interrupt_signal() ? -2 : -1);
    if (sent != 0) {   /* the batch could not go: its jobs go one at a time */
        reap(w, 1, NULL, 0);
        w->single = 1;
        return send_single(w, err, errlen);
    }
    double timeout = 0;
    for (int i = 0; i < n; i++)
        timeout += job_timeout(&jobs[i]);
    w->deadline = gl_now() + timeout;
    start_clock(w);
    return 0;
}

/* 1 when fd has something to read (or its writer is gone) right now. */
static int readable_now(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, 0) > 0;
}

int gl_worker_step(struct gl_worker *w, char *err, size_t errlen)
{
    if (!w->busy)
        return 1;
    /* A message that is already here is read whatever the clock says: the
     * driver may have been storing another worker's results at the deadline. */
    double deadline = w->deadline;
    if (readable_now(w->from_child) && deadline < gl_now() + 30.0)
        deadline = gl_now() + 30.0;
    struct msg_hdr h;
    struct gl_result *r = &w->res[w->got];
    int rc = read_all_w(w, w->from_child, &h, sizeof h, deadline);
    if (rc == 0 && (h.type == MSG_RESULT || h.type == MSG_RESULT_LAST) && h.len == (int)sizeof *r)
        rc = read_all_w(w, w->from_child, r, sizeof *r, deadline);
    else if (rc == 0)
        rc = -1;
    if (rc == -3) {
        forward_interrupt(w);
        return -2;
    }
    int last = rc == 0 && h.type == MSG_RESULT_LAST;
    if (!w->single) {
        if (rc == 0)
            w->got++;
        if (rc == 0 && !last)
            return w->got < w->n ? 0 : unit_over(w, 1);
        /* The worker exited after a sticky CUDA error (last), crashed, hung or
         * was interrupted: what came back is kept; the rest run one at a time on
         * a fresh worker, so that a crash or hang is pinned on the job that
         * causes it. SIGKILL changes nothing for a worker that already exited
         * (its status is kept), so this learns whether Ctrl-C ended it. */
        w->job_started = 0;
        w->lost = 1;
        int sig = reap(w, !last, NULL, 0);
        if (sig == SIGINT || sig == SIGTERM || gl_interrupt_signal())
            return unit_over(w, -2);   /* Ctrl-C: the caller stops */
        w->single = 1;
        return send_single(w, err, errlen);
    }
    w->job_started = 0;
    if (rc == -2) {
        reap(w, 1, NULL, 0);
        failed_result(r, "timed out: no result after %.0f s (timeout); the worker was killed",
                      NULL, job_timeout(&w->jobs[w->got]));
        w->lost = 1;
    } else if (rc != 0 && gl_interrupt_signal()) {
        reap(w, 1, NULL, 0);   /* it died of the same Ctrl-C: not the job's fault */
        return unit_over(w, -2);
    } else if (rc != 0) {
        char why[128] = "worker vanished";
        reap(w, 0, why, sizeof why);
        failed_result(r, "crashed: %s during the run", why, 0);
        w->lost = 1;
    } else if (last) {
        reap(w, 0, NULL, 0);   /* a worker that hit a sticky CUDA error exits after its result */
        w->lost = 1;
    }
    w->got++;
    return send_single(w, err, errlen);
}

int gl_worker_wait(struct gl_worker *const *ws, int n, int *ready)
{
    for (;;) {
        struct pollfd pfd[65];
        int map[65], np = 0, nready = 0;
        double now = gl_now(), wait = 3600.0;
        if (gl_interrupt_signal())
            return -3;
        for (int i = 0; i < n; i++) {
            struct gl_worker *w = ws[i];
            ready[i] = 0;
            if (!w->busy)
                continue;
            if (w->on_wait && w->wait_every > 0 && w->job_started > 0 && now >= w->next_wait) {
                w->on_wait(w->wait_arg, now - w->job_started);
                w->next_wait = now + w->wait_every;
            }
            if (now >= w->deadline) {
                ready[i] = 1;
                nready++;
                continue;
            }
            if (w->deadline - now < wait)
                wait = w->deadline - now;
            if (w->on_wait && w->wait_every > 0 && w->job_started > 0 && w->next_wait - now < wait)
                wait = w->next_wait - now;
            if (np < 64) {
                pfd[np].fd = w->from_child;
                pfd[np].events = POLLIN;
                pfd[np].revents = 0;
                map[np++] = i;
            }
        }
        if (nready > 0 || np == 0)
            return nready;
        int ifd = gl_interrupt_fd();
        if (ifd >= 0) {
            pfd[np].fd = ifd;
            pfd[np].events = POLLIN;
            pfd[np].revents = 0;
        }
        int pr = poll(pfd, (nfds_t)(np + (ifd >= 0)), (int)(wait * 1000.0) + 1);
        if (pr < 0 && errno != EINTR)
            return -1;
        if (pr <= 0)
            continue;   /* a heartbeat or a deadline: the loop decides */
        if (ifd >= 0 && pfd[np].revents)
            return -3;
        for (int k = 0; k < np; k++)
            if (pfd[k].revents) {
                ready[map[k]] = 1;
                nready++;
            }
        if (nready > 0)
            return nready;
    }
}

/* The blocking form: submit, then step until the unit is complete. */
static int run_unit(struct gl_worker *w, const struct gl_job *jobs, int n, struct gl_result *res,
                    char *err, size_t errlen)
{
    int rc = gl_worker_submit(w, jobs, n, err, errlen);
    while (rc == 0)
        rc = gl_worker_step(w, err, errlen);
    if (rc != 1)
        return rc;
    memcpy(res, w->res, (size_t)n * sizeof *res);
    return 0;
}

int gl_worker_run(struct gl_worker *w, const struct gl_job *job, struct gl_result *r,
                  char *err, size_t errlen)
{
    return run_unit(w, job, 1, r, err, errlen);
}

int gl_worker_run_batch(struct gl_worker *w, const struct gl_job *jobs, int n,
                        struct gl_result *res, char *err, size_t errlen)
{
    return run_unit(w, jobs, n, res, err, errlen);
}

void gl_worker_stop(struct gl_worker *w)
{
    if (w->pid > 0) {
        send_msg(w->to_child, MSG_QUIT, NULL, 0);
        reap(w, 0, NULL, 0);
    }
    free(w->jobs);
    free(w->res);
    w->jobs = NULL;
    w->res = NULL;
    w->busy = 0;
}
