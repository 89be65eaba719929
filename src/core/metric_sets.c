/* metric_sets.c - see metric_sets.h. The table below is the only list of the
 * metrics gpulab names: the store generates one `results` column per row that
 * has a column (src/store/store_sql.c expands db/views.sql's @metrics ...@ lists), so
 * adding a metric is adding a row here. Must stay free of CUDA. */
#include "metric_sets.h"
#include "nearest.h"
#include "params.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

const struct gl_metric_def gl_metric_table[] = {
    /* default */
    { "gpu__time_duration.sum", "gpu_time_ns", "ns", GL_SET_DEFAULT, 0,
      "GPU time of the run, first launch start to last launch end (one range)" },
    { "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct", "%",
      GL_SET_DEFAULT, 0, "achieved occupancy: active warps per active SM cycle over the maximum" },
    { "l1tex__t_sector_hit_rate.pct", "l1_hit_pct", "%", GL_SET_DEFAULT, 0,
      "L1/texture cache sector hit rate" },
    { "lts__t_sector_hit_rate.pct", "l2_hit_pct", "%", GL_SET_DEFAULT, 0,
      "L2 cache sector hit rate" },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem_conflicts_ld", "",
      GL_SET_DEFAULT, 0, "shared-memory load bank conflicts (extra data-stage cycles)" },
    { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem_conflicts_st", "",
      GL_SET_DEFAULT, 0, "shared-memory store bank conflicts (extra data-stage cycles)" },
    { GL_METRIC_SMEM_EXCESS_LD, "smem_excess_ld", "", GL_SET_DEFAULT, 1,
      "exact shared-memory load bank conflicts: the wavefronts the run's shared loads took "
      "beyond the ideal, from CUPTI's instrumented SASS counts (0 = conflict-free; an n-way "
      "conflict of a 32-bit load adds n - 1 per warp instruction); NULL with "
      "smem_excess_reason when not measured" },
    { GL_METRIC_SMEM_EXCESS_ST, "smem_excess_st", "", GL_SET_DEFAULT, 1,
      "exact shared-memory store bank conflicts: the wavefronts the run's shared stores took "
      "beyond the ideal (as smem_excess_ld)" },
    { "dram__bytes_read.sum", "dram_read_bytes", "byte", GL_SET_DEFAULT, 0,
      "bytes read from DRAM during the run" },
    { "dram__bytes_write.sum", "dram_write_bytes", "byte", GL_SET_DEFAULT, 0,
      "bytes written to DRAM during the run (as Nsight Compute counts: lines still dirty "
      "in L2 at the end are not included)" },
    { GL_METRIC_DRAIN, "dram_write_drain_bytes", "byte", GL_SET_DEFAULT, 1,
      "bytes of the run's output still dirty in L2 when it ended: DRAM writes during the "
      "L2 flush that follows the run (gpulab's measurement, not a CUPTI metric)" },
    /* default: the run's clock and its bytes at each level of the hierarchical roofline
     * (in the default set's passes on GH100: bench/results/2026-11-24-h100-roofline_probe.log) */
    { "sm__cycles_elapsed.avg.per_second", "sm_clock_hz", "Hz", GL_SET_DEFAULT, 0,
      "SM clock during the run: SM cycles elapsed per second of GPU time (the view's "
      "sm_clock_mhz; Nsight Compute's SM Frequency); runs of one kernel launch only" },
    { "l1tex__t_bytes.sum", "l1_bytes", "byte", GL_SET_DEFAULT, 0,
      "bytes requested from L1 (global, local, texture and surface accesses; not shared "
      "memory): the L1 level of the roofline" },
    { "lts__t_bytes.sum", "l2_bytes", "byte", GL_SET_DEFAULT, 0,
      "bytes requested from L2: the L2 level of the roofline" },
    { "lts__d_sectors_fill_sysmem.sum", "hostlink_read_sectors", "", GL_SET_DEFAULT, 0,
      "32-byte L2 sectors filled from host memory (zero-copy reads over the host link)" },
    { "lts__t_sectors_aperture_sysmem_op_write.sum", "hostlink_write_sectors", "",
      GL_SET_DEFAULT, 0, "32-byte L2 sectors written to host memory (zero-copy writes over the "
      "host link)" },
    /* full */
    { "sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct", "%",
      GL_SET_FULL, 0, "SM throughput: the busiest SM sub-unit, percent of its peak" },
    { "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "mem_throughput_pct",
      "%", GL_SET_FULL, 0, "memory throughput: the busiest memory unit, percent of its peak" },
    { "smsp__inst_executed.sum", "inst_executed", "", GL_SET_FULL, 0,
      "warp instructions executed" },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smem_wavefronts_ld", "",
      GL_SET_FULL, 0, "shared-memory load wavefronts (1 per request when conflict-free)" },
    { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smem_wavefronts_st", "",
      GL_SET_FULL, 0, "shared-memory store wavefronts (1 per request when conflict-free)" },
    { "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "global_ld_bytes", "byte", GL_SET_FULL, 0,
      "bytes requested from L1 by global loads" },
    { "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum", "global_st_bytes", "byte", GL_SET_FULL, 0,
      "bytes requested from L1 by global stores" },
    /* sass: the kernel is instrumented (patched) to count these; many passes */
    { "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", NULL, "", GL_SET_SASS, 0,
      "FP32 fused multiply-add thread instructions (2 FLOP each)" },
    { "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", NULL, "", GL_SET_SASS, 0,
      "FP32 add thread instructions" },
    { "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", NULL, "", GL_SET_SASS, 0,
      "FP32 multiply thread instructions" },
    { "smsp__sass_inst_executed_op_global_ld.sum", NULL, "", GL_SET_SASS, 0,
      "global load warp instructions" },
    { "smsp__sass_inst_executed_op_global_st.sum", NULL, "", GL_SET_SASS, 0,
      "global store warp instructions" },
    { "smsp__sass_inst_executed_op_shared_ld.sum", NULL, "", GL_SET_SASS, 0,
      "shared-memory load warp instructions" },
    { "smsp__sass_inst_executed_op_shared_st.sum", NULL, "", GL_SET_SASS, 0,
      "shared-memory store warp instructions" },
};

