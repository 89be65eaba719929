/* test_metrics.c - the metric table and spec parsing (src/core/metric_sets.c):
 * sets, lists, duplicates, none, malformed names, units and columns, suggestions
 * against the recorded GH100 name list (tests/data/gh100_metrics.txt), that no
 * SQL of db/ spells out a metric name (the `results` columns are generated from
 * the table: tests/test_store.c checks them), and bench/ncu_agree's map.
 * Must not need a GPU. Run from the repository root. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric_sets.h"
#include "nearest.h"
#include "params.h"
#include "t.h"

static const char *const default_names[] = {
    "gpu__time_duration.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    GL_METRIC_SMEM_EXCESS_LD,
    GL_METRIC_SMEM_EXCESS_ST,
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
};
static const char *const full_names[] = {
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "smsp__inst_executed.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum",
};
#define NDEFAULT ((int)(sizeof default_names / sizeof default_names[0]))
#define NFULL ((int)(sizeof full_names / sizeof full_names[0]))

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + len, 1, 4096, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* The recorded list: names point into *buf (one per line, '#' lines skipped). */
static const char **load_names(const char *path, char **buf, int *n)
{
    *n = 0;
    *buf = read_file(path);
    if (!*buf)
        return NULL;
    int cap = 1024;
    const char **names = malloc((size_t)cap * sizeof *names);
    for (char *line = strtok(*buf, "\n"); names && line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (*n == cap) {
            cap *= 2;
            const char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (!nn) {
                free(names);
                return NULL;
            }
            names = nn;
        }
        names[(*n)++] = line;
    }
    return names;
}

