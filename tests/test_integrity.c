/* test_integrity.c - the logic behind run.energy_j and run.contaminated, without
 * a GPU: the energy window's procedure on a simulated counter (its period found;
 * power and joules per launch exact to the counter's step; a window the policy
 * cannot afford, a counter that never steps and a failed launch give no number,
 * with the reason); the policy's environment; NVML's energy counter through the
 * fake NVML (steps of period x power; unsupported, and no NVML at all, give the
 * reason); the loadavg file ($GPULAB_LOADAVG_FILE) and the runnable tasks beside
 * this process; other gpulab processes on a made-up /proc tree; the run watch's
 * verdict (host busy by the CPUs a run leaves free, another gpulab, a slowed
 * clock but not the power cap) and its thread over a fake loadavg file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "energy.h"
#include "hostload.h"
#include "run_watch.h"
#include "t.h"

/* ---- a simulated counter: steps of period x watts; time moves with launches ---- */
struct sim {
    double t, period, watts, launch_s;
    int stuck, fail_after;
    long launched;
};

static int sim_read(void *ctx, unsigned long long *mj, char *why, size_t len)
{
    struct sim *s = ctx;
    (void)why;
    (void)len;
    double steps = s->stuck ? 0 : (double)(long long)(s->t / s->period);
    *mj = 5000000ull + (unsigned long long)(steps * s->period * s->watts * 1e3 + 0.5);
    return 0;
}

static int sim_launch(void *ctx, long n)
{
    struct sim *s = ctx;
    if (s->fail_after && s->launched + n > s->fail_after)
        return -1;
    s->launched += n;
    s->t += (double)n * s->launch_s;
    return 0;
}

static double sim_now(void *ctx)
{
    return ((struct sim *)ctx)->t;
}

static void sim_pause(void *ctx)
{
    ((struct sim *)ctx)->t += 2e-4;
}

static void test_energy_sim(void)
{
    struct sim s = { 0.013, 0.02, 350.0, 1.7e-4, 0, 0, 0 };
    struct gl_energy_io io = { &s, sim_read, sim_launch, sim_now, sim_pause };
    struct gl_energy_policy pol = { 0, 5, 0.1, 3.0 };
    struct gl_energy e;
    char why[256] = "";
    double period = 0;
    CHECK(gl_energy_period(&io, 2.0, &period, why, sizeof why) == 0);
    CHECK(period > 0.0198 && period < 0.0202);
    CHECK(gl_energy_measure(&io, period, s.launch_s, &pol, &e, why, sizeof why) == 0);
    /* both ends on a step: the power is the simulated one to a batch's worth */
    if (!CHECK(e.avg_power_w > 350.0 * 0.99 && e.avg_power_w < 350.0 * 1.01))
        printf("  power %.3f W\n", e.avg_power_w);
    CHECK(e.energy_j > 350.0 * 1.7e-4 * 0.99 && e.energy_j < 350.0 * 1.7e-4 * 1.01);
    CHECK(e.window_s >= 5 * period && e.launches > 0);

    /* a counter that steps every 0.5 ms: the window still lasts the policy's 0.1 s */
    struct sim q = { 0.0, 0.0005, 300.0, 1e-5, 0, 0, 0 };
    io.ctx = &q;
    CHECK(gl_energy_measure(&io, 0.0005, q.launch_s, &pol, &e, why, sizeof why) == 0);
    CHECK(e.window_s >= 0.1 && e.avg_power_w > 297 && e.avg_power_w < 303);

    /* a long launch: one launch a batch, still within the policy */
    struct sim l = { 0.0, 0.02, 200.0, 0.05, 0, 0, 0 };
    io.ctx = &l;
    CHECK(gl_energy_measure(&io, 0.02, l.launch_s, &pol, &e, why, sizeof why) == 0);
    CHECK(e.energy_j > 200.0 * 0.05 * 0.9 && e.energy_j < 200.0 * 0.05 * 1.1);

    /* a window the policy cannot afford: no number, and why */
    struct sim c = { 0.0, 1.0, 300.0, 1e-3, 0, 0, 0 };
    io.ctx = &c;
    CHECK(gl_energy_measure(&io, 1.0, c.launch_s, &pol, &e, why, sizeof why) == 1);
    CHECK(e.energy_j == 0 && strstr(why, "GPULAB_ENERGY_MAX_S") != NULL);
    CHECK(c.launched == 0);   /* decided before launching anything */

    /* a counter that never steps */
    struct sim st = { 0.0, 0.02, 300.0, 1e-3, 1, 0, 0 };
    io.ctx = &st;
    CHECK(gl_energy_period(&io, 0.5, &period, why, sizeof why) == -1 &&
          strstr(why, "stepped 0 times") != NULL);
    CHECK(gl_energy_measure(&io, 0.02, st.launch_s, &pol, &e, why, sizeof why) == 1);
    CHECK(strstr(why, "did not step") != NULL && e.energy_j == 0);

    /* a launch that fails: the caller's error stands */
    struct sim f = { 0.0, 0.02, 300.0, 1e-3, 0, 40, 0 };
    io.ctx = &f;
    CHECK(gl_energy_measure(&io, 0.02, f.launch_s, &pol, &e, why, sizeof why) == -1);

    /* GPULAB_ENERGY=off */
    struct gl_energy_policy off = { 1, 5, 0.1, 3.0 };
    io.ctx = &s;
    CHECK(gl_energy_measure(&io, 0.02, s.launch_s, &off, &e, why, sizeof why) == 1);
    CHECK(strstr(why, "GPULAB_ENERGY=on") != NULL);
}

