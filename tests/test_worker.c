/* test_worker.c - the worker process without a GPU: one job, a batch of jobs
 * (results back in order, one per job, a skipped job in the middle kept in its
 * place), a worker that dies between jobs being replaced, the heartbeat
 * (on_wait) during a long job, and SIGTERM to the parent during it: the wait
 * ends at once, the worker is ended too, nothing comes back. Real fork, real
 * pipes, real signals, real CPU variants. Must not need a GPU or a database. */
#include "t.h"
#include "interrupt.h"
#include "params.h"
#include "registry.h"
#include "util.h"
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static struct gl_job jobs[GL_BATCH_MAX];
static struct gl_result res[GL_BATCH_MAX];

static void vecadd_job(struct gl_job *j, long n)
{
    memset(j, 0, sizeof *j);
    j->v = gl_variant_find("vecadd", "seq");
    gl_params_init(&j->p);
    gl_variant_complete(j->v, &j->p);
    j->p.n = n;
    j->p.seed = 7;
    struct gl_timing t = { 0, 2, 3, 0.5, 1.0, 60.0 };
    j->t = t;
}

static int ticks;
static double last_elapsed;

static void on_wait(void *arg, double elapsed)
{
    (void)arg;
    ticks++;
    last_elapsed = elapsed;
}

static void send_term(int sig)
{
    (void)sig;
    kill(getpid(), SIGTERM);
}

/* A job of about a minute; SIGTERM to this process after 0.7 s. */
static void test_interrupt(struct gl_worker *w)
{
    char err[1024] = "";
    vecadd_job(&jobs[0], 1L << 22);
    struct gl_timing t = { 0, 1000, 1000, 0.0, 60.0, 120.0 };
    jobs[0].t = t;
    w->on_wait = on_wait;
    w->wait_every = 0.2;
    CHECK(gl_interrupt_install() == 0 && gl_interrupt_fd() >= 0);
    if (w->pid <= 0)
        CHECK(gl_worker_start(w, 0, err, sizeof err) == 0);
    pid_t child = w->pid;
    signal(SIGALRM, send_term);
    struct itimerval it = { { 0, 0 }, { 0, 700 * 1000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    int rc = gl_worker_run(w, &jobs[0], &res[0], err, sizeof err);
    /* -2: the wait ended by the signal, not by the job (which would return 0
     * a minute later); how soon is not asserted (the machine may be loaded) */
    CHECK(rc == -2);
    CHECK(gl_interrupt_signal() == SIGTERM && gl_interrupt_exit_code() == 143);
    /* the wait called back while it waited, each time at least wait_every in */
    CHECK(ticks >= 1 && last_elapsed >= 0.2);
    CHECK(w->pid == 0);
    CHECK(child > 0 && kill(child, 0) != 0 && errno == ESRCH);   /* ended and reaped */
}

int main(void)
{
    struct gl_worker w;
    char err[1024] = "";
    memset(&w, 0, sizeof w);
    if (!t_load_plugins())
        return t_done("worker");
    if (!CHECK(gl_worker_start(&w, 0, err, sizeof err) == 0)) {
        printf("start: %s\n", err);
        return t_done("worker");
    }
    CHECK(w.pid > 0 && w.ready.gpu_ok == 0);

    /* one job */
    vecadd_job(&jobs[0], 1000);
    CHECK(jobs[0].v != NULL);
    CHECK(gl_worker_run(&w, &jobs[0], &res[0], err, sizeof err) == 0);
    CHECK(res[0].status == GL_OK && res[0].nsamples >= 2 && res[0].max_rel_err >= 0.0);
    CHECK(strstr(res[0].metrics_reason, "CPU run") != NULL);

    /* a batch: 5 jobs, the third one impossible (N = 0) */
    for (int i = 0; i < 5; i++)
        vecadd_job(&jobs[i], i == 2 ? 0 : 1000 * (i + 1));
    memset(res, 0, sizeof res);
    int starts = w.starts;
    CHECK(gl_worker_run_batch(&w, jobs, 5, res, err, sizeof err) == 0);
    for (int i = 0; i < 5; i++) {
        if (i == 2) {
            CHECK(res[i].status == GL_SKIPPED && strstr(res[i].reason, "N must be") != NULL);
            CHECK(res[i].nsamples == 0);
        } else {
            CHECK(res[i].status == GL_OK && res[i].nsamples >= 2);
        }
        CHECK(res[i].nmetrics == 0 && res[i].metrics_reason[0] != '\0');
    }
    CHECK(w.starts == starts);   /* the same worker ran the whole batch */

    /* a batch of one is a plain job */
    CHECK(gl_worker_run_batch(&w, jobs, 1, res, err, sizeof err) == 0 && res[0].status == GL_OK);

    /* a worker killed between batches is replaced, and the batch still runs */
    kill(w.pid, SIGKILL);
    memset(res, 0, sizeof res);
    CHECK(gl_worker_run_batch(&w, jobs, 3, res, err, sizeof err) == 0);
    CHECK(w.starts == starts + 1);
    CHECK(res[0].status == GL_OK && res[1].status == GL_OK && res[2].status == GL_SKIPPED);

    /* too many jobs for one batch is refused, not truncated */
    CHECK(gl_worker_run_batch(&w, jobs, GL_BATCH_MAX + 1, res, err, sizeof err) == -1);
    CHECK(strstr(err, "batch") != NULL);

    /* last: the interrupt stays recorded */
    test_interrupt(&w);
    gl_worker_stop(&w);
    CHECK(w.pid == 0);
    return t_done("worker");
}