static int in_list(const char *name, const char *const *list, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

static int req_has(const struct gl_metric_req *req, const char *name)
{
    for (int i = 0; i < req->n; i++)
        if (strcmp(req->names[i], name) == 0)
            return 1;
    return 0;
}

static void test_table(void)
{
    int ndef = 0, nfull = 0, nsass = 0, nderived = 0;
    CHECK(gl_metric_count == NDEFAULT + 1 + NFULL + 7);
    for (int i = 0; i < gl_metric_count; i++) {
        const struct gl_metric_def *d = &gl_metric_table[i];
        CHECK(gl_metric_name_ok(d->name));
        CHECK(strlen(d->name) < GL_METRIC_NAME);
        CHECK(d->desc && d->desc[0]);
        CHECK(strcmp(d->unit, "ns") == 0 || strcmp(d->unit, "%") == 0 ||
              strcmp(d->unit, "byte") == 0 || strcmp(d->unit, "") == 0);
        CHECK(d->set == GL_SET_DEFAULT || d->set == GL_SET_FULL || d->set == GL_SET_SASS);
        CHECK(gl_metric_find(d->name) == d);   /* names are unique */
        CHECK(strcmp(gl_metric_unit(d->name), d->unit) == 0);
        for (int j = 0; j < i; j++)
            if (d->column && gl_metric_table[j].column)
                CHECK(strcmp(d->column, gl_metric_table[j].column) != 0);
        ndef += d->set == GL_SET_DEFAULT;
        nfull += d->set == GL_SET_FULL;
        nsass += d->set == GL_SET_SASS;
        nderived += d->derived;
        if (d->set == GL_SET_SASS)
            CHECK(d->column == NULL && strncmp(d->name, "smsp__sass_", 11) == 0);
        else
            CHECK(d->column != NULL);
    }
    CHECK(ndef == NDEFAULT + 1 && nfull == NFULL && nsass == 7 && nderived == 3);
    const struct gl_metric_def *dr = gl_metric_find(GL_METRIC_DRAIN);
    CHECK(dr && dr->derived && dr->set == GL_SET_DEFAULT);
    CHECK_STR(gl_metric_column(GL_METRIC_DRAIN), "dram_write_drain_bytes");
    /* the exact conflicts: gpulab's, counts, right after the hardware counters */
    const struct gl_metric_def *ld = gl_metric_find(GL_METRIC_SMEM_EXCESS_LD);
    const struct gl_metric_def *st = gl_metric_find(GL_METRIC_SMEM_EXCESS_ST);
    CHECK(ld && ld->derived && ld->set == GL_SET_DEFAULT && strcmp(ld->unit, "") == 0);
    CHECK(st && st->derived && st->set == GL_SET_DEFAULT);
    CHECK_STR(gl_metric_column(GL_METRIC_SMEM_EXCESS_LD), "smem_excess_ld");
    CHECK_STR(gl_metric_column(GL_METRIC_SMEM_EXCESS_ST), "smem_excess_st");
    CHECK(ld && st && st == ld + 1 &&
          strcmp(ld[-1].name, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum") == 0);
    CHECK_STR(gl_metric_column("gpu__time_duration.sum"), "gpu_time_ns");
    CHECK_STR(gl_metric_column("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"), "global_st_bytes");
    CHECK(gl_metric_column("smsp__sass_inst_executed_op_shared_ld.sum") == NULL);
    CHECK(gl_metric_column("lts__t_sectors.sum") == NULL);
    CHECK(gl_metric_find("dram__bytes_read") == NULL);
    CHECK(gl_metric_find(NULL) == NULL);
    /* units by rule for names outside the table */
    CHECK_STR(gl_metric_unit("gpu__time_duration.sum"), "ns");
    CHECK_STR(gl_metric_unit("gpu__time_active.max"), "ns");
    CHECK_STR(gl_metric_unit("sm__cycles_active.avg.pct_of_peak_sustained_elapsed"), "%");
    CHECK_STR(gl_metric_unit("lts__t_sector_op_read_hit_rate.pct"), "%");
    CHECK_STR(gl_metric_unit("lts__t_bytes.sum"), "byte");
    CHECK_STR(gl_metric_unit("dram__bytes_read.sum.per_second"), "byte/s");
    CHECK_STR(gl_metric_unit("lts__t_sectors.sum"), "");
    CHECK_STR(gl_metric_unit("sm__inst_executed.sum.per_second"), "/s");
    CHECK_STR(gl_metric_unit("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), "");
}

static void test_name_shape(void)
{
    CHECK(gl_metric_name_ok("dram__bytes_read.sum"));
    CHECK(gl_metric_name_ok("sm__warps_active.avg.pct_of_peak_sustained_active"));
    CHECK(gl_metric_name_ok("l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_size_128B.sum"));
    CHECK(gl_metric_name_ok("TPC.TriageCompute.tpc__cycles_active.avg"));
    CHECK(gl_metric_name_ok(GL_METRIC_DRAIN));
    CHECK(gl_metric_name_ok(GL_METRIC_SMEM_EXCESS_LD));
    CHECK(gl_metric_name_ok(GL_METRIC_SMEM_EXCESS_ST));
    CHECK(!gl_metric_name_ok("gpulab__smem_excess_wavefronts_ld.avg"));
    CHECK(!gl_metric_name_ok(""));
    CHECK(!gl_metric_name_ok("dram__bytes_read"));        /* no rollup */
    CHECK(!gl_metric_name_ok("dram_bytes_read.sum"));     /* no unit__ */
    CHECK(!gl_metric_name_ok("__bytes_read.sum"));
    CHECK(!gl_metric_name_ok("dram__.sum"));
    CHECK(!gl_metric_name_ok("dram__bytes_read.sum."));
    CHECK(!gl_metric_name_ok("dram__bytes_read..sum"));
    CHECK(!gl_metric_name_ok("dram__bytes read.sum"));
    CHECK(!gl_metric_name_ok("dram__bytes-read.sum"));
    CHECK(!gl_metric_name_ok("9dram__bytes_read.sum"));
    CHECK(!gl_metric_name_ok("gpulab__dram__bytes_write_drain.avg"));  /* ours, not a CUPTI one */
    CHECK(!gl_metric_name_ok("gpulab__anything.sum"));
    char longname[GL_METRIC_NAME + 8];
    memset(longname, 'a', sizeof longname);
    memcpy(longname, "sm__", 4);
    memcpy(longname + sizeof longname - 5, ".sum", 5);
    CHECK(!gl_metric_name_ok(longname));
}

static void test_match(void)
{
    char *none[] = { NULL };
    char *sub[] = { "hit_rate" };
    char *glob[] = { "lts__t_sector*hit*.pct", "dram__*" };
    char *cls[] = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_[ls]?.sum" };
    CHECK(gl_metric_match("dram__bytes_read.sum", none, 0));
    CHECK(gl_metric_match("lts__t_sector_hit_rate.pct", sub, 1));
    CHECK(!gl_metric_match("lts__t_sectors.sum", sub, 1));
    CHECK(!gl_metric_match("lts__t_sector_hit_rate.pct", (char *[]){ "HIT_RATE" }, 1));
    CHECK(gl_metric_match("lts__t_sector_hit_rate.pct", glob, 2));
    CHECK(gl_metric_match("lts__t_sector_op_read_hit_rate.pct", glob, 2));
    CHECK(!gl_metric_match("lts__t_sector_hit_rate.ratio", glob, 2));   /* a glob spans the whole name */
    CHECK(gl_metric_match("dram__bytes_write.sum", glob, 2));
    CHECK(!gl_metric_match("xdram__bytes.sum", glob, 2));
    CHECK(gl_metric_match("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", cls, 1));
    CHECK(gl_metric_match("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", cls, 1));
    CHECK(!gl_metric_match("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", cls, 1));
}

static void test_resolve_sets(void)
{
    struct gl_metric_req req;
    char err[1024];
    CHECK(gl_metric_resolve("default", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT && req.drain == 1);
    for (int i = 0; i < NDEFAULT && i < req.n; i++)
        CHECK_STR(req.names[i], default_names[i]);
    CHECK(!req_has(&req, GL_METRIC_DRAIN));

    CHECK(gl_metric_resolve(" full ", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT + NFULL && req.drain == 1);
    for (int i = 0; i < NFULL && NDEFAULT + i < req.n; i++)
        CHECK_STR(req.names[NDEFAULT + i], full_names[i]);

    CHECK(gl_metric_resolve("sass", &req, err, sizeof err) == 0);
    CHECK(req.n == 7 && req.drain == 0);
    CHECK_STR(req.names[0], "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");

    CHECK(gl_metric_resolve("none", &req, err, sizeof err) == 0);
    CHECK(req.n == 0 && req.drain == 0);
    CHECK(gl_metric_resolve("  none", &req, err, sizeof err) == 0 && req.n == 0);

    /* a set plus a name; then duplicates keep the first position */
    CHECK(gl_metric_resolve("default, sm__inst_executed.sum", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT + 1 && req.drain == 1);
    CHECK_STR(req.names[NDEFAULT], "sm__inst_executed.sum");
    CHECK(gl_metric_resolve("dram__bytes_read.sum,default,dram__bytes_read.sum, default",
                            &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT);
    CHECK_STR(req.names[0], "dram__bytes_read.sum");
    CHECK_STR(req.names[1], "gpu__time_duration.sum");
    CHECK(gl_metric_resolve("default,full", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT + NFULL);
    CHECK(gl_metric_resolve("full, default, sass", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT + NFULL + 7 && req.drain == 1);

    /* names only: no drain, no hidden additions */
    CHECK(gl_metric_resolve("lts__t_sectors.sum,smsp__inst_executed.sum", &req, err,
                            sizeof err) == 0);
    CHECK(req.n == 2 && req.drain == 0);
    CHECK_STR(req.names[0], "lts__t_sectors.sum");
    /* the drain by name brings the write counter it is measured with */
    CHECK(gl_metric_resolve(GL_METRIC_DRAIN, &req, err, sizeof err) == 0);
    CHECK(req.drain == 1 && req.n == 1);
    CHECK_STR(req.names[0], GL_METRIC_DRAM_WRITE);
    CHECK(gl_metric_resolve("dram__bytes_read.sum, " GL_METRIC_DRAIN, &req, err, sizeof err) == 0);
    CHECK(req.drain == 1 && req.n == 2);
}

/* The exact conflicts: in default, by set name or metric name, and "-X" entries
 * that leave a set or a name out wherever they stand. */
static void test_resolve_exclude(void)
{
    struct gl_metric_req req;
    char err[1024];
    CHECK(gl_metric_resolve("default", &req, err, sizeof err) == 0);
    CHECK(req_has(&req, GL_METRIC_SMEM_EXCESS_LD) && req_has(&req, GL_METRIC_SMEM_EXCESS_ST));

    /* the default counters without the instrumented replay, the "-" entry first or last */
    CHECK(gl_metric_resolve("default, -smem_excess", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT - 2 && req.drain == 1);
    CHECK(!req_has(&req, GL_METRIC_SMEM_EXCESS_LD) && !req_has(&req, GL_METRIC_SMEM_EXCESS_ST));
    CHECK(req_has(&req, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    CHECK(gl_metric_resolve(" -smem_excess ,default", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT - 2 && req.drain == 1);
    /* one direction by its name */
    CHECK(gl_metric_resolve("default, -" GL_METRIC_SMEM_EXCESS_ST, &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT - 1 && req_has(&req, GL_METRIC_SMEM_EXCESS_LD) &&
          !req_has(&req, GL_METRIC_SMEM_EXCESS_ST));
    /* only the exact conflicts (no range profiler counter, no drain) */
    CHECK(gl_metric_resolve("smem_excess", &req, err, sizeof err) == 0);
    CHECK(req.n == 2 && req.drain == 0);
    CHECK_STR(req.names[0], GL_METRIC_SMEM_EXCESS_LD);
    CHECK_STR(req.names[1], GL_METRIC_SMEM_EXCESS_ST);
    CHECK(gl_metric_resolve(GL_METRIC_SMEM_EXCESS_LD, &req, err, sizeof err) == 0);
    CHECK(req.n == 1 && req.drain == 0);
    /* a set left out: full without default is the full set's own rows */
    CHECK(gl_metric_resolve("full, -default", &req, err, sizeof err) == 0);
    CHECK(req.n == NFULL && req.drain == 0);
    CHECK_STR(req.names[0], full_names[0]);
    /* the drain left out by name keeps the write counter only if asked for */
    CHECK(gl_metric_resolve("default, -" GL_METRIC_DRAIN, &req, err, sizeof err) == 0);
    CHECK(req.drain == 0 && req.n == NDEFAULT && req_has(&req, GL_METRIC_DRAM_WRITE));
    CHECK(gl_metric_resolve("default, -" GL_METRIC_DRAIN ", -dram__bytes_write.sum", &req, err,
                            sizeof err) == 0);
    CHECK(req.drain == 0 && req.n == NDEFAULT - 1 && !req_has(&req, GL_METRIC_DRAM_WRITE));
    /* leaving out what is not there changes nothing */
    CHECK(gl_metric_resolve("default, -lts__t_sectors.sum", &req, err, sizeof err) == 0);
    CHECK(req.n == NDEFAULT && req.drain == 1);

    /* errors: nothing left, a bad name after '-', "-none", "-" alone */
    CHECK(gl_metric_resolve("default, -default", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "leaves no metric") != NULL && req.n == 0);
    CHECK(gl_metric_resolve("smem_excess, -smem_excess", &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve("default, -smem_exces", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "'-smem_exces' leaves out no metric") != NULL);
    CHECK(gl_metric_resolve("default, -none", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "'-none'") != NULL);
    CHECK(gl_metric_resolve("default, -", &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve("none, -smem_excess", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "'none' cannot be combined") != NULL);
    /* an error is said once, not once per pass over the list */
    CHECK(gl_metric_resolve("default,,-smem_excess", &req, err, sizeof err) == -1);
    const char *e1 = strstr(err, "empty entry");
    CHECK(e1 != NULL && strstr(e1 + 1, "empty entry") == NULL);
    CHECK(gl_metric_resolve("defualt, -smem_excess", &req, err, sizeof err) == -1);
    const char *e2 = strstr(err, "'defualt'");
    CHECK(e2 != NULL && strstr(e2 + 1, "'defualt'") == NULL);
}

static void test_resolve_errors(void)
{
    struct gl_metric_req req;
    char err[1024];
    CHECK(gl_metric_resolve("defualt", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "'defualt'") != NULL);
    CHECK(req.n == 0 && req.drain == 0);   /* nothing half-filled */
    CHECK(gl_metric_resolve("default, dram__bytes_read, sm__x.sum, lts bytes", &req, err,
                            sizeof err) == -1);
    CHECK(strstr(err, "'dram__bytes_read'") != NULL);
    CHECK(strstr(err, "'lts bytes'") != NULL);
    CHECK(strstr(err, "sm__x.sum") == NULL);   /* well-formed: left to the GPU to judge */
    CHECK(req.n == 0);
    CHECK(gl_metric_resolve("none, default", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "none") != NULL);
    CHECK(gl_metric_resolve("", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "empty") != NULL);
    CHECK(gl_metric_resolve("   ", &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve(NULL, &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve("default,,full", &req, err, sizeof err) == -1);
    CHECK(strstr(err, "empty") != NULL);
    CHECK(gl_metric_resolve("default,", &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve("gpulab__dram__bytes_write_drain.max", &req, err, sizeof err) == -1);
    CHECK(gl_metric_resolve("DEFAULT", &req, err, sizeof err) == -1);   /* set names are exact */
    CHECK(strstr(err, "'DEFAULT'") != NULL);

    /* more names than a result holds (the drain needs a slot too) */
    char spec[8192] = "";
    for (int i = 0; i < GL_MAX_METRICS; i++) {
        char one[64];
        snprintf(one, sizeof one, "%ssm__metric_%d.sum", i ? "," : "", i);
        strcat(spec, one);
    }
    CHECK(gl_metric_resolve(spec, &req, err, sizeof err) == 0 && req.n == GL_MAX_METRICS);
    strcat(spec, ",default");
    CHECK(gl_metric_resolve(spec, &req, err, sizeof err) == -1);
    CHECK(strstr(err, "too many") != NULL && req.n == 0);
    /* a small err buffer is truncated, never overrun */
    char small[16];
    CHECK(gl_metric_resolve("bad name", &req, small, sizeof small) == -1);
    CHECK(strlen(small) < sizeof small);
}

static void test_suggest(const char *const *known, int n)
{
    const char *out[5];
    CHECK(gl_metric_suggest("dram__bytes_writes.sum", known, n, out, 3) == 3);
    CHECK_STR(out[0], "dram__bytes_write.sum");
    CHECK(gl_metric_suggest("lts__t_sector_hitrate.pct", known, n, out, 3) == 3);
    CHECK_STR(out[0], "lts__t_sector_hit_rate.pct");
    CHECK(gl_metric_suggest("sm__warps_actve.avg.pct_of_peak_sustained_active", known, n, out,
                            1) == 1);
    CHECK_STR(out[0], "sm__warps_active.avg.pct_of_peak_sustained_active");
    CHECK(gl_metric_suggest("gpu__time_duraton.sum", known, n, out, 5) == 5);
    CHECK_STR(out[0], "gpu__time_duration.sum");
    for (int i = 1; i < 5; i++)   /* nearest first */
        CHECK(gl_edit_distance("gpu__time_duraton.sum", out[i - 1]) <=
              gl_edit_distance("gpu__time_duraton.sum", out[i]));
    static const char *const few[] = { "aa__b.sum", "aa__c.sum", "zz__yyyyy.avg" };
    CHECK(gl_metric_suggest("aa__d.sum", few, 3, out, 5) == 3);
    CHECK_STR(out[0], "aa__b.sum");   /* tie: earlier first */
    CHECK_STR(out[1], "aa__c.sum");
    CHECK_STR(out[2], "zz__yyyyy.avg");
    CHECK(gl_metric_suggest("aa__d.sum", few, 0, out, 3) == 0);
    CHECK(gl_metric_suggest("aa__d.sum", few, 3, out, 0) == 0);
    CHECK(gl_metric_suggest(NULL, few, 3, out, 3) == 0);
}

/* Every CUPTI metric of the table is a name GH100 knows. */
static void test_known_on_gh100(const char *const *known, int n)
{
    CHECK(n > 10000);
    for (int i = 0; i < gl_metric_count; i++) {
        const struct gl_metric_def *d = &gl_metric_table[i];
        if (d->derived) {
            CHECK(!in_list(d->name, known, n));
            continue;
        }
        if (!in_list(d->name, known, n))
            printf("not in the GH100 list: %s\n", d->name);
        CHECK(in_list(d->name, known, n));
    }
    /* every name in the list passes the shape check and fits a struct
     * gl_metric (GL_METRIC_NAME); a longer one would be refused, not cut */
    int bad = 0, toolong = 0;
    for (int i = 0; i < n; i++) {
        if (strlen(known[i]) >= GL_METRIC_NAME) {
            toolong++;
            CHECK(!gl_metric_name_ok(known[i]));
        } else if (!gl_metric_name_ok(known[i]) && bad++ < 5) {
            printf("shape rejects a GH100 name: %s\n", known[i]);
        }
    }
    CHECK(bad == 0);
    if (toolong)
        printf("%d of %d GH100 names are too long for GL_METRIC_NAME (%d)\n", toolong, n,
               GL_METRIC_NAME);
    CHECK(toolong == 0);
}

/* The SQL of db/ names no metric: the `results` columns are expanded from this
 * table when the store opens a file (tests/test_store.c checks that view). */
static void test_views(void)
{
    glob_t g;
    int files = 0;
    if (glob("db/*.sql", 0, NULL, &g) == 0) {
        glob("db/migrations/*.sql", GLOB_APPEND, NULL, &g);
        for (size_t f = 0; f < g.gl_pathc; f++) {
            char *sql = read_file(g.gl_pathv[f]);
            if (!sql)
                continue;
            files++;
            for (int i = 0; i < gl_metric_count; i++)
                if (!CHECK(strstr(sql, gl_metric_table[i].name) == NULL))
                    printf("%s spells out %s\n", g.gl_pathv[f], gl_metric_table[i].name);
            free(sql);
        }
        globfree(&g);
    }
    if (files == 0)
        printf("note: no db/*.sql, not checked\n");
    CHECK(files == 0 || files >= 3);
}

/* bench/ncu_agree compares the default set column by column: its map must be
 * the table's. */
static void test_bench_map(void)
{
    char *sh = read_file("bench/ncu_agree");
    if (!sh) {
        printf("note: bench/ncu_agree absent, its metric map not checked\n");
        return;
    }
    for (int i = 0; i < gl_metric_count; i++) {
        const struct gl_metric_def *d = &gl_metric_table[i];
        if (d->set != GL_SET_DEFAULT || d->derived)
            continue;
        char pair[160];
        snprintf(pair, sizeof pair, "%s:%s", d->column, d->name);
        if (!strstr(sh, pair))
            printf("bench/ncu_agree lacks %s\n", pair);
        CHECK(strstr(sh, pair) != NULL);
    }
    free(sh);
}

int main(void)
{
    test_table();
    test_name_shape();
    test_match();
    test_resolve_sets();
    test_resolve_exclude();
    test_resolve_errors();
    char *buf = NULL;
    int n = 0;
    const char **known = load_names("tests/data/gh100_metrics.txt", &buf, &n);
    if (CHECK(known != NULL && n > 0)) {
        test_suggest(known, n);
        test_known_on_gh100(known, n);
    }
    free(known);
    free(buf);
    test_views();
    test_bench_map();
    return t_done("metrics");
}
