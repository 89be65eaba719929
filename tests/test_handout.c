/* test_handout.c - the hand-out of a config's jobs to workers (src/sweep/handout.c): plan
 * order with one worker gathers GPU jobs with counters into batches of one spec
 * and runs the others at once, ahead of the batch (today's order); by cost, the
 * jobs that do not run come first, CPU jobs go alone, GPU jobs largest first in
 * batches of a share of the cost left, so that simulated workers finish
 * together (runs without counters without a smallest unit); every job is handed out exactly once, claims that refuse drop a
 * job, and jobs to redo go first on their worker. Pure: no process, no store. */
#include "t.h"
#include "handout.h"

#include <stdlib.h>

/* The claim function: refuse[j] drops job j; every call is counted. */
static int refuse[512], claimed[512], claim_stop_at = -1;

static int claim(void *arg, int job, int slot)
{
    (void)arg;
    (void)slot;
    if (job == claim_stop_at)
        return -1;
    claimed[job]++;
    return !refuse[job];
}

static void reset(void)
{
    memset(refuse, 0, sizeof refuse);
    memset(claimed, 0, sizeof claimed);
    claim_stop_at = -1;
}

static int same(const int *a, const int *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Plan order: G0 G1 C2 G3 (spec 0), G4 (spec 1), N5 (GPU without counters), G6. */
static void test_plan_order(void)
{
    struct gl_handout s;
    struct gl_handout_job j[7] = {
        { 0, 5, 0, GL_HANDOUT_BATCH }, { 1, 1, 0, GL_HANDOUT_BATCH }, { 2, 9, 0, GL_HANDOUT_CPU },
        { 3, 2, 0, GL_HANDOUT_BATCH }, { 4, 1, 1, GL_HANDOUT_BATCH }, { 5, 3, 1, 0 },
        { 6, 7, 1, GL_HANDOUT_BATCH },
    };
    int out[GL_BATCH_MAX];
    reset();
    CHECK(gl_handout_init(&s, j, 7, 1, 64, 0, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 2);   /* the CPU job at once */
    int b1[] = { 0, 1, 3 };
    CHECK(gl_handout_next(&s, 0, out) == 3 && same(out, b1, 3));   /* spec changes at 4 */
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 5);   /* no counters: at once */
    int b2[] = { 4, 6 };
    CHECK(gl_handout_next(&s, 0, out) == 2 && same(out, b2, 2));
    CHECK(gl_handout_empty(&s));
    CHECK(gl_handout_next(&s, 0, out) == 0);
    for (int i = 0; i < 7; i++)
        CHECK(claimed[i] == 1);
    gl_handout_free(&s);

    /* batch_max 2, job 1 refused by its claim (done elsewhere) */
    reset();
    refuse[1] = 1;
    CHECK(gl_handout_init(&s, j, 7, 1, 2, 0, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 2);
    int b3[] = { 0, 3 };
    CHECK(gl_handout_next(&s, 0, out) == 2 && same(out, b3, 2));
    gl_handout_free(&s);
}

/* By cost: what does not run first, the CPU job alone, then the GPU largest first. */
static void test_cost_order(void)
{
    struct gl_handout s;
    struct gl_handout_job j[6] = {
        { 0, 1, 0, GL_HANDOUT_BATCH }, { 1, 0, 0, GL_HANDOUT_NORUN }, { 2, 50, 0, GL_HANDOUT_CPU },
        { 3, 100, 0, GL_HANDOUT_BATCH }, { 4, 10, 0, GL_HANDOUT_BATCH },
        { 5, 0, 0, GL_HANDOUT_NORUN | GL_HANDOUT_CPU },
    };
    int out[GL_BATCH_MAX];
    reset();
    CHECK(gl_handout_init(&s, j, 6, 2, 64, 1, 0, claim, NULL) == 0);
    refuse[1] = refuse[5] = 1;   /* as the claim of a done or rejected job says */
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 2);   /* the CPU job, alone */
    CHECK(claimed[1] == 1 && claimed[5] == 1);
    CHECK(gl_handout_next(&s, 1, out) == 0);   /* nothing beside it */
    gl_handout_finished(&s, 0);
    /* 2 workers: budget (100 + 10 + 1) / 4 < 100: the largest alone; then
     * (10 + 1) / 4 < 10: the next alone too, and the last */
    CHECK(gl_handout_next(&s, 1, out) == 1 && out[0] == 3);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 4);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 0);
    CHECK(gl_handout_empty(&s));
    gl_handout_free(&s);

    /* one worker: one batch of everything, largest first */
    reset();
    refuse[1] = refuse[5] = 1;
    CHECK(gl_handout_init(&s, j, 6, 1, 64, 1, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 2);
    gl_handout_finished(&s, 0);
    int b[] = { 3, 4, 0 };
    CHECK(gl_handout_next(&s, 0, out) == 3 && same(out, b, 3));
    gl_handout_free(&s);

    /* a CPU job after GPU jobs in flight waits for them (plan had it after) */
    struct gl_handout_job k[2] = { { 0, 1, 0, GL_HANDOUT_BATCH }, { 1, 1, 0, GL_HANDOUT_CPU } };
    reset();
    CHECK(gl_handout_init(&s, k, 2, 2, 64, 1, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 1);   /* CPU first */
    gl_handout_finished(&s, 0);
    CHECK(gl_handout_next(&s, 0, out) == 1 && out[0] == 0);
    gl_handout_free(&s);
}

/* Simulated workers: 200 GPU jobs whose costs differ 100x, taken by 2 and 3
 * workers as they become free. Each job exactly once; the workers' finish
 * times within the largest job's cost of each other; far fewer units than jobs. */
static void test_balance(int nworkers, double min_unit)
{
    enum { N = 200 };
    struct gl_handout s;
    struct gl_handout_job j[N];
    double busy[GL_HANDOUT_SLOTS] = { 0 }, maxc = 0;
    int seen[N] = { 0 }, units = 0, out[GL_BATCH_MAX];
    srand(7);
    for (int i = 0; i < N; i++) {
        j[i].job = i;
        j[i].cost = 1.0 + (double)(rand() % 100);   /* 1 .. 100 */
        j[i].spec = 0;
        j[i].flags = GL_HANDOUT_BATCH;
        if (j[i].cost > maxc)
            maxc = j[i].cost;
    }
    reset();
    CHECK(gl_handout_init(&s, j, N, nworkers, 64, 1, min_unit, claim, NULL) == 0);
    double first_cost = -1;
    for (;;) {
        int w = 0;   /* the worker that is free first takes the next unit */
        for (int i = 1; i < nworkers; i++)
            if (busy[i] < busy[w])
                w = i;
        int k = gl_handout_next(&s, w, out);
        if (k <= 0)
            break;
        units++;
        for (int m = 0; m < k; m++) {
            seen[out[m]]++;
            busy[w] += j[out[m]].cost;
            if (first_cost < 0)
                first_cost = j[out[m]].cost;
        }
        gl_handout_finished(&s, w);
    }
    int once = 1;
    for (int i = 0; i < N; i++)
        once &= seen[i] == 1 && claimed[i] == 1;
    CHECK(once);
    CHECK(first_cost == maxc);   /* largest first */
    double lo = busy[0], hi = busy[0];
    for (int i = 1; i < nworkers; i++) {
        lo = busy[i] < lo ? busy[i] : lo;
        hi = busy[i] > hi ? busy[i] : hi;
    }
    if (!CHECK(hi - lo <= maxc + min_unit))
        printf("  %d workers: finish times %.0f .. %.0f (largest job %.0f)\n", nworkers, lo, hi,
               maxc);
    CHECK(units < N / 3);
    /* the floor: no unit but the last few below it */
    CHECK(min_unit == 0 || units <= (int)(busy[0] * nworkers / min_unit) + 2 * nworkers);
    gl_handout_free(&s);
}

/* Redo: jobs given back go first on their worker, as one unit or one at a time. */
static void test_redo(void)
{
    struct gl_handout s;
    struct gl_handout_job j[3] = { { 0, 3, 0, GL_HANDOUT_BATCH }, { 1, 2, 0, GL_HANDOUT_BATCH },
                                 { 2, 1, 0, GL_HANDOUT_BATCH } };
    int out[GL_BATCH_MAX], again[2] = { 0, 1 };
    reset();
    CHECK(gl_handout_init(&s, j, 3, 1, 2, 1, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == 2);
    gl_handout_finished(&s, 0);
    gl_handout_redo(&s, 0, again, 2, 0);
    CHECK(!gl_handout_empty(&s));
    CHECK(gl_handout_next(&s, 0, out) == 2 && same(out, again, 2));
    CHECK(claimed[0] == 1 && claimed[1] == 1);   /* not claimed twice */
    gl_handout_finished(&s, 0);
    gl_handout_redo(&s, 1, again, 2, 1);
    CHECK(gl_handout_next(&s, 1, out) == 1 && out[0] == 0);
    CHECK(gl_handout_next(&s, 1, out) == 1 && out[0] == 1);
    CHECK(gl_handout_next(&s, 1, out) == 1 && out[0] == 2);
    CHECK(gl_handout_empty(&s));
    gl_handout_free(&s);

    /* a claim that says stop stops the hand-out */
    reset();
    claim_stop_at = 1;
    CHECK(gl_handout_init(&s, j, 3, 1, 64, 0, 0, claim, NULL) == 0);
    CHECK(gl_handout_next(&s, 0, out) == -1);
    CHECK(gl_handout_next(&s, 0, out) == -1);
    gl_handout_free(&s);
}

/* Several specs, several workers, simulated in time: a worker that changes its
 * spec pays spec_cost (a collection start). Returns the number of spec starts
 * of all workers; *spread: last finish - first finish; *maxc: largest job. */
static int simulate(const struct gl_handout_job *j, int n, int nworkers, double spec_cost,
                    double *spread, int *starts_max)
{
    struct gl_handout s;
    double t[GL_HANDOUT_SLOTS] = { 0 }, end[GL_HANDOUT_SLOTS] = { 0 };
    int busy[GL_HANDOUT_SLOTS] = { 0 }, last[GL_HANDOUT_SLOTS], starts[GL_HANDOUT_SLOTS] = { 0 };
    int seen[512] = { 0 }, out[GL_BATCH_MAX], total = 0;
    reset();
    CHECK(gl_handout_init(&s, j, n, nworkers, 64, 1, 0, claim, NULL) == 0);
    gl_handout_set_spec_cost(&s, spec_cost);
    for (int w = 0; w < nworkers; w++)
        last[w] = -1;
    int asking[GL_HANDOUT_SLOTS];
    for (int w = 0; w < nworkers; w++)
        asking[w] = 1;
    for (int guard = 0; guard < 100000; guard++) {
        /* idle workers ask; one told to wait asks again when another ends */
        int now = 0;
        for (int w = 0; w < nworkers; w++)
            if (!busy[w] && asking[w]) {
                int k = gl_handout_next(&s, w, out);
                asking[w] = 0;
                if (k <= 0)
                    continue;
                double c = 0;
                for (int m = 0; m < k; m++) {
                    seen[out[m]]++;
                    c += j[out[m]].cost;
                }
                if (j[out[0]].spec != last[w]) {
                    starts[w]++;
                    c += spec_cost;
                    last[w] = j[out[0]].spec;
                }
                busy[w] = 1;
                t[w] += c;
                end[w] = t[w];
                now = 1;
            }
        int w = -1;   /* the next to end */
        for (int i = 0; i < nworkers; i++)
            if (busy[i] && (w < 0 || t[i] < t[w]))
                w = i;
        if (w < 0)
            break;
        busy[w] = 0;
        gl_handout_finished(&s, w);
        for (int i = 0; i < nworkers; i++) {   /* everyone idle asks again from then on */
            if (!busy[i]) {
                asking[i] = 1;
                if (t[i] < t[w])
                    t[i] = t[w];
            }
        }
        (void)now;
    }
    int once = 1;
    for (int i = 0; i < n; i++)
        once &= seen[i] == 1;
    CHECK(once);
    CHECK(gl_handout_empty(&s));
    double lo = 1e300, hi = 0;
    *starts_max = 0;
    for (int w = 0; w < nworkers; w++) {
        total += starts[w];
        if (starts[w] > *starts_max)
            *starts_max = starts[w];
        if (starts[w] == 0)
            continue;   /* a worker that never ran */
        lo = end[w] < lo ? end[w] : lo;
        hi = end[w] > hi ? end[w] : hi;
    }
    *spread = hi - lo;
    gl_handout_free(&s);
    return total;
}

/* Specs spread over the workers before any is shared: two specs of equal cost
 * on two workers: one start each, and they end together; four specs on two
 * workers: each worker starts at most 3 (its two and one shared tail), fewer
 * in all than the specs times the workers; a small spec is not split (its
 * cost left is under a start); one spec on two workers: both start it once. */
static void test_specs(void)
{
    struct gl_handout_job j[200];
    int n = 0, smax;
    double spread;
    srand(11);
    for (int spec = 0; spec < 2; spec++)
        for (int i = 0; i < 60; i++, n++)
            j[n] = (struct gl_handout_job){ n, 1.0 + (double)(rand() % 10), spec, GL_HANDOUT_BATCH };
    int total = simulate(j, n, 2, 3.0, &spread, &smax);
    CHECK(smax <= 2);
    CHECK(total <= 3);
    if (!CHECK(spread <= 10.0 + 3.0))
        printf("  2 specs: finish spread %.1f\n", spread);
    /* four specs of unequal cost */
    n = 0;
    for (int spec = 0; spec < 4; spec++)
        for (int i = 0; i < 20 + 10 * spec; i++, n++)
            j[n] = (struct gl_handout_job){ n, 1.0 + (double)(rand() % 10), spec, GL_HANDOUT_BATCH };
    total = simulate(j, n, 2, 3.0, &spread, &smax);
    CHECK(total < 8);
    CHECK(smax <= 3);
    if (!CHECK(spread <= 10.0 + 3.0))
        printf("  4 specs: finish spread %.1f, %d starts\n", spread, total);
    /* a big spec and a tiny one: the tiny one is not shared */
    n = 0;
    for (int i = 0; i < 50; i++, n++)
        j[n] = (struct gl_handout_job){ n, 5.0, 0, GL_HANDOUT_BATCH };
    for (int i = 0; i < 2; i++, n++)
        j[n] = (struct gl_handout_job){ n, 0.5, 1, GL_HANDOUT_BATCH };
    total = simulate(j, n, 2, 3.0, &spread, &smax);
    CHECK(total == 3);   /* A on one, B then A on the other */
    if (!CHECK(spread <= 5.0 + 3.0))
        printf("  big and tiny: finish spread %.1f\n", spread);
    /* one spec: both workers start it once */
    n = 0;
    for (int i = 0; i < 40; i++, n++)
        j[n] = (struct gl_handout_job){ n, 1.0 + (double)(rand() % 10), 0, GL_HANDOUT_BATCH };
    total = simulate(j, n, 2, 3.0, &spread, &smax);
    CHECK(total == 2 && smax == 1);
    /* a tail shorter than a start is not split: spec 0's 20 jobs on one
     * worker, spec 1's one long job on the other; when that one ends, what is
     * left of spec 0 (a few jobs) is less than a start per worker: it waits */
    n = 0;
    for (int i = 0; i < 20; i++, n++)
        j[n] = (struct gl_handout_job){ n, 1.0, 0, GL_HANDOUT_BATCH };
    j[n] = (struct gl_handout_job){ n, 18.0, 1, GL_HANDOUT_BATCH };
    n++;
    total = simulate(j, n, 2, 3.0, &spread, &smax);
    CHECK(total == 2);
    if (!CHECK(spread <= 1.0 + 3.0))
        printf("  tail: finish spread %.1f\n", spread);
}

/* By cost on 2 workers, 4 GPU jobs of 1 unit each (min_unit 100): with counters
 * the first batch takes all 4 (a session's worth), without (GL_HANDOUT_LIGHT)
 * it takes its share of what is left, so the other worker gets some; and a
 * worker on one spec takes a light spec's jobs whatever the cost of a start. */
static void test_light(void)
{
    for (int light = 0; light <= 1; light++) {
        struct gl_handout s;
        struct gl_handout_job j[4];
        int out[GL_BATCH_MAX];
        reset();
        for (int i = 0; i < 4; i++) {
            j[i].job = i;
            j[i].cost = 1.0;
            j[i].spec = 0;
            j[i].flags = GL_HANDOUT_BATCH | (light ? GL_HANDOUT_LIGHT : 0);
        }
        if (!CHECK(gl_handout_init(&s, j, 4, 2, 64, 1, 100.0, claim, NULL) == 0))
            return;
        int k0 = gl_handout_next(&s, 0, out);
        int k1 = gl_handout_next(&s, 1, out);
        CHECK(light ? k0 >= 1 && k0 < 4 && k1 >= 1 : k0 == 4 && k1 == 0);
        gl_handout_free(&s);
    }
}

int main(void)
{
    test_plan_order();
    test_cost_order();
    test_balance(2, 0);
    test_balance(3, 0);
    test_balance(2, 1000);
    test_balance(3, 1000);
    test_redo();
    test_specs();
    test_light();
    return t_done("handout");
}
