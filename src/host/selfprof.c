/* selfprof.c - see selfprof.h. */
#include "selfprof.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"

static const char *const phase_name[GL_PHASES] = {
    "setup (buffers, inputs, copies)", "verification (runs, checks)", "warm-up",
    "timed samples (flushes included)", "counter replays", "whole run in the worker",
    "store",
};

/* A GPU run's named steps as its self line names them (one word each: the
 * line's phase words are left to the phases). */
static const char *const step_word[GL_STEPS] = {
    "prepare", "resources", "reference", "alloc", "inputs", "upload", "restore",
    "flush-setup", "verify-run", "readback", "check", "sampling", "counters",
    "sessions", "smem-replay", "free",
};

static const char *const part_name[GL_SP_PARTS] = {
    "launch setup (kernel, arguments)", "launch shape, occupancy", "reference (expected outputs)", "buffers (allocate, pool)",
    "inputs from the seed", "upload (host part)", "restore copies (users' kernels)",
    "L2-flush buffer ready", "verification launch (host part)", "readback (host part)",
    "output check", "warm-up + samples (host part)", "counters: its ranges (CUPTI)",
    "counters: its sessions' share", "counters: exact-conflict replay", "free, release",
    "harness, not named above", "run watch (host load, GPU clocks)", "worker around the run",
    "to and from the worker", "store",
};

void gl_selfprof_init(struct gl_selfprof *sp, FILE *out)
{
    memset(sp, 0, sizeof *sp);
    sp->out = out;
}

/* Append v to a growable array; a failed growth drops the value (only the
 * report's median loses it). */
static void push(double **a, int *n, int *cap, double v)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        double *na = realloc(*a, (size_t)nc * sizeof *na);
        if (!na)
            return;
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
}

void gl_selfprof_add(struct gl_selfprof *sp, const char *label, const char *device,
                     const struct gl_result *r, double wall_ms, double store_ms,
                     double time_cap_s)
{
    int gpu = strcmp(device, "gpu") == 0;
    double wall = wall_ms + store_ms, over = wall - r->busy_ms;
    struct gl_summary s;
    sp->runs++;
    sp->gpu_runs += gpu;
    sp->cpu_runs += !gpu;
    for (int i = 0; i < GL_PHASES; i++)
        sp->phase[i] += i == GL_PH_STORE ? store_ms : r->phase_ms[i];
    sp->wall += wall;
    sp->busy += r->busy_ms;
    sp->ipc += wall_ms - r->phase_ms[GL_PH_RUN];
    gl_summarize(r->samples_ms, r->nsamples, &s);
    if (gpu && r->status == GL_OK) {
        double row[GL_SP_PARTS], phases = 0.0, steps = 0.0;
        for (int i = 0; i < GL_STEPS; i++) {
            row[i] = r->step_ms[i];
            steps += r->step_ms[i];
        }
        for (int i = GL_PH_SETUP; i <= GL_PH_PROFILE; i++)
            phases += r->phase_ms[i];
        /* the free step comes after the harness's phases: it is not part of
         * what they leave unnamed, and not of the worker's time around them */
        double after = r->step_ms[GL_ST_FREE];
        row[GL_STEPS] = phases - r->busy_ms - (steps - after);
        row[GL_STEPS + 1] = r->watch_ms;
        row[GL_STEPS + 2] = r->phase_ms[GL_PH_RUN] - phases - r->watch_ms - after;
        row[GL_STEPS + 3] = wall_ms - r->phase_ms[GL_PH_RUN];
        row[GL_STEPS + 4] = store_ms;
        int n = sp->ngpu_over;
        if (n == sp->cap_parts) {   /* a failed growth drops the run from both */
            int nc = sp->cap_parts ? sp->cap_parts * 2 : 64;
            double *np = realloc(sp->gpu_parts, (size_t)nc * GL_SP_PARTS * sizeof *np);
            if (!np)
                goto line;
            sp->gpu_parts = np;
            sp->cap_parts = nc;
        }
        push(&sp->gpu_over, &sp->ngpu_over, &sp->cap_gpu_over, over);
        if (sp->ngpu_over > n)
            memcpy(sp->gpu_parts + (size_t)n * GL_SP_PARTS, row, sizeof row);
    }
line:
    if (!gpu && r->status == GL_OK && s.count > 0 && s.median >= time_cap_s * 1e3)
        push(&sp->cpu_ratio, &sp->ncpu_ratio, &sp->cap_cpu_ratio, wall / s.median);
    /* the steps of a GPU run that took 1 ms or more (a first run's costs) */
    char steps[512] = "";
    size_t at = 0;
    for (int i = 0; gpu && i < GL_STEPS; i++) {
        if (r->step_ms[i] < 1.0 || at >= sizeof steps)
            continue;
        int k = snprintf(steps + at, sizeof steps - at, "%s%s %.1f", at ? ", " : " (steps of 1 ms or more: ",
                         step_word[i], r->step_ms[i]);
        at = k < 0 ? sizeof steps : at + (size_t)k;
    }
    if (at > 0 && at < sizeof steps - 1)
        strcat(steps, ")");
    fprintf(sp->out,
            "self: %s: wall %.1f ms = setup %.1f + verify %.1f + warm-up %.1f + samples %.1f + "
            "replays %.1f + other %.1f in the worker, %.1f to and from it, store %.1f; "
            "kernels %.1f, overhead %.1f%s\n",
            label, wall, r->phase_ms[GL_PH_SETUP], r->phase_ms[GL_PH_VERIFY],
            r->phase_ms[GL_PH_WARMUP], r->phase_ms[GL_PH_SAMPLES], r->phase_ms[GL_PH_PROFILE],
            r->phase_ms[GL_PH_RUN] - r->phase_ms[GL_PH_SETUP] - r->phase_ms[GL_PH_VERIFY] -
                r->phase_ms[GL_PH_WARMUP] - r->phase_ms[GL_PH_SAMPLES] -
                r->phase_ms[GL_PH_PROFILE],
            wall_ms - r->phase_ms[GL_PH_RUN], store_ms, r->busy_ms, over, steps);
}