static void test_policy_env(void)
{
    struct gl_energy_policy pol;
    char why[256];
    unsetenv("GPULAB_ENERGY");
    unsetenv("GPULAB_ENERGY_K");
    unsetenv("GPULAB_ENERGY_MAX_S");
    /* off by default: the window costs a fraction of a second a run */
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == 0 && pol.off &&
          strstr(why, "GPULAB_ENERGY=on") != NULL);
    setenv("GPULAB_ENERGY", "on", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == 0 && !pol.off && pol.k == 5 &&
          pol.max_window_s == 3.0);
    setenv("GPULAB_ENERGY_K", "12", 1);
    setenv("GPULAB_ENERGY_MAX_S", "0.5", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == 0 && pol.k == 12 &&
          pol.max_window_s == 0.5);
    setenv("GPULAB_ENERGY_K", "twelve", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == -1 &&
          strstr(why, "GPULAB_ENERGY_K") != NULL && strstr(why, "twelve") != NULL);
    unsetenv("GPULAB_ENERGY_K");
    setenv("GPULAB_ENERGY_MAX_S", "-1", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == -1);
    unsetenv("GPULAB_ENERGY_MAX_S");
    setenv("GPULAB_ENERGY", "off", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == 0 && pol.off == 1);
    setenv("GPULAB_ENERGY", "maybe", 1);
    CHECK(gl_energy_policy_env(&pol, why, sizeof why) == -1 && strstr(why, "maybe") != NULL);
    unsetenv("GPULAB_ENERGY");
}

/* NVML's counter through the fake (build/tests/fakes/libfake_nvml.so), each
 * case in a child of its own: NVML is loaded once per process. */
