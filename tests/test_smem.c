/* test_smem.c - the exact shared-memory conflicts from per-instruction SASS
 * records (src/core/smem_excess.c): hand-made records (grouping by module,
 * function and PC whatever the order, repeated records adding up, loads vs
 * stores vs other shared instructions, the refusals), then the records an H100
 * gave for bench/smem_probe's kernels (tests/data/h100_smem_records.tsv) against
 * the excess their access patterns imply. Must not need a GPU. Run from the
 * repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smem_excess.h"
#include "t.h"

static struct gl_smem_record rec(uint32_t cubin, uint32_t fn, uint32_t pc, int kind,
                                 unsigned long long v)
{
    struct gl_smem_record r = { cubin, fn, pc, kind, v };
    return r;
}

static void test_synthetic(void)
{
    struct gl_smem_totals t;
    char err[256];

    /* nothing: all zero, no instruction */
    CHECK(gl_smem_excess(NULL, 0, &t, err, sizeof err) == 0);
    CHECK(t.excess[GL_SMEM_LD] == 0 && t.excess[GL_SMEM_ST] == 0);
    CHECK(t.instructions[GL_SMEM_LD] == 0 && t.instructions[GL_SMEM_ST] == 0);

    /* a 32-way load (32 wavefronts for 1), a clean store, a 2-way 128-bit load
     * (8 for 4), an atomic; shuffled, and two functions sharing PC offsets */
    struct gl_smem_record r[] = {
        rec(7, 0, 0x5c0, GL_SMEM_IDEAL, 100),
        rec(7, 0, 0x440, GL_SMEM_INST_ST, 100),
        rec(7, 0, 0x5c0, GL_SMEM_WAVEFRONTS, 3200),
        rec(7, 1, 0x5c0, GL_SMEM_WAVEFRONTS, 80),   /* function 1: LDS.128, 2-way */
        rec(7, 0, 0x440, GL_SMEM_WAVEFRONTS, 100),
        rec(7, 0, 0x5c0, GL_SMEM_INST_LD, 100),
        rec(7, 1, 0x5c0, GL_SMEM_IDEAL, 40),
        rec(7, 0, 0x440, GL_SMEM_IDEAL, 100),
        rec(7, 1, 0x5c0, GL_SMEM_INST_LD, 10),
        rec(7, 1, 0x600, GL_SMEM_WAVEFRONTS, 9),    /* an ATOMS: neither */
        rec(7, 1, 0x600, GL_SMEM_IDEAL, 9),
        rec(9, 0, 0x440, GL_SMEM_INST_ST, 5),       /* another module, same function and PC */
        rec(9, 0, 0x440, GL_SMEM_WAVEFRONTS, 10),
        rec(9, 0, 0x440, GL_SMEM_IDEAL, 5),
        rec(7, 0, 0x700, GL_SMEM_INST_LD, 3),       /* an executed load with no wavefront */
    };
    CHECK(gl_smem_excess(r, sizeof r / sizeof r[0], &t, err, sizeof err) == 0);
    CHECK(t.excess[GL_SMEM_LD] == 3100 + 40);
    CHECK(t.excess[GL_SMEM_ST] == 5);
    CHECK(t.wavefronts[GL_SMEM_LD] == 3280 && t.ideal[GL_SMEM_LD] == 140);
    CHECK(t.executed[GL_SMEM_LD] == 113 && t.executed[GL_SMEM_ST] == 105);
    CHECK(t.instructions[GL_SMEM_LD] == 3 && t.instructions[GL_SMEM_ST] == 2);
    CHECK(t.other_wavefronts == 9 && t.other_instructions == 1);
    CHECK(err[0] == '\0');

    /* a kind given twice for one instruction (two flushes of one run) adds up */
    struct gl_smem_record twice[] = {
        rec(1, 0, 16, GL_SMEM_WAVEFRONTS, 64), rec(1, 0, 16, GL_SMEM_IDEAL, 2),
        rec(1, 0, 16, GL_SMEM_INST_LD, 2),     rec(1, 0, 16, GL_SMEM_WAVEFRONTS, 64),
        rec(1, 0, 16, GL_SMEM_IDEAL, 2),       rec(1, 0, 16, GL_SMEM_INST_LD, 2),
    };
    CHECK(gl_smem_excess(twice, 6, &t, err, sizeof err) == 0);
    CHECK(t.excess[GL_SMEM_LD] == 124 && t.executed[GL_SMEM_LD] == 4 && t.instructions[GL_SMEM_LD] == 1);

    /* refusals: fewer wavefronts than ideal, a load that is a store, an unknown kind */
    struct gl_smem_record below[] = {
        rec(1, 2, 0x80, GL_SMEM_WAVEFRONTS, 3), rec(1, 2, 0x80, GL_SMEM_IDEAL, 4),
        rec(1, 2, 0x80, GL_SMEM_INST_LD, 4),
    };
    CHECK(gl_smem_excess(below, 3, &t, err, sizeof err) == -1);
    CHECK(strstr(err, "0x80") && strstr(err, "fewer than its ideal 4"));
    struct gl_smem_record both[] = {
        rec(1, 0, 8, GL_SMEM_INST_LD, 1), rec(1, 0, 8, GL_SMEM_INST_ST, 1),
        rec(1, 0, 8, GL_SMEM_WAVEFRONTS, 1), rec(1, 0, 8, GL_SMEM_IDEAL, 1),
    };
    CHECK(gl_smem_excess(both, 4, &t, err, sizeof err) == -1);
    CHECK(strstr(err, "load and as a shared store") != NULL);
    struct gl_smem_record odd[] = { rec(1, 0, 8, GL_SMEM_NKINDS, 1) };
    CHECK(gl_smem_excess(odd, 1, &t, err, sizeof err) == -1);
    CHECK(strstr(err, "unknown kind") != NULL);
    char small[8];
    CHECK(gl_smem_excess(below, 3, &t, small, sizeof small) == -1 && strlen(small) < sizeof small);

    /* the metric names the engine asks CUPTI for */
    CHECK_STR(gl_smem_sass_metric[GL_SMEM_WAVEFRONTS], "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
    CHECK_STR(gl_smem_sass_metric[GL_SMEM_IDEAL], "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
}

/* The excess each probe kernel's access pattern implies, loads and stores: warp
 * instructions times (wavefronts needed - ideal). The transposes at N = 8192 have
 * N*N/32 = 2 097 152 warp instructions per direction; the micro kernels 8192
 * (1024 blocks of 8 warps, one access each). */
static const struct {
    const char *label;
    double ld, st;
} want[] = {
    { "tiled32", 31.0 * 2097152, 0 },           /* column read: 32 lanes on one bank */
    { "padded32", 0, 0 },
    { "tiled16", 7.0 * 2097152, 0 },            /* 8-way: two rows of 16 on 4 banks */
    { "padded16", 2097152, 2097152 },           /* 2-way both ways */
    { "padded16_twice", 2.0 * 2097152, 2.0 * 2097152 },
    { "mm_shared8", 0, 0 },                     /* its LDS.128 take 2 wavefronts, ideal 2 */
    { "lib_tiled32", 31.0 * 2097152, 0 },       /* the cubin of a user's kernel */
    { "lib_padded32", 0, 0 },
    { "tiled32_then_padded32", 31.0 * 2097152, 0 },   /* two functions, the same PCs */
    { "ld32", 0, 0 },   { "ld64", 0, 0 },   { "ld128", 0, 0 },
    { "ld64_half", 0, 0 },  { "ld128_half", 0, 0 },  { "ld128_quarter", 0, 0 },
    { "ld32_one", 0, 0 },   { "ld128_bcast", 0, 0 }, { "ld32_bcast", 0, 0 },
    { "ld32_2way", 8192, 0 },                   /* 2 for 1 */
    { "ld32_32way", 31.0 * 8192, 0 },
    { "ld64_2way", 2.0 * 8192, 0 },             /* 4 for 2 */
    { "ld128_2way", 4.0 * 8192, 0 },            /* 8 for 4 */
    { "st32", 0, 0 },   { "st64", 0, 0 },   { "st128", 0, 0 },
    { "st32_same", 0, 0 },  { "st64_half", 0, 0 },
    { "st32_32way", 0, 31.0 * 8192 },
    { "st128_2way", 0, 4.0 * 8192 },
};
#define NWANT ((int)(sizeof want / sizeof want[0]))

static int kind_of(const char *metric)
{
    for (int k = 0; k < GL_SMEM_NKINDS; k++)
        if (strcmp(metric, gl_smem_sass_metric[k]) == 0)
            return k;
    return -1;
}

static void test_h100_records(void)
{
    const char *path = "tests/data/h100_smem_records.tsv";
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    static struct gl_smem_record r[NWANT][256];
    int n[NWANT] = { 0 };
    char line[512];
    int lines = 0, used = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char label[64], fn[128], metric[128];
        unsigned crc, fidx, pc;
        unsigned long long v;
        if (sscanf(line, "%63[^\t]\t%u\t%u\t%127[^\t]\t%u\t%127[^\t]\t%llu", label, &crc, &fidx, fn,
                   &pc, metric, &v) != 7)
            continue;
        lines++;
        int k = kind_of(metric);
        for (int i = 0; i < NWANT && k >= 0; i++)
            if (strcmp(label, want[i].label) == 0 && n[i] < 256) {
                r[i][n[i]++] = rec(crc, fidx, pc, k, v);
                used++;
            }
    }
    fclose(f);
    CHECK(lines > 400);
    for (int i = 0; i < NWANT; i++) {
        struct gl_smem_totals t;
        char err[256];
        int ok = n[i] > 0 && gl_smem_excess(r[i], (size_t)n[i], &t, err, sizeof err) == 0;
        if (!CHECK(ok)) {
            printf("  %s: %d records %s\n", want[i].label, n[i], n[i] ? err : "");
            continue;
        }
        if (!CHECK(t.excess[GL_SMEM_LD] == want[i].ld && t.excess[GL_SMEM_ST] == want[i].st))
            printf("  %s: excess ld %.0f st %.0f, want %.0f %.0f\n", want[i].label,
                   t.excess[GL_SMEM_LD], t.excess[GL_SMEM_ST], want[i].ld, want[i].st);
        /* every kernel here loads and stores shared memory; none does anything else */
        CHECK(t.instructions[GL_SMEM_LD] > 0 && t.instructions[GL_SMEM_ST] > 0);
        CHECK(t.other_instructions == 0);
    }
    /* the transposes: one warp instruction per 32 elements each way */
    struct gl_smem_totals t;
    char err[256];
    CHECK(gl_smem_excess(r[0], (size_t)n[0], &t, err, sizeof err) == 0);
    CHECK(t.executed[GL_SMEM_LD] == 2097152 && t.executed[GL_SMEM_ST] == 2097152);
    CHECK(t.wavefronts[GL_SMEM_LD] == 32.0 * 2097152 && t.ideal[GL_SMEM_LD] == 2097152);
    CHECK(used > 300);
}

int main(void)
{
    test_synthetic();
    test_h100_records();
    return t_done("test_smem");
}