void gl_selfprof_store_more(struct gl_selfprof *sp, int nruns, int gpu_ok, double ms)
{
    if (nruns <= 0)
        return;
    double each = ms / nruns;
    sp->phase[GL_PH_STORE] += ms;
    sp->wall += ms;
    for (int k = sp->ngpu_over - (gpu_ok < sp->ngpu_over ? gpu_ok : sp->ngpu_over);
         k < sp->ngpu_over; k++) {
        sp->gpu_over[k] += each;
        sp->gpu_parts[(size_t)k * GL_SP_PARTS + GL_STEPS + 4] += each;
    }
}

static double median_of(const double *a, int n)
{
    struct gl_summary s;
    gl_summarize(a, n, &s);
    return s.median;
}

const char *const gl_prep_name[GL_PREP_PARTS] = { "configs", "workers", "plan", "compile",
                                                   "counters' set-up" };

/* "configs 0.01, workers 0.12, ..., other 0.02" (s): the parts before the first run. */
static void prep_parts(const struct gl_selfprof *sp, char *buf, size_t len)
{
    double rest = sp->prepare_s;
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < GL_PREP_PARTS && off < len; i++) {
        off += (size_t)snprintf(buf + off, len - off, "%s%s %.2f", i ? ", " : "", gl_prep_name[i],
                                sp->prep_s[i]);
        rest -= sp->prep_s[i];
    }
    if (off < len)
        snprintf(buf + off, len - off, ", other %.2f", rest > 0 ? rest : 0.0);
}