const int gl_metric_count = (int)(sizeof gl_metric_table / sizeof gl_metric_table[0]);

const struct gl_metric_def *gl_metric_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < gl_metric_count; i++)
        if (strcmp(gl_metric_table[i].name, name) == 0)
            return &gl_metric_table[i];
    return NULL;
}

const char *gl_metric_column(const char *name)
{
    const struct gl_metric_def *d = gl_metric_find(name);
    return d ? d->column : NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

const char *gl_metric_unit(const char *name)
{
    const struct gl_metric_def *d = gl_metric_find(name);
    if (d)
        return d->unit;
    if (!name)
        return "";
    if (ends_with(name, ".pct") || strstr(name, ".pct_of_peak"))
        return "%";
    int per_s = strstr(name, ".per_second") != NULL;
    const char *dot = strchr(name, '.');
    size_t base = dot ? (size_t)(dot - name) : strlen(name);
    if (strncmp(name, "gpu__time_", 10) == 0)
        return per_s ? "ns/s" : "ns";
    /* "bytes" in the base name (before the first '.') */
    for (size_t i = 0; i + 5 <= base; i++)
        if (strncmp(name + i, "bytes", 5) == 0)
            return per_s ? "byte/s" : "byte";
    return per_s ? "/s" : "";
}

static int is_name_char(int c)
{
    return isalnum(c) || c == '_' || c == '.';
}

int gl_metric_name_ok(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= GL_METRIC_NAME || !isalpha((unsigned char)name[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!is_name_char((unsigned char)name[i]))
            return 0;
    if (strstr(name, "..") || name[len - 1] == '.' || name[len - 1] == '_')
        return 0;
    const char *us = strstr(name, "__");
    if (!us || us == name || us[2] == '\0' || us[2] == '.' || us[2] == '_')
        return 0;
    if (!strchr(us + 2, '.'))   /* a rollup (.sum, .avg, .pct ...) after the counter */
        return 0;
    if (strncmp(name, "gpulab__", 8) == 0) {
        const struct gl_metric_def *d = gl_metric_find(name);
        return d != NULL && d->derived;
    }
    return 1;
}

/* 1 when name is in names[0..n). */
static int listed(char names[][GL_METRIC_NAME], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* The metrics being gathered: req, and the names an entry "-X" left out (out,
 * the drain among them by its name; names only, so never "full"). */
struct gather {
    struct gl_metric_req *req;
    char out[GL_MAX_METRICS][GL_METRIC_NAME];
    int nout;
    int excluding;   /* adding to out instead of req */
    int full;        /* a list ran out of room */
};

/* Append name to req unless it is there or left out; in excluding mode to out. */
static void add_one(struct gather *g, const char *name)
{
    if (g->excluding) {
        if (listed(g->out, g->nout, name))
            return;
        if (g->nout >= GL_MAX_METRICS) {
            g->full = 1;
            return;
        }
        snprintf(g->out[g->nout++], GL_METRIC_NAME, "%s", name);
        return;
    }
    if (listed(g->out, g->nout, name))
        return;
    if (strcmp(name, GL_METRIC_DRAIN) == 0) {
        g->req->drain = 1;
        return;
    }
    if (listed(g->req->names, g->req->n, name))
        return;
    if (g->req->n >= GL_MAX_METRICS) {
        g->full = 1;
        return;
    }
    snprintf(g->req->names[g->req->n], sizeof g->req->names[0], "%s", name);
    g->req->n++;
}

static void add_set(struct gather *g, int mask)
{
    for (int i = 0; i < gl_metric_count; i++)
        if (gl_metric_table[i].set & mask)
            add_one(g, gl_metric_table[i].name);
}

/* Append "text" to err, separated by "; " from what is there. */
static void err_add(char *err, size_t errlen, const char *fmt, const char *what)
{
    size_t used = strlen(err);
    if (used + 3 >= errlen)
        return;
    if (used) {
        snprintf(err + used, errlen - used, "; ");
        used += 2;
    }
    snprintf(err + used, errlen - used, fmt, what);
}

/* One entry (a set name or a metric name) into g. 0, or -1 when it is neither. */
static int add_entry(struct gather *g, const char *tok)
{
    if (strcmp(tok, "default") == 0)
        add_set(g, GL_SET_DEFAULT);
    else if (strcmp(tok, "full") == 0)
        add_set(g, GL_SET_DEFAULT | GL_SET_FULL);
    else if (strcmp(tok, "sass") == 0)
        add_set(g, GL_SET_SASS);
    else if (strcmp(tok, GL_METRIC_SMEM_EXCESS_SET) == 0) {
        add_one(g, GL_METRIC_SMEM_EXCESS_LD);
        add_one(g, GL_METRIC_SMEM_EXCESS_ST);
    } else if (gl_metric_name_ok(tok))
        add_one(g, tok);
    else
        return -1;
    return 0;
}

/* The entries of spec, one at a time: cb(tok, ctx) for each non-empty one; the
 * empty ones and the over-long ones are errors in err. Returns the entries seen. */
static int each_entry(const char *spec, char *err, size_t errlen,
                      void (*cb)(const char *tok, void *ctx), void *ctx)
{
    char tok[256];
    int ntok = 0;
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (len == 0) {
            if (end || ntok > 0)
                err_add(err, errlen, "%s", "empty entry in the metrics list");
        } else if (len >= sizeof tok) {
            err_add(err, errlen, "metric name too long: '%.60s...'", p);
        } else {
            memcpy(tok, p, len);
            tok[len] = '\0';
            ntok++;
            cb(tok, ctx);
        }
        if (!end)
            break;
        p = end + 1;
    }
    return ntok;
}

struct resolve_ctx {
    struct gather *g;
    char *err;
    size_t errlen;
    int pass;   /* 0: the "-X" entries, 1: the others */
    int none, nplus;
};

static void resolve_entry(const char *tok, void *c)
{
    struct resolve_ctx *x = (struct resolve_ctx *)c;
    int minus = tok[0] == '-';
    if (minus != (x->pass == 0))
        return;
    if (minus) {
        tok++;
        while (isspace((unsigned char)*tok))
            tok++;
        if (strcmp(tok, "none") == 0 || add_entry(x->g, tok) != 0)
            err_add(x->err, x->errlen,
                    "'-%s' leaves out no metric (expected -unit__counter.rollup, or one of "
                    "-default, -full, -sass, -" GL_METRIC_SMEM_EXCESS_SET ")", tok);
        return;
    }
    x->nplus++;
    if (strcmp(tok, "none") == 0)
        x->none = 1;
    else if (add_entry(x->g, tok) != 0)
        err_add(x->err, x->errlen,
                "'%s' is not a metric name (expected unit__counter.rollup, "
                "or one of none, default, full, sass, " GL_METRIC_SMEM_EXCESS_SET ")", tok);
}

int gl_metric_resolve(const char *spec, struct gl_metric_req *req, char *err, size_t errlen)
{
    struct gather g;
    struct resolve_ctx x;
    memset(req, 0, sizeof *req);
    memset(&g, 0, sizeof g);
    memset(&x, 0, sizeof x);
    g.req = req;
    x.g = &g;
    x.err = err;
    x.errlen = errlen;
    if (errlen)
        err[0] = '\0';
    if (!spec)
        spec = "";
    /* the left-out names first, so that the others skip them wherever they are */
    g.excluding = 1;
    int ntok = each_entry(spec, err, errlen, resolve_entry, &x);
    g.excluding = 0;
    x.pass = 1;
    char again[64];   /* the entries' own errors, said once already */
    again[0] = '\0';
    (void)each_entry(spec, again, sizeof again, resolve_entry, &x);
    if (ntok == 0 && err[0] == '\0')
        err_add(err, errlen, "%s", "empty metrics list (use none for no counters)");
    if (x.none && ntok > 1)
        err_add(err, errlen, "%s", "'none' cannot be combined with other metrics");
    if (!x.none && ntok > 0 && err[0] == '\0' && req->n == 0 && !req->drain)
        err_add(err, errlen, "%s", "the list leaves no metric (use none for no counters)");
    if (req->drain && !listed(req->names, req->n, GL_METRIC_DRAM_WRITE)) {
        if (req->n >= GL_MAX_METRICS)
            g.full = 1;
        else
            snprintf(req->names[req->n++], sizeof req->names[0], "%s", GL_METRIC_DRAM_WRITE);
    }
    /* the drain is stored beside the names: one slot of r->metrics stays for it */
    if (g.full || req->n + req->drain > GL_MAX_METRICS) {
        char num[16];
        snprintf(num, sizeof num, "%d", GL_MAX_METRICS);
        err_add(err, errlen, "too many metrics (at most %s per run)", num);
    }
    if (err[0]) {
        memset(req, 0, sizeof *req);
        return -1;
    }
    if (x.none)
        memset(req, 0, sizeof *req);
    return 0;
}

int gl_metric_suggest(const char *name, const char *const *known, int nknown,
                      const char **out, int nout)
{
    enum { MAXOUT = 16 };
    int dist[MAXOUT];
    int have = 0;
    if (nout > MAXOUT)
        nout = MAXOUT;
    if (!name || !known || nout <= 0)
        return 0;
    size_t ln = strlen(name);
    for (int i = 0; i < nknown; i++) {
        if (!known[i])
            continue;
        size_t lk = strlen(known[i]);
        size_t gap = lk > ln ? lk - ln : ln - lk;
        /* the distance is at least the length difference: skip hopeless names */
        if (have == nout && (int)gap >= dist[have - 1])
            continue;
        int d = gl_edit_distance(name, known[i]);
        if (have == nout && d >= dist[have - 1])
            continue;
        int at = have < nout ? have++ : nout - 1;
        while (at > 0 && dist[at - 1] > d) {
            dist[at] = dist[at - 1];
            out[at] = out[at - 1];
            at--;
        }
        dist[at] = d;
        out[at] = known[i];
    }
    return have;
}

int gl_metric_match(const char *name, char *const *pats, int npats)
{
    if (npats <= 0)
        return 1;
    for (int i = 0; i < npats; i++) {
        const char *p = pats[i];
        if (strpbrk(p, "*?[") ? fnmatch(p, name, 0) == 0 : strstr(name, p) != NULL)
            return 1;
    }
    return 0;
}