static int in_child(void (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        t_passed = t_failed = 0;
        fn();
        fflush(stdout);
        _exit(t_failed ? 1 : 0);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void nvml_steps(void)
{
    void *dev = NULL;
    char why[256] = "";
    unsigned long long a = 0, b = 0;
    setenv("FAKE_NVML_ENERGY_PERIOD_MS", "5", 1);
    setenv("FAKE_NVML_POWER_W", "200", 1);
    if (!CHECK(gl_nvml_energy_open("GPU-1234", &dev, why, sizeof why) == 0))
        printf("  %s\n", why);
    CHECK(gl_nvml_energy_read(dev, &a, why, sizeof why) == 0);
    usleep(20000);
    CHECK(gl_nvml_energy_read(dev, &b, why, sizeof why) == 0);
    /* steps of 5 ms x 200 W = 1000 mJ: never a fraction of one */
    CHECK(b > a && (b - a) % 1000 == 0 && a % 1000 == 0);
}

static void nvml_unsupported(void)
{
    void *dev = NULL;
    char why[256] = "";
    setenv("FAKE_NVML_ENERGY", "unsupported", 1);
    CHECK(gl_nvml_energy_open("GPU-1234", &dev, why, sizeof why) == -1);
    CHECK(strstr(why, "nvmlDeviceGetTotalEnergyConsumption") && strstr(why, "Not Supported"));
}

static void nvml_absent(void)
{
    void *dev = NULL;
    char why[256] = "";
    setenv("GPULAB_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK(gl_nvml_energy_open("GPU-1234", &dev, why, sizeof why) == -1);
    CHECK(strncmp(why, "no NVML", 7) == 0);
}

static void test_nvml(void)
{
    if (access("build/tests/fakes/libfake_nvml.so", R_OK) != 0) {
        printf("note: build/tests/fakes/libfake_nvml.so absent, NVML cases not run\n");
        return;
    }
    setenv("GPULAB_NVML_LIB", "build/tests/fakes/libfake_nvml.so", 1);
    CHECK(in_child(nvml_steps));
    CHECK(in_child(nvml_unsupported));
    CHECK(in_child(nvml_absent));
}

/* ---- load ---------------------------------------------------------------------- */
static char dir[256];

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void mkd(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    mkdir(p, 0755);
}

static void use_loadavg(const char *text)
{
    char p[512];
    put("loadavg", text);
    snprintf(p, sizeof p, "%s/loadavg", dir);
    setenv("GPULAB_LOADAVG_FILE", p, 1);
}

static void test_load(void)
{
    double l1 = -1;
    int run = -1;
    use_loadavg("3.50 2.00 1.00 7/300 12345\n");
    CHECK(gl_loadavg_read(&l1, &run) == 0 && l1 == 3.5 && run == 7);
    use_loadavg("0.00 0.00 0.00 1/100 1\n");
    CHECK(gl_others_running() == 0);   /* this thread is the one running */
    use_loadavg("9.00 9.00 9.00 60/100 1\n");
    CHECK(gl_others_running() >= 60 - 1 - gl_self_running() && gl_others_running() <= 60);
    setenv("GPULAB_LOADAVG_FILE", "/nonexistent/loadavg", 1);
    CHECK(gl_loadavg_read(&l1, &run) == -1 && gl_others_running() == -1);
    unsetenv("GPULAB_LOADAVG_FILE");
    CHECK(gl_loadavg_read(&l1, &run) == 0 && run >= 1);   /* the real one */
}

static void proc(const char *pid, const char *comm, int ppid, const char *fd_target)
{
    char rel[128], text[256];
    snprintf(rel, sizeof rel, "proc/%s", pid);
    mkd(rel);
    snprintf(rel, sizeof rel, "proc/%s/comm", pid);
    snprintf(text, sizeof text, "%s\n", comm);
    put(rel, text);
    snprintf(rel, sizeof rel, "proc/%s/stat", pid);
    snprintf(text, sizeof text, "%s (%s) S %d 1 1 0 -1\n", pid, comm, ppid);
    put(rel, text);
    snprintf(rel, sizeof rel, "proc/%s/fd", pid);
    mkd(rel);
    if (fd_target) {
        char p[512];
        snprintf(p, sizeof p, "%s/proc/%s/fd/3", dir, pid);
        if (symlink(fd_target, p) != 0)
            printf("note: symlink %s failed\n", p);
    }
}

static void test_other_gpulabs(void)
{
    char root[300];
    pid_t first = 0;
    mkd("proc");
    snprintf(root, sizeof root, "%s/proc", dir);
    proc("100", "gpulab", 1, NULL);               /* self (the driver here) */
    proc("101", "gpulab", 100, "/dev/nvidia0");   /* our worker */
    proc("200", "bash", 1, NULL);                 /* our parent, not gpulab */
    proc("300", "gpulab", 1, NULL);               /* another gpulab's driver */
    proc("301", "gpulab", 300, "/dev/nvidia0");   /* ... and its worker on GPU 0 */
    proc("400", "gpulab", 1, "/dev/nvidia1");     /* a third one, on GPU 1 */
    proc("500", "sleep", 1, "/dev/nvidia0");      /* not gpulab */
    CHECK(gl_other_gpulabs(root, 100, 200, NULL, &first) == 3);
    CHECK(gl_other_gpulabs(root, 100, 200, "/dev/nvidia0", &first) == 1 && first == 301);
    CHECK(gl_other_gpulabs(root, 100, 200, "/dev/nvidia1", &first) == 1 && first == 400);
    /* seen from our worker: self 101, parent 100 (its siblings would be ours too) */
    CHECK(gl_other_gpulabs(root, 101, 100, "/dev/nvidia0", &first) == 1 && first == 301);
    CHECK(gl_other_gpulabs(root, 100, 200, "/dev/nvidia7", &first) == 0 && first == 0);
}

static void test_verdict(void)
{
    struct gl_run_watch w;
    char why[512];
    memset(&w, 0, sizeof w);
    /* a CPU run on every CPU: half a task beside it on average is one too many */
    w.cores_used = 2;
    w.samples = 10;
    w.others_sum = 20;
    w.others_max = 3;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK(strncmp(why, "host busy: 2.0 other runnable tasks", 35) == 0);
    w.others_sum = 2;   /* mean 0.2: a daemon waking now and then */
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK_STR(why, "");
    /* a GPU run uses one CPU of 2: one other task leaves it its own */
    w.cores_used = 1;
    w.others_sum = 10;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK_STR(why, "");
    w.others_sum = 20;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK(strncmp(why, "host busy", 9) == 0);
    /* another gpulab on the GPU; a slowed clock; the power cap is not one */
    w.others_sum = 0;
    w.gpulabs = 1;
    w.gpulab_pid = 4242;
    w.events = 0x4;
    w.min_mhz = 1500;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK_STR(why, "another gpulab on the GPU (pid 4242)");
    w.gpulabs = 0;
    w.events = 0x4 | 0x20;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK_STR(why, "GPU clock slowed (software thermal slowdown; SM clock down to 1500 MHz)");
    /* no sample read: nothing said */
    memset(&w, 0, sizeof w);
    w.cores_used = 2;
    gl_run_watch_verdict(&w, 2, why, sizeof why);
    CHECK_STR(why, "");
}

static void test_watch_thread(void)
{
    struct gl_run_watch w;
    struct gl_result *r = calloc(1, sizeof *r);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (!CHECK(r != NULL))
        return;
    char busy[64];
    snprintf(busy, sizeof busy, "9.00 9.00 9.00 %ld/500 1\n", 3 * ncpu + 10);
    use_loadavg(busy);
    gl_run_watch_start(&w, 1, NULL);
    usleep(120000);
    gl_run_watch_stop(&w, r);
    CHECK(strncmp(r->contaminated, "host busy", 9) == 0 && w.samples >= 2);
    /* a run shorter than the period: the thread's latest sample is its own */
    memset(r, 0, sizeof *r);
    gl_run_watch_start(&w, 1, NULL);
    gl_run_watch_stop(&w, r);
    CHECK(strncmp(r->contaminated, "host busy", 9) == 0 && w.samples == 1);
    memset(r, 0, sizeof *r);
    use_loadavg("0.00 0.00 0.00 1/100 1\n");
    gl_run_watch_start(&w, (int)ncpu, NULL);
    usleep(120000);
    gl_run_watch_stop(&w, r);
    CHECK_STR(r->contaminated, "");
    unsetenv("GPULAB_LOADAVG_FILE");
    gl_run_watch_shutdown();
    /* after the shutdown a run starts the thread again */
    gl_run_watch_start(&w, 1, NULL);
    usleep(60000);
    gl_run_watch_stop(&w, r);
    CHECK(w.samples >= 1);
    gl_run_watch_shutdown();
    free(r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gl_test_integrity_XXXXXX");
    if (!mkdtemp(dir)) {
        printf("integrity: cannot make a temporary folder\n");
        return 1;
    }
    test_energy_sim();
    test_policy_env();
    test_nvml();
    test_load();
    test_other_gpulabs();
    test_verdict();
    test_watch_thread();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: %s left behind\n", dir);
    return t_done("integrity");
}