void gl_selfprof_report(const struct gl_selfprof *sp, double total_s)
{
    FILE *o = sp->out;
    double runs_s = sp->wall / 1e3;
    char parts[256];
    prep_parts(sp, parts, sizeof parts);
    if (sp->workers > 1)   /* the runs' walls overlap: the sum is spread over the workers */
        fprintf(o, "self-profile: %.1f s in all: %.1f s before the first run (%s), "
                   "%.1f s in %d runs (%d GPU, %d CPU) on %d workers at once "
                   "(%.1f s each if evenly spread), %.1f s other\n",
                total_s, sp->prepare_s, parts, runs_s, sp->runs, sp->gpu_runs, sp->cpu_runs,
                sp->workers, runs_s / sp->workers,
                total_s - sp->prepare_s - runs_s / sp->workers);
    else
        fprintf(o, "self-profile: %.1f s in all: %.1f s before the first run (%s), "
                   "%.1f s in %d runs (%d GPU, %d CPU), %.1f s other\n",
                total_s, sp->prepare_s, parts, runs_s, sp->runs, sp->gpu_runs, sp->cpu_runs,
                total_s - sp->prepare_s - runs_s);
    for (int i = 0; i < GL_PHASES; i++) {
        if (i == GL_PH_RUN)
            continue;
        fprintf(o, "  %-34s %9.1f s  %5.1f %%\n", phase_name[i], sp->phase[i] / 1e3,
                sp->wall > 0 ? 100.0 * sp->phase[i] / sp->wall : 0.0);
    }
    fprintf(o, "  %-34s %9.1f s  %5.1f %%\n", "to and from the worker", sp->ipc / 1e3,
            sp->wall > 0 ? 100.0 * sp->ipc / sp->wall : 0.0);
    fprintf(o, "  %-34s %9.1f s  %5.1f %%  (device or CPU time of the kernels run)\n",
            "kernels, flushes, copies", sp->busy / 1e3, sp->wall > 0 ? 100.0 * sp->busy / sp->wall : 0.0);
    if (sp->ngpu_over > 0)
        fprintf(o, "  host overhead per ok GPU run (wall - kernels, flushes, timed copies): median %.1f ms "
                   "over %d runs\n", median_of(sp->gpu_over, sp->ngpu_over), sp->ngpu_over);
    if (sp->ngpu_over > 0 && sp->gpu_parts) {
        /* where it goes: the mean of each part adds up to the mean overhead */
        int n = sp->ngpu_over;
        double *col = malloc((size_t)n * sizeof *col), mean_all = 0.0, mean_nosmem = 0.0;
        for (int k = 0; k < n; k++) {
            mean_all += sp->gpu_over[k] / n;
            mean_nosmem += (sp->gpu_over[k] - sp->gpu_parts[(size_t)k * GL_SP_PARTS + GL_ST_SMEM]) / n;
        }
        if (col) {
            for (int k = 0; k < n; k++)
                col[k] = sp->gpu_over[k] - sp->gpu_parts[(size_t)k * GL_SP_PARTS + GL_ST_SMEM];
            fprintf(o, "  host overhead per ok GPU run without the exact-conflict replay: median "
                       "%.1f ms\n", median_of(col, n));
        }
        fprintf(o, "  where it goes, per ok GPU run (ms; the means add up to the mean "
                   "overhead, %.2f ms;\n  %.2f ms without the exact-conflict replay):\n",
                mean_all, mean_nosmem);
        fprintf(o, "    %-34s %9s %9s %7s\n", "part", "mean", "median", "share");
        for (int i = 0; i < GL_SP_PARTS; i++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++) {
                double v = sp->gpu_parts[(size_t)k * GL_SP_PARTS + i];
                sum += v;
                if (col)
                    col[k] = v;
            }
            fprintf(o, "    %-34s %9.2f %9.2f %6.1f %%\n", part_name[i], sum / n,
                    col ? median_of(col, n) : 0.0,
                    mean_all != 0.0 ? 100.0 * sum / n / mean_all : 0.0);
        }
        free(col);
    }
    if (sp->ncpu_ratio > 0) {
        double mx = 0.0;
        for (int i = 0; i < sp->ncpu_ratio; i++)
            mx = sp->cpu_ratio[i] > mx ? sp->cpu_ratio[i] : mx;
        fprintf(o, "  CPU runs longer than their time cap: wall / one run: median %.2f, max %.2f "
                   "over %d runs\n", median_of(sp->cpu_ratio, sp->ncpu_ratio), mx, sp->ncpu_ratio);
    }
}

void gl_selfprof_free(struct gl_selfprof *sp)
{
    free(sp->gpu_over);
    free(sp->cpu_ratio);
    free(sp->gpu_parts);
    sp->gpu_over = sp->cpu_ratio = sp->gpu_parts = NULL;
}
