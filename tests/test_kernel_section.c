/* test_kernel_section.c - kernel sections (src/config/config_kernel.c) and the driver's
 * side of a user kernel variant (src/registry/kernel_variant.c): every key read into
 * struct gl_kernel / gl_kernel_variant, named parameters, the source's hash
 * (the user headers it includes, in subfolders and -I folders, and nothing
 * else), `options` and `compiler`, every error path with its "path:line:"
 * prefix and suggestion, the per-point check against static and device
 * limits, counts, name expressions, -D lists, 16-bit buffers and scalars,
 * verify_reads and what a C reference is handed (experiments/cref.c: its
 * parameters and the key of its expected outputs).
 * Writes its kernel files into a temporary folder. Must not compile or run a
 * kernel (the GPU plugin does; tests/integration/kernels.sh covers that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cref.h"
#include "deps.h"
#include "kernel_variant.h"
#include "t.h"

static char dir[256], path[512];
static struct gl_config cfg;
static char err[4096];

static const char *kernel_cu =
    "#include \"tile.h\"\n"
    "__global__ void copy(float *out, const float *in, int n) { }\n"
    "template <int T, int R>\n"
    "__global__ void __launch_bounds__(256) transpose_tiled(float *out, const float *in, int n) "
    "{ }\n"
    "__global__ void naive(float *out, const float *in, int n) { }\n";

static void write_file(const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0) {
        printf("FAIL cannot write %s\n", p);
        exit(1);
    }
    fclose(f);
}

static int parse(const char *text)
{
    err[0] = '\0';
    return gl_config_parse(path, text, &cfg, err, sizeof err);
}

/* A complete section; each error test replaces one line of it. */
#define HEAD "study = t\n[tr]\nsource = k.cu\n"   /* lines 1-3 */
#define BODY                                                                        \
    "family = transpose\n"                                          /* 4 */        \
    "variants = copy, naive, tiled = transpose_tiled<TILE, BLOCK_ROWS>\n" /* 5 */   \
    "N = 1024, 2048\n"                                              /* 6 */        \
    "TILE = 16, 32\n"                                               /* 7 */        \
    "BLOCK_ROWS = 8\n"                                              /* 8 */        \
    "defines = TILE\n"                                              /* 9 */        \
    "buffer.in = float[N*N] random\n"                               /* 10 */       \
    "buffer.out = float[N*N] output\n"                              /* 11 */       \
    "args = out, in, int N\n"                                       /* 12 */       \
    "grid = ceil(N/TILE), cdiv(N, TILE)\n"                          /* 13 */       \
    "block = TILE, BLOCK_ROWS\n"                                    /* 14 */       \
    "verify = naive\n"                                              /* 15 */       \
    "bytes = 8*N*N\n"                                               /* 16 */

/* BODY with line `line` (4..16) replaced by repl (NULL: dropped). */
static const char *body_with(int line, const char *repl)
{
    static char buf[4096];
    const char *b = BODY;
    buf[0] = '\0';
    for (int l = 4; *b; l++) {
        const char *nl = strchr(b, '\n');
        size_t n = (size_t)(nl - b) + 1;
        if (l != line)
            strncat(buf, b, n);
        else if (repl)
            strcat(strcat(buf, repl), "\n");
        b += n;
    }
    return buf;
}

static int fails_with(const char *text, int line, const char *n1, const char *n2, int at)
{
    char prefix[600];
    int ok = parse(text) == -1;
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    ok = ok && strncmp(err, prefix, strlen(prefix)) == 0;
    ok = ok && (!n1 || strstr(err, n1)) && (!n2 || strstr(err, n2));
    if (!ok)
        printf("  line %d: got [%s], want [%s] with [%s] [%s]\n", at, err, prefix, n1 ? n1 : "",
               n2 ? n2 : "");
    CHECK(cfg.nsections == 0 && cfg.text == NULL);
    return ok;
}
#define FAILS(text, line, n1, n2) CHECK(fails_with(text, line, n1, n2, __LINE__))

static char text[8192];
static const char *with(int line, const char *repl, const char *extra)
{
    snprintf(text, sizeof text, HEAD "%s%s", body_with(line, repl), extra ? extra : "");
    return text;
}

static void test_every_key(void)
{
    const char *t =
        HEAD BODY
        "buffer.acc = int64[1] const(2.5) output\n"     /* 17 */
        "buffer.idx = uint[N] ramp\n"                   /* 18 */
        "buffer.z = double[N] zero\n"                   /* 19 */
        "buffer.r2 = float[N]\n"                        /* 20 */
        "smem = TILE*(TILE+1)*4\n"                      /* 21 */
        "tolerance = 1e-5\n"                            /* 22 */
        "flops = 0\n"                                   /* 23 */
        "where = TILE >= BLOCK_ROWS\n"                  /* 24 */
        "samples_min = 3\n"
        "metrics = none\n";
    /* every buffer must be passed: replace the args line */
    char full[4096];
    snprintf(full, sizeof full, "%s", t);
    char *a = strstr(full, "args = out, in, int N\n");
    const char *newargs = "args = out, in, acc, idx, z, r2, int64 N*2, uint TILE, double 1\n";
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", a + strlen("args = out, in, int N\n"));
    snprintf(a, sizeof full - (size_t)(a - full), "%s%s", newargs, rest);
    if (!CHECK(parse(full) == 0)) {
        printf("  %s\n", err);
        return;
    }
    CHECK(cfg.nsections == 1);
    const struct gl_section *s = &cfg.sections[0];
    const struct gl_kernel *k = s->kernel;
    CHECK(k != NULL && s->kvs != NULL);
    if (!k)
        return;
    CHECK(strstr(k->source, "/k.cu") && k->source_line == 3);
    CHECK(k->text && strstr(k->text, "transpose_tiled"));
    CHECK(strlen(k->hash) == 64);
    CHECK_STR(s->family, "transpose");
    CHECK(s->nvariants == 3);
    CHECK_STR(s->kvs[0].name, "copy");
    CHECK_STR(s->kvs[0].expr, "copy");
    CHECK_STR(s->kvs[2].name, "tiled");
    CHECK_STR(s->kvs[2].expr, "transpose_tiled<TILE, BLOCK_ROWS>");
    CHECK_STR(s->kvs[2].family, "transpose");
    CHECK(s->kvs[2].k == k);
    CHECK(gl_section_variant(s, 2) == &s->kvs[2].v);
    CHECK_STR(s->kvs[2].v.device, "gpu");
    CHECK_STR(s->kvs[2].v.desc, "transpose_tiled<TILE, BLOCK_ROWS>");
    CHECK(gl_kernel_variant_of(&s->kvs[2].v) == &s->kvs[2]);
    CHECK(gl_kernel_variant_of(gl_variant_find("vecadd", "seq")) == NULL);
    CHECK(s->kvs[2].v.params ==
          (GL_PBIT(GL_P_N) | GL_PBIT(GL_P_SEED) | GL_PBIT(GL_P_CACHE)));
    /* verify: naive is the reference of the others, itself has none */
    CHECK_STR(k->verify, "naive");
    CHECK(s->kvs[0].reference == &s->kvs[1] && s->kvs[1].reference == NULL &&
          s->kvs[2].reference == &s->kvs[1]);
    CHECK(k->tolerance == 1e-5);
    CHECK(!k->all_defines && k->ndefines == 1 && strcmp(k->defines[0], "TILE") == 0);
    CHECK(k->nbuffers == 6);
    CHECK_STR(k->buffers[0].name, "in");
    CHECK(k->buffers[0].type == GL_KT_FLOAT && k->buffers[0].init == GL_KI_RANDOM &&
          !k->buffers[0].output && k->buffers[0].stream == 0 && k->buffers[0].line == 10);
    CHECK_STR(k->buffers[0].count, "N*N");
    CHECK(k->buffers[1].init == GL_KI_POISON && k->buffers[1].output);
    CHECK(k->buffers[2].type == GL_KT_INT64 && k->buffers[2].init == GL_KI_CONST &&
          k->buffers[2].value == 2.5 && k->buffers[2].output);
    CHECK(k->buffers[3].type == GL_KT_UINT && k->buffers[3].init == GL_KI_RAMP);
    CHECK(k->buffers[4].type == GL_KT_DOUBLE && k->buffers[4].init == GL_KI_ZERO);
    CHECK(k->buffers[5].init == GL_KI_RANDOM && k->buffers[5].stream == 1);
    CHECK(k->nargs == 9);
    CHECK(k->args[0].buffer == 1 && k->args[1].buffer == 0 && k->args[5].buffer == 5);
    CHECK(k->args[6].buffer == -1 && k->args[6].type == GL_KT_INT64);
    CHECK_STR(k->args[6].expr, "N*2");
    CHECK(k->args[7].type == GL_KT_UINT && k->args[8].type == GL_KT_DOUBLE);
    CHECK(k->ngrid == 2 && k->nblock == 2);
    CHECK_STR(k->grid[0], "ceil(N/TILE)");
    CHECK_STR(k->grid[1], "cdiv(N, TILE)");
    CHECK_STR(k->block[1], "BLOCK_ROWS");
    CHECK_STR(k->smem, "TILE*(TILE+1)*4");
    CHECK_STR(k->flops, "0");
    CHECK_STR(k->bytes, "8*N*N");
    CHECK(s->nuser == 2 && strcmp(s->uname[0], "TILE") == 0 && s->uvalues[0].n == 2 &&
          s->uvalues[0].ints[1] == 32 && strcmp(s->uname[1], "BLOCK_ROWS") == 0);
    CHECK(s->nwhere == 1 && s->timing.min_samples == 3 && strcmp(s->metrics, "none") == 0);
    gl_config_free(&cfg);

    /* defines = all, no verify, family = the section's name */
    if (CHECK(parse(with(4, NULL, NULL)) == 0)) {
        CHECK_STR(cfg.sections[0].family, "tr");
        gl_config_free(&cfg);
    } else {
        printf("  %s\n", err);
    }
    if (CHECK(parse(with(9, "defines = all", NULL)) == 0)) {
        CHECK(cfg.sections[0].kernel->all_defines);
        gl_config_free(&cfg);
    } else {
        printf("  %s\n", err);
    }
}

static void test_hash(void)
{
    char h1[65], h2[65];
    CHECK(parse(with(0, NULL, NULL)) == 0);
    snprintf(h1, sizeof h1, "%s", cfg.sections[0].kernel->hash);
    gl_config_free(&cfg);
    /* a comment changes nothing */
    CHECK(parse(with(0, NULL, "# a comment\n")) == 0);
    CHECK_STR(cfg.sections[0].kernel->hash, h1);
    gl_config_free(&cfg);
    /* the section's text does */
    CHECK(parse(with(16, "bytes = 8*N*N + 0", NULL)) == 0);
    CHECK(strcmp(cfg.sections[0].kernel->hash, h1) != 0);
    gl_config_free(&cfg);
    /* a header beside the source does */
    write_file("tile.h", "#define X 2\n");
    CHECK(parse(with(0, NULL, NULL)) == 0);
    snprintf(h2, sizeof h2, "%s", cfg.sections[0].kernel->hash);
    CHECK(strcmp(h2, h1) != 0);
    gl_config_free(&cfg);
    /* and the source */
    char edited[2048];
    snprintf(edited, sizeof edited, "%s// edited\n", kernel_cu);
    write_file("k.cu", edited);
    CHECK(parse(with(0, NULL, NULL)) == 0);
    CHECK(strcmp(cfg.sections[0].kernel->hash, h2) != 0);
    gl_config_free(&cfg);
    write_file("k.cu", kernel_cu);
    write_file("tile.h", "#define X 1\n");
    CHECK(parse(with(0, NULL, NULL)) == 0);
    CHECK_STR(cfg.sections[0].kernel->hash, h1);
    gl_config_free(&cfg);
}

/* The hash covers the user headers the source includes (src/core/deps.h), in
 * subfolders and -I folders, and nothing else beside it. */
static void test_headers(void)
{
    char sub[400], h1[65], h2[65], h3[65];
    snprintf(sub, sizeof sub, "%s/inc/deep", dir);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s/extra'", sub, dir);
    if (!CHECK(system(cmd) == 0))
        return;
    write_file("hk.cu", "#include \"inc/util.cuh\"\n#include <cub/block/block_reduce.cuh>\n"
                        "#include <more.cuh>\n"
                        "__global__ void copy(float *out, const float *in, int n) { }\n");
    write_file("inc/util.cuh", "#pragma once\n#include \"deep/d.h\"\n#define U 1\n");
    write_file("inc/deep/d.h", "#include \"../util.cuh\"\n#define D 1\n");  /* a cycle */
    write_file("extra/more.cuh", "#define M 1\n");
    write_file("unrelated.h", "#define Z 1\n");
    const char *conf = "study = t\n[h]\nsource = hk.cu\noptions = -I extra --use_fast_math\n"
                       "variants = copy\nN = 64\nbuffer.out = float[N] output\n"
                       "args = out, out, int N\ngrid = 1\nblock = N\n";
    char t2[1024];
    snprintf(t2, sizeof t2, "%s", conf);
    if (!CHECK(parse(t2) == 0)) {
        printf("  %s\n", err);
        return;
    }
    const struct gl_kernel *k = cfg.sections[0].kernel;
    snprintf(h1, sizeof h1, "%s", k->hash);
    /* the scan itself: three user files, named from the config's folder */
    {
        const char *dirs[4];
        int nd = gl_kernel_include_dirs(k, dirs, 4);
        struct gl_deps d;
        char e[600];
        CHECK(nd == 1 && strstr(dirs[0], "/extra") && dirs[0][0] == '/');
        if (CHECK(gl_deps_scan(k->source, k->text, dirs, nd, k->config_dir, &d, e, sizeof e) ==
                  0)) {
            CHECK(d.n == 3);
            if (d.n == 3) {
                CHECK_STR(d.d[0].rel, "extra/more.cuh");
                CHECK_STR(d.d[1].rel, "inc/deep/d.h");
                CHECK_STR(d.d[2].rel, "inc/util.cuh");
            }
        } else {
            printf("  %s\n", e);
        }
        gl_deps_free(&d);
    }
    gl_config_free(&cfg);
    /* an unrelated header beside the source: the same hash */
    write_file("unrelated.h", "#define Z 2\n");
    CHECK(parse(t2) == 0);
    CHECK_STR(cfg.sections[0].kernel->hash, h1);
    gl_config_free(&cfg);
    /* a header two folders down, reached through another: a new hash for the
     * section that includes it, the same for one that does not */
    char two[2048], other[65];
    snprintf(two, sizeof two, "%s[o]\nsource = k.cu\nvariants = copy\nN = 64\n"
             "buffer.out = float[N] output\nargs = out, out, int N\ngrid = 1\nblock = N\n", conf);
    CHECK(parse(two) == 0 && cfg.nsections == 2);
    if (cfg.nsections == 2) {
        CHECK_STR(cfg.sections[0].kernel->hash, h1);
        snprintf(other, sizeof other, "%s", cfg.sections[1].kernel->hash);
    }
    gl_config_free(&cfg);
    write_file("inc/deep/d.h", "#include \"../util.cuh\"\n#define D 2\n");
    CHECK(parse(two) == 0 && cfg.nsections == 2);
    if (cfg.nsections == 2) {
        CHECK(strcmp(cfg.sections[0].kernel->hash, h1) != 0);
        CHECK_STR(cfg.sections[1].kernel->hash, other);
    }
    gl_config_free(&cfg);
    CHECK(parse(t2) == 0);
    snprintf(h2, sizeof h2, "%s", cfg.sections[0].kernel->hash);
    CHECK(strcmp(h2, h1) != 0);
    gl_config_free(&cfg);
    /* a header found through -I with <...> */
    write_file("extra/more.cuh", "#define M 2\n");
    CHECK(parse(t2) == 0);
    snprintf(h3, sizeof h3, "%s", cfg.sections[0].kernel->hash);
    CHECK(strcmp(h3, h2) != 0 && strcmp(h3, h1) != 0);
    gl_config_free(&cfg);
    /* the options are in it (a line of the section) */
    char t3[1024];
    snprintf(t3, sizeof t3, "%s", conf);
    char *o = strstr(t3, " --use_fast_math");
    memmove(o, o + 16, strlen(o + 16) + 1);
    CHECK(parse(t3) == 0 && strcmp(cfg.sections[0].kernel->hash, h3) != 0);
    gl_config_free(&cfg);
    /* a source that includes nothing of the user's: no dependency */
    {
        struct gl_deps d;
        char e[600], src[700];
        snprintf(src, sizeof src, "%s/k0.cu", dir);
        write_file("k0.cu", "#include <cuda/std/type_traits>\n#include \"nothere.h\"\n");
        CHECK(gl_deps_scan(src, NULL, NULL, 0, NULL, &d, e, sizeof e) == 0 && d.n == 0);
        gl_deps_free(&d);
    }
}

/* options = (shell words, include folders made absolute, gpulab's own options
 * refused) and compiler = nvrtc | nvcc; both part of the compile keys. */
static void test_options(void)
{
    const char *conf = "study = t\n[o]\nsource = k.cu\n"
                       "variants = copy\nN = 64\nbuffer.out = float[N] output\n"
                       "args = out, out, int N\ngrid = 1\nblock = N\n";   /* lines 1-9 */
    char t2[2048];
    snprintf(t2, sizeof t2, "%soptions = --use_fast_math  -maxrregcount=64 -I inc "
             "'-DNAME=a b' \"-DQ=\\\"x\\\"\" -Iinc/deep --include-path=extra\ncompiler = nvcc\n", conf);
    if (CHECK(parse(t2) == 0)) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        char want[1200];
        CHECK(k->noptions == 7 && k->options_line == 10 && k->compiler == GL_KC_NVCC &&
              k->compiler_line == 11);
        CHECK_STR(k->options[0], "--use_fast_math");
        CHECK_STR(k->options[1], "-maxrregcount=64");
        snprintf(want, sizeof want, "-I%s/inc", k->config_dir);
        CHECK_STR(k->options[2], want);
        CHECK_STR(k->options[3], "-DNAME=a b");
        CHECK_STR(k->options[4], "-DQ=\"x\"");
        snprintf(want, sizeof want, "-I%s/inc/deep", k->config_dir);
        CHECK_STR(k->options[5], want);
        snprintf(want, sizeof want, "-I%s/extra", k->config_dir);
        CHECK_STR(k->options[6], want);
        CHECK(strstr(k->options_text, "--use_fast_math") == k->options_text);
        /* the compile key names the compiler and the options */
        struct gl_params p;
        char key[4096];
        gl_params_init(&p);
        gl_params_set(&p, GL_P_N, 64);
        CHECK(gl_kernel_compile_key(&cfg.sections[0].kvs[0], &p, key, sizeof key) == 0 &&
              strstr(key, "|nvcc|--use_fast_math") && strstr(key, "|copy"));
        CHECK(gl_kernel_program_key(&cfg.sections[0].kvs[0], &p, key, sizeof key) == 0 &&
              !strstr(key, "|copy"));
        gl_config_free(&cfg);
    } else {
        printf("  %s\n", err);
    }
    /* the default compiler; no options */
    snprintf(t2, sizeof t2, "%s", conf);
    if (CHECK(parse(t2) == 0)) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        CHECK(k->compiler == GL_KC_NVRTC && k->noptions == 0 && k->options_text[0] == '\0' &&
              k->config_dir[0] == '/');
        gl_config_free(&cfg);
    }
    snprintf(t2, sizeof t2, "%soptions = -I nothere\n", conf);
    FAILS(t2, 10, "include folder 'nothere'", "No such file or directory");
    snprintf(t2, sizeof t2, "%soptions = -I k.cu\n", conf);
    FAILS(t2, 10, "include folder 'k.cu'", "Not a directory");
    snprintf(t2, sizeof t2, "%soptions = -O3 -arch=sm_80\n", conf);
    FAILS(t2, 10, "'-arch=sm_80' is gpulab's to set", NULL);
    snprintf(t2, sizeof t2, "%soptions = --gpu-architecture sm_80\n", conf);
    FAILS(t2, 10, "gpulab's to set", NULL);
    snprintf(t2, sizeof t2, "%soptions = -o x.cubin\n", conf);
    FAILS(t2, 10, "'-o' is gpulab's to set", NULL);
    snprintf(t2, sizeof t2, "%soptions = '-DX=1\n", conf);
    FAILS(t2, 10, "quote is not closed", NULL);
    snprintf(t2, sizeof t2, "%soptions = -I\n", conf);
    FAILS(t2, 10, "'-I' needs a folder", NULL);
    snprintf(t2, sizeof t2, "%scompiler = nvccc\n", conf);
    FAILS(t2, 10, "compiler = 'nvccc': unknown", "did you mean 'nvcc'?");
    /* kernel keys only in a kernel section */
    FAILS("study = t\noptions = -O3\n[o]\nfamily = vecadd\nvariants = seq\nN = 8\n", 2,
          "belongs in a kernel section", "this config has none");
}

static void test_errors(void)
{
    /* unknown keys: a typo of a known key, not a named parameter */
    FAILS(with(9, "defnes = TILE", NULL), 9, "unknown key 'defnes'", "did you mean 'defines'?");
    FAILS(with(0, NULL, "tolerence = 1e-5\n"), 17, "unknown key 'tolerence'",
          "did you mean 'tolerance'?");
    FAILS(with(0, NULL, "Block = 3\n"), 17, "unknown key 'Block'", "'block'");
    FAILS(with(0, NULL, "a-b = 3\n"), 17, "unknown key 'a-b'", NULL);
    /* args */
    FAILS(with(12, "args = outt, in, int N", NULL), 12,
          "args: 'outt' is not a buffer (buffers: in, out) nor 'TYPE EXPR'",
          "did you mean 'out'?");
    FAILS(with(12, "args = out, in, flot N", NULL), 12, "unknown type 'flot'",
          "did you mean 'float'?");
    FAILS(with(12, "args = out, in, flaot N", NULL), 12, "unknown type 'flaot'",
          "types: float, double, int, uint, int64, uint64, half, bfloat16, int8, uint8, fp8e4m3, fp8e5m2");
    FAILS(with(12, "args = out, in, int NN", NULL), 12, "unknown parameter 'NN'", NULL);
    FAILS(with(12, "args = out, int N", NULL), 10, "buffer 'in' is not passed", NULL);
    FAILS(with(12, NULL, NULL), 2, "has no 'args'", NULL);
    /* buffers */
    FAILS(with(10, "buffer.in = flot[N*N] random", NULL), 10, "unknown type 'flot'",
          "did you mean 'float'?");
    FAILS(with(10, "buffer.in = float[N*N] rnadom", NULL), 10, "unknown 'rnadom'",
          "did you mean 'random'?");
    FAILS(with(10, "buffer.in = float[N*N] const(x)", NULL), 10, "bad value 'x' in const(V)", NULL);
    FAILS(with(10, "buffer.in = float[N*N] random zero", NULL), 10, "two inits", NULL);
    FAILS(with(10, "buffer.in = float N*N", NULL), 10, "want TYPE[COUNT]", NULL);
    FAILS(with(10, "buffer.in = float[N*Q]", NULL), 10, "buffer.in 'N*Q'",
          "unknown parameter 'Q'");
    FAILS(with(0, NULL, "buffer.in = float[N]\n"), 17, "duplicate key 'buffer.in'", "line 10");
    /* a buffer may have a parameter's name (args tell them apart), unless -D passes it */
    FAILS(with(0, NULL, "buffer.N = float[N]\n"), 17, "buffer 'N' is not passed", NULL);
    FAILS(with(12, "args = out, in, TILE, int N", "buffer.TILE = float[N]\n"), 17,
          "buffer 'TILE' has the name of parameter TILE, which defines passes as -D TILE=...",
          "rename the buffer or leave TILE out of defines");
    /* source */
    FAILS("[tr]\nsource = nothere.cu\n" BODY, 2, "cannot read the kernel file", "nothere.cu");
    /* variants */
    FAILS(with(5, "variants = all", NULL), 5, "'all' means nothing in a kernel section", NULL);
    FAILS(with(5, "variants = copy, copy", NULL), 5, "listed twice", NULL);
    /* a template-id without NAME = is named after its template */
    FAILS(with(5, "variants = transpose_tiled<TILE, BLOCK_ROWS>", NULL), 15,
          "verify: unknown variant 'naive'", "transpose_tiled");
    /* a template named without its arguments: the hint */
    FAILS(with(5, "variants = copy, naive, transpose_tiled", NULL), 5,
          "'transpose_tiled' is a template", "transpose_tiled<T, R>");
    FAILS(with(5, "variants = copy, t = transpose_tiledd<TILE, BLOCK_ROWS>, naive", NULL), 5,
          "no function 'transpose_tiledd'", "did you mean 'transpose_tiled'?");
    FAILS(with(5, "variants = copy, t = xyzzy, naive", NULL), 5, "no function 'xyzzy'",
          "__global__ functions: copy, transpose_tiled, naive");
    FAILS(with(5, "variants = copy, t = f<TILE, naive", NULL), 5, "template-id", NULL);
    FAILS(with(5, NULL, NULL), 2, "has no 'variants'", NULL);
    /* verify, tolerance */
    FAILS(with(15, "verify = nave", NULL), 15, "verify: unknown variant 'nave'",
          "did you mean 'naive'?");
    FAILS(with(15, "verify = zzz", NULL), 15, "verify: unknown variant 'zzz'",
          "variants: copy, naive, tiled");
    FAILS(with(11, "buffer.out = float[N*N] zero", NULL), 15, "no buffer is marked 'output'",
          NULL);
    FAILS(with(0, NULL, "tolerance = much\n"), 17, "tolerance = 'much'", NULL);
    /* named and built-in parameters nothing reads */
    FAILS(with(0, NULL, "UNUSED = 1, 2\n"), 17, "named parameter 'UNUSED' is read by nothing",
          NULL);
    FAILS(with(0, NULL, "K = 2\n"), 17, "parameter 'K' is read by nothing", NULL);
    FAILS(with(0, NULL, "mem = device\n"), 17, "'mem' does not apply", NULL);
    FAILS(with(0, NULL, "min = 3\n"), 17, "'min' is a function", NULL);
    FAILS(with(0, NULL, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_ABCDEF = 1\n"), 17, "longer than 31", NULL);
    FAILS(with(6, NULL, NULL), 2, "reads N, which it does not set", NULL);
    /* shapes and counts */
    FAILS(with(13, NULL, NULL), 2, "has no 'grid'", NULL);
    FAILS(with(13, "grid = 1, 2, 3, 4", NULL), 13, "more than 3 dimensions", NULL);
    FAILS(with(13, "grid = ceil(N/TILEE)", NULL), 13, "unknown parameter 'TILEE'",
          "did you mean 'TILE'?");
    FAILS(with(13, "grid = floor(N/TILE)", NULL), 13, "unknown function 'floor'", NULL);
    FAILS(with(14, "block = TILE,", NULL), 14, "block: empty expression", NULL);
    FAILS(with(16, "bytes = 8*N*", NULL), 16, "bytes '8*N*'", NULL);
    FAILS(with(0, NULL, "smem = min(TILE)\n"), 17, "min takes two arguments", NULL);
    /* defines */
    FAILS(with(9, "defines = TILES", NULL), 9, "'TILES' is not an integer parameter",
          "did you mean 'TILE'?");
    FAILS(with(9, "defines = TILE, TILE", NULL), 9, "named twice", NULL);
    /* where and zip on named parameters */
    FAILS(with(0, NULL, "where = TILEX > 1\n"), 17, "unknown parameter 'TILEX'", "'TILE'");
    FAILS(with(0, NULL, "zip = TILE, BLOCK_ROWS\n"), 17, "TILE has 2 values but BLOCK_ROWS has 1",
          NULL);
    FAILS(with(0, NULL, "zip = TILE, BLOK_ROWS\n"), 17, "zip: unknown parameter 'BLOK_ROWS'",
          "did you mean 'BLOCK_ROWS'?");
    /* kernel keys outside kernel sections */
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 8\nblock = 32\n", 5,
          "'block' belongs in a kernel section", "[a] has no 'source ='");
    FAILS("args = x\n[a]\nfamily = vecadd\nvariants = seq\nN = 8\n", 1,
          "'args' belongs in a kernel section", NULL);
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 8\nTILE = 3\n", 5, "unknown key 'TILE'",
          NULL);
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 8\nseeed = 3\n", 5, "unknown parameter 'seeed'",
          "did you mean 'seed'?");
    /* the variant's name is a built-in variant of that family (a GPU one) */
    if (t_have_gpu_plugin()) {
        char t[2048];
        snprintf(t, sizeof t, HEAD "%s", body_with(5, "variants = global = copy"));
        char *f = strstr(t, "family = transpose");
        memcpy(f, "family = vecadd   ", 18);
        FAILS(t, 5, "'global' of family vecadd is a built-in variant", NULL);
    }
}

static void test_nesting(void)
{
    /* deep nesting in a where is an error, not a stack overflow (a launch
     * expression is short, GL_KEXPR, anyway): 20000 '(' and 80000 '!' */
    size_t n = 20000, m = 80000;
    char *deep = malloc(m + 64), *cfgtext = malloc(m + 4096);
    if (!CHECK(deep && cfgtext))
        return;
    memset(deep, '(', n);
    strcpy(deep + n, "TILE");
    memset(deep + n + 4, ')', n);
    deep[2 * n + 4] = '\0';
    snprintf(cfgtext, m + 4096, HEAD BODY "where = %s > 0\n", deep);
    FAILS(cfgtext, 17, "expression nested deeper than 256", NULL);
    memset(deep, '!', m);
    strcpy(deep + m, "1");
    snprintf(cfgtext, m + 4096, HEAD BODY "where = %s\n", deep);
    FAILS(cfgtext, 17, "expression nested deeper than 256", NULL);
    snprintf(cfgtext, m + 4096, HEAD "%s", body_with(13, "grid = ((((((((((N))))))))))"));
    if (CHECK(parse(cfgtext) == 0))
        gl_config_free(&cfg);
    free(cfgtext);
    free(deep);
}

/* ---- the variant's check, counts and keys ----------------------------------- */

static struct gl_device h100(void)
{
    struct gl_device d;
    memset(&d, 0, sizeof d);
    d.max_threads_per_block = 1024;
    d.max_block[0] = d.max_block[1] = 1024;
    d.max_block[2] = 64;
    d.max_grid[0] = 0x7fffffff;
    d.max_grid[1] = d.max_grid[2] = 65535;
    d.smem_per_block = 48 * 1024;
    d.smem_per_block_optin = 227 * 1024;
    d.mem_bytes = 80LL << 30;
    return d;
}

static const char *check_at(const char *grid, const char *block, const char *smem, long n,
                            long tile, const struct gl_device *dev)
{
    static char buf[GL_REASON_MAX];
    char t[4096];
    snprintf(t, sizeof t,
             "[s]\nsource = k.cu\nvariants = copy\nN = 1\nTILE = 1\n"
             "buffer.out = float[N] output\nargs = out, int N\ngrid = %s\nblock = %s\nsmem = %s\n"
             "where = TILE >= 0\n",
             grid, block, smem);
    if (parse(t) != 0) {
        printf("  check_at: %s\n", err);
        return "parse failed";
    }
    const struct gl_variant *v = gl_section_variant(&cfg.sections[0], 0);
    struct gl_params p;
    gl_params_init(&p);
    p.n = n;
    gl_params_user_set(&p, "TILE", tile);
    gl_variant_complete(v, &p);
    const char *why = v->check(v, &p, dev, buf, sizeof buf);
    gl_config_free(&cfg);
    return why;
}

static int has(const char *reason, const char *a)
{
    int ok = reason && strstr(reason, a);
    if (!ok)
        printf("  reason [%s], want [%s]\n", reason ? reason : "(none)", a);
    return ok;
}

static void test_check(void)
{
    struct gl_device d = h100();
    CHECK(check_at("ceil(N/TILE)", "TILE", "0", 1000, 32, NULL) == NULL);
    CHECK(check_at("N", "TILE, TILE", "0", 10, 32, NULL) == NULL);
    CHECK(has(check_at("N", "TILE, TILE", "0", 10, 64, NULL),
              "block of 4096 threads exceeds the device limit of 1024"));
    CHECK(has(check_at("N", "TILE", "0", 10, 2048, NULL), "block x = 2048 threads"));
    CHECK(has(check_at("N", "1, 1, TILE", "0", 10, 65, NULL), "block z = 65 threads"));
    CHECK(has(check_at("1, N", "TILE", "0", 65536, 32, NULL), "grid y = 65536 blocks"));
    CHECK(check_at("N", "TILE", "0", 65536, 32, NULL) == NULL);
    /* without a GPU: the target's opt-in maximum (sm_90's 227 KiB), not 48 KiB */
    CHECK(check_at("N", "TILE", "TILE*1024", 1, 49, NULL) == NULL);
    CHECK(has(check_at("N", "TILE", "TILE*1024", 1, 228, NULL),
              "dynamic shared memory of 233472 bytes exceeds the sm_90 limit of 232448"));
    CHECK(check_at("N", "TILE", "TILE*1024", 1, 49, &d) == NULL);
    CHECK(has(check_at("N", "TILE", "TILE*1024", 1, 228, &d), "limit of 232448"));
    CHECK(has(check_at("N/TILE", "32", "0", 10, 0, NULL), "division by zero"));
    CHECK(has(check_at("N/TILE", "32", "0", 10, 32, NULL), "grid N/TILE = 0 blocks"));
    CHECK(has(check_at("N", "TILE - 32", "0", 10, 32, NULL), "block TILE - 32 = 0 threads"));
    CHECK(has(check_at("N", "32", "-TILE", 10, 32, NULL), "smem -TILE = -32 bytes"));
    CHECK(has(check_at("1", "32", "0", 3000000000L, 1, NULL),
              "int N = 3000000000 does not fit in int"));
    CHECK(has(check_at("1", "32", "0", 0, 1, NULL), "buffer.out: N = 0 elements"));
    CHECK(has(check_at("1", "32", "0", 40000000000L, 1, &d), "more than the GPU's"));
}

static void test_counts_and_keys(void)
{
    if (!CHECK(parse(with(9, "defines = TILE, N", "flops = 2*N\n")) == 0)) {
        printf("  %s\n", err);
        return;
    }
    const struct gl_section *s = &cfg.sections[0];
    struct gl_params p;
    gl_params_init(&p);
    p.n = 1024;
    gl_params_user_set(&p, "TILE", 32);
    gl_params_user_set(&p, "BLOCK_ROWS", 8);
    const struct gl_variant *v = gl_section_variant(s, 2);
    gl_variant_complete(v, &p);
    CHECK(v->flops(v, &p) == 2048);
    CHECK(v->min_bytes(v, &p) == 8.0 * 1024 * 1024);
    char buf[512];
    CHECK(gl_kernel_name_expr(&s->kvs[2], &p, buf, sizeof buf) == 0);
    CHECK_STR(buf, "transpose_tiled<32, 8>");
    CHECK(gl_kernel_name_expr(&s->kvs[0], &p, buf, sizeof buf) == 0);
    CHECK_STR(buf, "copy");
    CHECK(gl_kernel_defines(&s->kvs[0], &p, buf, sizeof buf) == 0);
    CHECK_STR(buf, "-DTILE=32 -DN=1024");
    char k1[1024], k2[1024];
    CHECK(gl_kernel_compile_key(&s->kvs[2], &p, k1, sizeof k1) == 0);
    gl_params_user_set(&p, "BLOCK_ROWS", 4);
    CHECK(gl_kernel_compile_key(&s->kvs[2], &p, k2, sizeof k2) == 0);
    CHECK(strcmp(k1, k2) != 0);
    CHECK(gl_kernel_name_expr(&s->kvs[2], &p, buf, 10) == -1);
    gl_config_free(&cfg);
    /* absent flops: -1 (stored as NULL); defines = all */
    CHECK(parse(with(9, "defines = all", NULL)) == 0);
    s = &cfg.sections[0];
    v = gl_section_variant(s, 0);
    CHECK(v->flops(v, &p) == -1);
    gl_params_init(&p);
    p.n = 64;
    gl_params_user_set(&p, "TILE", 16);
    gl_params_user_set(&p, "BLOCK_ROWS", 8);
    gl_variant_complete(v, &p);
    CHECK(gl_kernel_defines(&s->kvs[0], &p, buf, sizeof buf) == 0);
    CHECK_STR(buf, "-DN=64 -Dseed=42 -DBLOCK_ROWS=8 -DTILE=16");
    gl_config_free(&cfg);
}

/* verify = c:FILE:FUNC: a C reference instead of a variant. */
static void test_verify_c(void)
{
    char want[700];
    write_file("ref.c", "int naive_ref(void) { return 0; }\n");
    write_file("libref.so", "not really a shared object\n");
    setenv("GPULAB_CACHE", dir, 1);
    CHECK(parse(with(15, "verify = c:ref.c:naive_ref", NULL)) == 0);
    if (cfg.nsections == 1) {
        const struct gl_section *s = &cfg.sections[0];
        const struct gl_kernel *k = s->kernel;
        snprintf(want, sizeof want, "%s/ref.c", dir);
        CHECK_STR(k->verify_c_path, want);
        CHECK_STR(k->verify_c_func, "naive_ref");
        CHECK_STR(k->verify, "");
        CHECK(k->verify_c_compile == 1 && k->verify_line == 15 && strlen(k->verify_c_hash) == 64);
        snprintf(want, sizeof want, "%s/cref2-%s.so", dir, k->verify_c_hash);
        CHECK_STR(k->verify_c_so, want);
        for (int i = 0; i < s->nvariants; i++)
            CHECK(s->kvs[i].reference == NULL);
    }
    char h1[65];
    snprintf(h1, sizeof h1, "%s", cfg.nsections ? cfg.sections[0].kernel->hash : "");
    gl_config_free(&cfg);
    /* editing the reference changes the kernel's hash (its points run again) */
    write_file("ref.c", "int naive_ref(void) { return 1; }\n");
    CHECK(parse(with(15, "verify = c:ref.c:naive_ref", NULL)) == 0);
    CHECK(cfg.nsections == 1 && strcmp(cfg.sections[0].kernel->hash, h1) != 0);
    gl_config_free(&cfg);
    /* a .so is used as is */
    CHECK(parse(with(15, "verify = c:libref.so:naive_ref", NULL)) == 0);
    if (cfg.nsections == 1) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        snprintf(want, sizeof want, "%s/libref.so", dir);
        CHECK_STR(k->verify_c_so, want);
        CHECK(k->verify_c_compile == 0);
    }
    gl_config_free(&cfg);
    /* mistakes */
    FAILS(with(15, "verify = c:nothere.c:naive_ref", NULL), 15,
          "verify: cannot read the C reference", "nothere.c");
    FAILS(with(15, "verify = c:ref.c", NULL), 15, "want c:FILE:FUNC", NULL);
    FAILS(with(15, "verify = c::naive_ref", NULL), 15, "want c:FILE:FUNC", NULL);
    FAILS(with(15, "verify = c:ref.c:2bad", NULL), 15, "want c:FILE:FUNC", NULL);
    FAILS(with(15, "verify = c:k.cu:naive_ref", NULL), 15, "neither a .c file nor a .so", NULL);
    with(15, "verify = c:ref.c:naive_ref", NULL);
    char *o = strstr(text, "] output\n");   /* no output: nothing to compare */
    if (o)
        memmove(o + 1, o + 8, strlen(o + 8) + 1);
    FAILS(text, 15, "no buffer is marked 'output'", NULL);
    unsetenv("GPULAB_CACHE");
}

/* half and bfloat16 buffers and scalars: read, sized two bytes, a half scalar
 * beyond 65504 rejected by the plan's check. */
/* int8, uint8 and fp8 buffers and scalars; output unordered; a kernel without
 * parameters needs no args; a kernel in an included header; a buffer named K. */
static void test_8bit_and_more(void)
{
    snprintf(text, sizeof text, HEAD "%s", body_with(12, "args = out, in, q, u, f, g, int N, int8 -3"));
    strcat(text, "buffer.q = int8[N] randint(-128, 128)\nbuffer.u = uint8[N] ramp\n"
                 "buffer.f = fp8e4m3[N] random\nbuffer.g = fp8e5m2[N] output unordered\n");
    CHECK(parse(text) == 0);
    if (cfg.nsections == 1) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        CHECK(k->nbuffers == 6 && k->buffers[2].type == GL_KT_INT8 &&
              k->buffers[3].type == GL_KT_UINT8 && k->buffers[4].type == GL_KT_FP8E4M3 &&
              k->buffers[5].type == GL_KT_FP8E5M2 && k->buffers[5].output &&
              k->buffers[5].unordered && !k->buffers[1].unordered);
        CHECK(k->nargs == 8 && k->args[7].type == GL_KT_INT8);
    }
    gl_config_free(&cfg);
    FAILS(with(10, "buffer.in = int8[N*N] randint(0, 300)", NULL), 10, "int8 holds -128 to 127",
          NULL);
    FAILS(with(11, "buffer.out = float[N*N] unordered output", NULL), 11,
          "'unordered' qualifies an output", NULL);
    FAILS(with(11, "buffer.out = float[N*N] output unorderd", NULL), 11, "unknown 'unorderd'",
          "did you mean 'unordered'?");
    /* a buffer named like a built-in parameter (K), passed by name */
    snprintf(text, sizeof text, HEAD "%s", body_with(12, "args = out, in, K, int N"));
    strcat(text, "buffer.K = float[N]\n");
    CHECK(parse(text) == 0);
    gl_config_free(&cfg);
    /* no args: only when no buffer must be passed */
    snprintf(text, sizeof text, "study = t\n[z]\nsource = k.cu\nvariants = copy\n"
             "symbol.c_out = float[4] output\ngrid = 1\nblock = 32\n");
    CHECK(parse(text) == 0);
    if (cfg.nsections == 1)
        CHECK(cfg.sections[0].kernel->nargs == 0 && cfg.sections[0].kernel->args_line == 2);
    gl_config_free(&cfg);
    FAILS(with(12, NULL, NULL), 2, "has no 'args'", "buffer 'in' (line 10) must be passed");
    /* a kernel defined in a header the source includes */
    write_file("hdr.cuh", "#pragma once\n__global__ void from_header(float *o) { }\n");
    write_file("hsrc.cu", "#include \"hdr.cuh\"\n__global__ void local(float *o) { }\n");
    snprintf(text, sizeof text, "study = t\n[h]\nsource = hsrc.cu\nvariants = from_header\n"
             "buffer.o = float[32] output\nargs = o\ngrid = 1\nblock = 32\n");
    CHECK(parse(text) == 0);
    gl_config_free(&cfg);
    snprintf(text, sizeof text, "study = t\n[h]\nsource = hsrc.cu\nvariants = from_headr\n"
             "buffer.o = float[32] output\nargs = o\ngrid = 1\nblock = 32\n");
    FAILS(text, 4, "no function 'from_headr'", "did you mean 'from_header'?");
}

/* array., texture., surface. and tensormap. lines as the config reader keeps them. */
static void test_objects(void)
{
    snprintf(text, sizeof text, HEAD "%s", body_with(12, "args = out, in, tm, tx, sf, tb, int N"));
    strcat(text, "array.img = half[N, 2*N] random\n"                                  /* 17 */
                 "array.dst = float[N, N, 4] output\n"                                /* 18 */
                 "tensormap.tm = in dims(N, N) box(TILE, 8) strides(4*N) swizzle(64B) "
                 "l2(256B) fill(nan) elem_strides(1, 2)\n"                             /* 19 */
                 "texture.tx = img filter(linear) address(wrap, border) coords(normalized)\n"
                 "surface.sf = dst\n"
                 "texture.tb = in\n");
    CHECK(parse(text) == 0);
    if (cfg.nsections == 1) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        CHECK(k->nbuffers == 4 && k->buffers[2].array && k->buffers[2].nextent == 2 &&
              strcmp(k->buffers[2].count, "(N)*(2*N)") == 0 && k->buffers[3].nextent == 3 &&
              k->buffers[3].output && !k->buffers[0].array);
        CHECK(k->nobjects == 4);
        const struct gl_kobject *tm = &k->objects[0], *tx = &k->objects[1];
        CHECK(tm->kind == GL_KO_TENSORMAP && tm->source == 0 && tm->rank == 2 &&
              strcmp(tm->dims[1], "N") == 0 && strcmp(tm->box[0], "TILE") == 0 &&
              strcmp(tm->strides[1], "4*N") == 0 && tm->swizzle == 2 && tm->l2 == 3 &&
              tm->fill == 1 && tm->elem_strides[1] == 2 && tm->dtype == -1 && tm->line == 19);
        CHECK(tx->kind == GL_KO_TEXTURE && tx->source == 2 && tx->filter == 1 &&
              tx->address[0] == 0 && tx->address[1] == 3 && tx->address[2] == 3 &&
              tx->normalized == 1 && tx->read_normalized == 0);
        CHECK(k->objects[2].kind == GL_KO_SURFACE && k->objects[2].source == 3 &&
              k->objects[3].source == 0);
        CHECK(k->nargs == 7 && k->args[2].object == 1 && k->args[2].buffer == -1 &&
              k->args[5].object == 4 && k->args[0].object == 0);
        /* per point: box TILE = 16 passes, TILE = 32 floats is 128 bytes > the 64B swizzle */
        const struct gl_variant *v = &cfg.sections[0].kvs[0].v;
        struct gl_params p;
        char buf[512];
        gl_params_init(&p);
        p.n = 64;
        gl_params_user_set(&p, "TILE", 16);
        gl_params_user_set(&p, "BLOCK_ROWS", 8);
        gl_variant_complete(v, &p);
        CHECK(v->check(v, &p, NULL, buf, sizeof buf) == NULL);
        gl_params_user_set(&p, "TILE", 32);
        const char *why = v->check(v, &p, NULL, buf, sizeof buf);
        CHECK(why && strstr(why, "tensormap.tm (line 19): box[0] = 32 elements of 4 bytes is 128 "
                            "bytes, more than the 64-byte span of swizzle(64B)"));
    }
    gl_config_free(&cfg);
    FAILS(with(12, "args = out, in, m, int N", "tensormap.m = inn dims(4) box(4)\n"), 17,
          "no buffer or array 'inn'", "did you mean 'in'?");
    FAILS(with(12, "args = out, in, m, int N", "array.img = float[N] random\n"
               "tensormap.m = img dims(4) box(4)\n"), 18, "a tensor map is over a buffer", NULL);
    FAILS(with(12, "args = out, in, in, int N", "texture.in = in\n"), 17,
          "'in' is a buffer's name too", NULL);
    FAILS(with(12, "args = out, in, m, int N", "tensormap.m = in dims(N, N) box(8)\n"), 17,
          "box has 1 sides but dims 2", NULL);
    FAILS(with(12, "args = out, in, m, int N", "tensormap.m = in dims(N, N) box(8, 8) "
               "type(flaot32)\n"), 17, "unknown data type 'flaot32'", "did you mean 'float32'?");
    FAILS(with(12, "args = out, in, t, int N", "array.a = double[N] random\ntexture.t = a\n"), 17,
          "a cudaArray holds float, half, int, uint, int8 or uint8 elements, not double", NULL);
    FAILS(with(12, "args = out, in, t, int N", "array.a = uint8[N] random\n"
               "texture.t = a filter(linear)\n"), 18, "unless read(normalized)", NULL);
}

static void test_16bit(void)
{
    snprintf(text, sizeof text, HEAD "%s", body_with(12, "args = out, in, w, b, int N, half TILE*1000, bfloat16 N"));
    strcat(text, "buffer.w = bfloat16[N] const(0.5)\nbuffer.b = bfloat16[N] output\n");
    char *in = strstr(text, "buffer.in = float[N*N]");
    if (in)
        memcpy(in, "buffer.in = half [N*N]", 22);
    CHECK(parse(text) == 0);
    if (cfg.nsections != 1)
        return;
    const struct gl_section *s = &cfg.sections[0];
    const struct gl_kernel *k = s->kernel;
    CHECK(k->nbuffers == 4 && k->buffers[0].type == GL_KT_HALF && k->buffers[2].type == GL_KT_BF16 &&
          k->buffers[2].init == GL_KI_CONST && k->buffers[2].value == 0.5 &&
          k->buffers[3].type == GL_KT_BF16 && k->buffers[3].output);
    CHECK(k->nargs == 7 && k->args[5].type == GL_KT_HALF && k->args[6].type == GL_KT_BF16);
    const struct gl_variant *v = &s->kvs[0].v;
    struct gl_params p;
    char buf[512];
    gl_params_init(&p);
    p.n = 64;
    gl_params_user_set(&p, "TILE", 16);
    gl_params_user_set(&p, "BLOCK_ROWS", 8);
    gl_variant_complete(v, &p);
    CHECK(v->check(v, &p, NULL, buf, sizeof buf) == NULL);   /* half 16000 fits */
    gl_params_user_set(&p, "TILE", 66);
    const char *why = v->check(v, &p, NULL, buf, sizeof buf);
    CHECK(why && strstr(why, "args: half TILE*1000 = 66000 is out of range for half"));
    gl_config_free(&cfg);
    FAILS(with(10, "buffer.in = hlf[N*N] random", NULL), 10, "unknown type 'hlf'",
          "did you mean 'half'?");
    FAILS(with(10, "buffer.in = bfloat61[N*N] random", NULL), 10, "unknown type 'bfloat61'",
          "did you mean 'bfloat16'?");
}

/* verify_reads: what a C reference reads counts as read (no `where` needed);
 * without it the reference reads every parameter; mistakes name file:line.
 * What the reference is handed (gl_cref_params) and the key of its expected
 * outputs (gl_cref_key) at points of the parsed section. */
static void test_verify_reads(void)
{
    write_file("ref.c", "int naive_ref(void) { return 0; }\n");
    setenv("GPULAB_CACHE", dir, 1);
    /* PER is read by nothing but the reference: without verify_reads it counts */
    CHECK(parse(with(15, "verify = c:ref.c:naive_ref", "PER = 3, 5\n")) == 0);
    if (cfg.nsections == 1) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        CHECK(k->verify_reads_all == 1 && k->nverify_reads == 0);
        CHECK(cfg.sections[0].kvs[0].v.params & GL_PBIT(GL_P_N));
    }
    gl_config_free(&cfg);
    /* a variant reference still finds PER read by nothing */
    FAILS(with(0, NULL, "PER = 3, 5\n"), 17, "named parameter 'PER' is read by nothing",
          "verify_reads");
    /* declared: PER and N (BLOCK_ROWS and TILE are read by the kernel, not the reference) */
    CHECK(parse(with(15, "verify = c:ref.c:naive_ref", "PER = 3, 5\nverify_reads = PER, N\n")) == 0);
    if (cfg.nsections == 1) {
        const struct gl_section *s = &cfg.sections[0];
        const struct gl_kernel *k = s->kernel;
        CHECK(k->verify_reads_all == 0 && k->nverify_reads == 1);
        CHECK_STR(k->verify_reads[0], "PER");
        CHECK(k->verify_reads_params == GL_PBIT(GL_P_N));
        /* what the reference is handed: PER and N, nothing else */
        struct gl_params p, q;
        gl_params_init(&p);
        p.n = 1024;
        p.seed = 7;
        gl_params_user_set(&p, "TILE", 16);
        gl_params_user_set(&p, "BLOCK_ROWS", 8);
        gl_params_user_set(&p, "PER", 3);
        gl_variant_complete(&s->kvs[0].v, &p);
        gl_cref_params(k, &p, &q);
        CHECK(q.n == 1024 && q.seed == GL_UNSET && q.bs == GL_UNSET && q.nuser == 1);
        CHECK(gl_param_value(&q, "PER") == 3 && gl_param_value(&q, "TILE") == GL_UNSET);
        /* the key: the reference, every buffer at the point, the seed, what it reads */
        char k1[GL_CREF_KEY_MAX], k2[GL_CREF_KEY_MAX], e[256];
        CHECK(gl_cref_key(k, &p, k1, sizeof k1, e, sizeof e) == 0);
        char want[2048];
        snprintf(want, sizeof want, "cref %s:naive_ref sha256=%s; buffers in=float[1048576] "
                 "random(stream 0), out=float[1048576] poison output, seed=7; reads N=1024 PER=3",
                 k->verify_c_so, k->verify_c_hash);
        CHECK_STR(k1, want);
        /* TILE and BLOCK_ROWS are not read: the same key; PER, N, seed are */
        struct gl_params p2 = p;
        gl_params_user_set(&p2, "TILE", 32);
        CHECK(gl_cref_key(k, &p2, k2, sizeof k2, e, sizeof e) == 0 && strcmp(k1, k2) == 0);
        gl_params_user_set(&p2, "PER", 5);
        CHECK(gl_cref_key(k, &p2, k2, sizeof k2, e, sizeof e) == 0 && strcmp(k1, k2) != 0);
        p2 = p;
        p2.seed = 8;
        CHECK(gl_cref_key(k, &p2, k2, sizeof k2, e, sizeof e) == 0 && strcmp(k1, k2) != 0);
        p2 = p;
        p2.n = 2048;
        CHECK(gl_cref_key(k, &p2, k2, sizeof k2, e, sizeof e) == 0 && strcmp(k1, k2) != 0);
        /* a key that does not fit */
        CHECK(gl_cref_key(k, &p, k2, 40, e, sizeof e) == -1 && strstr(e, "longer than 39"));
    }
    gl_config_free(&cfg);
    /* without verify_reads every parameter is in the key */
    snprintf(text, sizeof text, HEAD "%s", body_with(12, "args = out, in, c, int N"));
    strcat(text, "buffer.c = half[4] const(1.5) output\n");
    {
        char *v = strstr(text, "verify = naive");
        char tail[4096];
        if (v) {
            snprintf(tail, sizeof tail, "%s", v + strlen("verify = naive"));
            snprintf(v, sizeof text - (size_t)(v - text), "verify = c:ref.c:naive_ref%s", tail);
        }
    }
    CHECK(parse(text) == 0);
    if (cfg.nsections == 1) {
        const struct gl_section *s = &cfg.sections[0];
        struct gl_params p, q;
        char k1[GL_CREF_KEY_MAX], e[256];
        gl_params_init(&p);
        p.n = 64;
        gl_params_user_set(&p, "TILE", 16);
        gl_params_user_set(&p, "BLOCK_ROWS", 8);
        gl_variant_complete(&s->kvs[0].v, &p);
        gl_cref_params(s->kernel, &p, &q);
        CHECK(memcmp(&p, &q, sizeof p) == 0);
        CHECK(gl_cref_key(s->kernel, &p, k1, sizeof k1, e, sizeof e) == 0);
        CHECK(strstr(k1, " c=half[4] const(0x1.8p+0) output,") != NULL);
        CHECK(strstr(k1, "; reads N=64 seed=42 cache=cold BLOCK_ROWS=8 TILE=16") != NULL);
    }
    gl_config_free(&cfg);
    /* mistakes */
    FAILS(with(0, NULL, "verify_reads = N\n"), 17, "verify_reads: only a C reference",
          "variant 'naive'");
    FAILS(with(15, NULL, "verify_reads = N\n"), 16, "verify_reads: section [tr] has no C reference",
          NULL);
    FAILS(with(15, "verify = c:ref.c:naive_ref", "PER = 3\nverify_reads = PERR\n"), 18,
          "verify_reads: 'PERR' is not an integer parameter of section [tr]",
          "did you mean 'PER'?");
    FAILS(with(15, "verify = c:ref.c:naive_ref", "verify_reads = mem\n"), 17,
          "'mem' is not an integer parameter", NULL);
    FAILS(with(15, "verify = c:ref.c:naive_ref", "verify_reads = N, N\n"), 17, "'N' is named twice",
          NULL);
    FAILS(with(15, "verify = c:ref.c:naive_ref", "PER = 3\nverify_reads = N\n"), 17,
          "named parameter 'PER' is read by nothing", "verify_reads");
    FAILS(with(15, "verify = c:ref.c:naive_ref", "verify_read = N\n"), 17,
          "unknown key 'verify_read'", "did you mean 'verify_reads'?");
    unsetenv("GPULAB_CACHE");
}

/* The inits of step 14 (config_kinit.c) and symbols: what reads, and each
 * mistake's file:line error. */
static void test_inits_symbols(void)
{
    /* what reads */
    if (CHECK(parse(with(12, "args = out, in, ids, w, r, int N",
                         "buffer.ids = int[N] randint(0, TILE)\nbuffer.w = half[N] normal(0, 0.02)\n"
                         "buffer.r = float[N] random(-1, 3)\n"
                         "symbol.c_taps = float[17] const(0.5)\nsymbol.ns::d_count = uint[1] zero output\n")) == 0)) {
        const struct gl_kernel *k = cfg.sections[0].kernel;
        CHECK(k->nbuffers == 7);
        CHECK(!k->buffers[0].symbol && k->buffers[0].init == GL_KI_RANDOM &&
              k->buffers[0].value == 0 && k->buffers[0].value2 == 1 && k->buffers[0].stream == 0);
        CHECK(k->buffers[2].init == GL_KI_RANDINT && strcmp(k->buffers[2].bound[1], "TILE") == 0 &&
              k->buffers[2].value == 0 && k->buffers[2].stream == 1);
        CHECK(k->buffers[3].init == GL_KI_NORMAL && k->buffers[3].value == 0 &&
              k->buffers[3].value2 == 0.02 && k->buffers[3].stream == 2);
        CHECK(k->buffers[4].init == GL_KI_RANDOM && k->buffers[4].value == -1 &&
              k->buffers[4].value2 == 3 && k->buffers[4].stream == 3);
        CHECK(k->buffers[5].symbol && k->buffers[5].init == GL_KI_CONST && !k->buffers[5].output);
        CHECK(k->buffers[6].symbol && strcmp(k->buffers[6].name, "ns::d_count") == 0 &&
              k->buffers[6].output && k->buffers[6].init == GL_KI_ZERO);
        gl_config_free(&cfg);
    } else {
        printf("  %s\n", err);
    }
    /* the mistakes */
    FAILS(with(10, "buffer.in = float[N*N] random(1, 0)", NULL), 10,
          "random(1, 0): lo must be below hi", NULL);
    FAILS(with(10, "buffer.in = float[N*N] randint(0, 10)", NULL), 10,
          "randint(0, 10) is for integer buffers", "random(0, 10)");
    FAILS(with(10, "buffer.in = int[N*N] random(0, 10)", NULL), 10,
          "random(0, 10) is for floating-point buffers", "randint(0, 10)");
    FAILS(with(10, "buffer.in = int[N*N] randint(5, 5)", NULL), 10, "lo must be below hi", NULL);
    FAILS(with(10, "buffer.in = uint[N*N] randint(-1, 5)", NULL), 10, "uint holds 0 to", NULL);
    FAILS(with(10, "buffer.in = int[N*N] randint(0.5, 5)", NULL), 10, "must be integers", NULL);
    FAILS(with(10, "buffer.in = int[N*N] randint(0, VOCAB)", NULL), 10, "unknown parameter 'VOCAB'",
          NULL);
    FAILS(with(10, "buffer.in = int[N*N] normal(0, 1)", NULL), 10,
          "normal(0, 1) is for floating-point buffers", NULL);
    FAILS(with(10, "buffer.in = float[N*N] normal(0, -1)", NULL), 10,
          "sigma must not be negative", NULL);
    FAILS(with(10, "buffer.in = float[N*N] normal(0)", NULL), 10, "needs two values", NULL);
    FAILS(with(10, "buffer.in = float[N*N] randint", NULL), 10, "randint needs two values", NULL);
    FAILS(with(10, "buffer.in = float[N*N] ramp(3)", NULL), 10, "'ramp' takes no arguments",
          NULL);
    FAILS(with(10, "buffer.in = float[N*N] noraml(0, 1)", NULL), 10, "unknown 'noraml'",
          "did you mean 'normal'?");
    FAILS(with(10, "buffer.in = float[N*N] file(nothere.bin)", NULL), 10,
          "file(nothere.bin): cannot read", NULL);
    write_file("w7.bin", "1234567");           /* 7 bytes: not whole floats */
    write_file("w8.bin", "12345678");          /* 2 floats */
    FAILS(with(10, "buffer.in = float[N*N] file(w7.bin)", NULL), 10,
          "holds 7 bytes, not a whole number of float elements", NULL);
    FAILS(with(10, "buffer.in = float[3] file(w8.bin)", NULL), 10,
          "file(w8.bin) holds 8 bytes (2 float elements)", "has 3 = 3 elements (12 bytes)");
    if (CHECK(parse(with(10, "buffer.in = float[2] file(w8.bin)", NULL)) == 0)) {
        const struct gl_kbuffer *b = &cfg.sections[0].kernel->buffers[0];
        CHECK(b->init == GL_KI_FILE && b->file_bytes == 8 && strlen(b->file_hash) == 64 &&
              strstr(b->file, "/w8.bin") != NULL);
        gl_config_free(&cfg);
    }
    /* symbols */
    FAILS(with(12, "args = out, in, c_k, int N", "symbol.c_k = float[4] const(1)\n"), 12,
          "args: 'c_k' is a symbol (line 17)", "not passed");
    FAILS(with(0, NULL, "symbol.in = float[4]\n"), 17, "'in' is declared twice (line 10)", NULL);
    FAILS(with(0, NULL, "symbol.c_k = float[4] rnadom\n"), 17, "unknown 'rnadom'", NULL);
    FAILS(with(0, NULL, "symbol.9k = float[4]\n"), 17, "unknown key 'symbol.9k'", NULL);
}

/* randint's bound at each point, a file's size at each point: the plan's check. */
static void test_init_checks(void)
{
    char t[2048];
    struct gl_params p;
    static char buf[GL_REASON_MAX];
    write_file("w8.bin", "12345678");
    snprintf(t, sizeof t,
             "[s]\nsource = k.cu\nvariants = copy\nN = 1\nV = 1\n"
             "buffer.out = float[N] output\nbuffer.ids = int[N] randint(0, V)\n"
             "buffer.f = float[N] file(w8.bin)\nargs = out, ids, f, int N\ngrid = 1\nblock = 32\n");
    if (!CHECK(parse(t) == 0)) {
        printf("  %s\n", err);
        return;
    }
    const struct gl_variant *v = gl_section_variant(&cfg.sections[0], 0);
    gl_params_init(&p);
    p.n = 2;
    gl_params_user_set(&p, "V", 100);
    gl_variant_complete(v, &p);
    CHECK(v->check(v, &p, NULL, buf, sizeof buf) == NULL);
    gl_params_user_set(&p, "V", 0);
    CHECK(has(v->check(v, &p, NULL, buf, sizeof buf), "randint(0, 0): lo must be below hi"));
    gl_params_user_set(&p, "V", 100);
    p.n = 3;
    CHECK(has(v->check(v, &p, NULL, buf, sizeof buf), "but file"));
    CHECK(has(v->check(v, &p, NULL, buf, sizeof buf), "holds 8 bytes"));
    gl_config_free(&cfg);
}


/* Step 15: kernel keys and named parameters before the first section as
 * defaults, per-variant launches, a template variant without NAME =, the typo
 * rule against the file's own names, verify = none and outputs nothing checks,
 * defines that clash with a template parameter, verify across sections. */
static void test_shared_keys(void)
{
    write_file("s.cu",
               "template <int BLOCK>\n"
               "__global__ void scale(float *y, const float *x, int n) { }\n"
               "__global__ void twice(float *y, const float *x, int n) { }\n"
               "#define Block 4\n");
    /* everything before the first section; the section names its versions */
    const char *shared =
        "source = s.cu\n"                               /* 1 */
        "N = 8*1024\n"                                  /* 2 */
        "BLOCK = 128, 256\n"                            /* 3 */
        "buffer.x = float[N] random\n"                  /* 4 */
        "buffer.y = float[N] output\n"                  /* 5 */
        "args = y, x, int N\n"                          /* 6 */
        "grid = cdiv(N, BLOCK)\n"                       /* 7 */
        "block = BLOCK\n"                               /* 8 */
        "[s]\n"                                         /* 9 */
        "variants = scale<BLOCK>, twice\n"              /* 10 */
        "grid.twice = cdiv(N, 2*BLOCK)\n"               /* 11 */
        "verify = twice\n";                             /* 12 */
    CHECK(parse(shared) == 0);
    if (!err[0]) {
        const struct gl_section *s = &cfg.sections[0];
        CHECK(s->kernel != NULL && s->nvariants == 2);
        CHECK_STR(s->variants[0], "scale");
        CHECK_STR(s->kvs[0].expr, "scale<BLOCK>");
        CHECK(s->kernel->nbuffers == 2 && s->kernel->nargs == 3);
        CHECK(s->values[GL_P_N].set && s->values[GL_P_N].ints[0] == 8192);
        CHECK(s->nuser == 1 && strcmp(s->uname[0], "BLOCK") == 0);
        /* twice has its own grid, scale the section's; scale is verified by twice */
        CHECK(s->kvs[1].k != s->kernel && s->kvs[0].k == s->kernel);
        CHECK_STR(s->kvs[1].k->grid[0], "cdiv(N, 2*BLOCK)");
        CHECK_STR(s->kvs[0].k->grid[0], "cdiv(N, BLOCK)");
        CHECK(s->kvs[0].reference == &s->kvs[1]);
        CHECK_STR(s->kvs[1].k->hash, s->kernel->hash);
        gl_config_free(&cfg);
    }
    /* a key set in both places: the section's */
    char t[4096];
    snprintf(t, sizeof t, "%sblock = 64\n", shared);
    CHECK(parse(t) == 0);
    if (err[0])
        printf("  %s\n", err);
    if (!err[0]) {
        CHECK_STR(cfg.sections[0].kernel->block[0], "64");
        gl_config_free(&cfg);
    }
    /* two instances of one template: named after their template-ids */
    snprintf(t, sizeof t, "%s", shared);
    strcpy(strstr(t, "variants"), "variants = scale<BLOCK>, scale<2*BLOCK>\nverify = scale_BLOCK\n");
    CHECK(parse(t) == 0);
    if (!err[0]) {
        CHECK_STR(cfg.sections[0].variants[0], "scale_BLOCK");
        CHECK_STR(cfg.sections[0].variants[1], "scale_2_BLOCK");
        gl_config_free(&cfg);
    }
    /* a default no section uses is an error naming the key */
    snprintf(t, sizeof t, "TILE = 3\n%s", shared);
    FAILS(t, 1, "named parameter 'TILE' before the first section is read by no kernel section",
          NULL);
    snprintf(t, sizeof t, "buffer.z = float[N]\n%s", shared);
    FAILS(t, 1, "'buffer.z' before the first section is passed by no kernel section", NULL);
    snprintf(t, sizeof t, "%s[t]\nsource = s.cu\nlaunch.a = twice<<<1, 32>>>(y, x, int N)\n"
             "verify = none\n", shared);
    CHECK(parse(t) == 0);   /* args, grid, block: not a launch section's */
    if (err[0])
        printf("  %s\n", err);
    if (!err[0])
        gl_config_free(&cfg);
    /* grid: the built-in parameter's words stay the parameter */
    FAILS("grid = 2d\n[s]\nsource = s.cu\nvariants = twice\nN = 8\nbuffer.x = float[N]\n"
          "buffer.y = float[N] output\nargs = y, x, int N\ngrid = 1\nblock = 8\n", 1,
          "parameter 'grid' is not read by any variant of any section", NULL);
    /* a per-variant key for a variant the section does not have */
    snprintf(t, sizeof t, "%sblock.twicee = 64\n", shared);
    FAILS(t, 13, "block.twicee: section [s] has no variant 'twicee'", "did you mean 'twice'?");
    /* the typo rule: Block is a name of the file (a macro), so a named parameter */
    snprintf(t, sizeof t, "%sBlock = 2\nflops = Block*N\n", shared);
    CHECK(parse(t) == 0);
    if (!err[0])
        gl_config_free(&cfg);
    snprintf(t, sizeof t, "%sBlok = 2\nflops = Blok*N\n", shared);
    FAILS(t, 13, "unknown key 'Blok'", "did you mean 'block'?");
    /* an output with an init and no reference: refused, unless verify = none */
    const char *noref =
        "[s]\nsource = s.cu\nvariants = twice\nN = 8\nbuffer.x = float[N]\n"
        "buffer.y = float[N] zero output\nargs = y, x, int N\ngrid = 1\nblock = 8\n";
    FAILS(noref, 6, "buffer.y is an output with an init", "verify = none");
    snprintf(t, sizeof t, "%sverify = none\n", noref);
    CHECK(parse(t) == 0);
    if (!err[0]) {
        CHECK(cfg.sections[0].kernel->verify_none == 1);
        gl_config_free(&cfg);
    }
    /* defines that clash with a template parameter */
    snprintf(t, sizeof t, "%sdefines = BLOCK\n", shared);
    FAILS(t, 13, "defines: 'BLOCK' is also a template parameter of scale", "scale<BLOCK>");
    /* verify: a variant of another section */
    const char *two =
        "source = s.cu\nN = 1024\nBLOCK = 128\nbuffer.x = float[N] random\n"
        "buffer.y = float[N] output\nargs = y, x, int N\nblock = BLOCK\n"
        "[fast]\nvariants = scale<BLOCK>\ngrid = cdiv(N, BLOCK)\nverify = slow.twice\n"
        "[slow]\nvariants = twice\ngrid = cdiv(N, 2*BLOCK)\n";
    CHECK(parse(two) == 0);
    if (!err[0]) {
        CHECK(cfg.sections[0].kvs[0].reference == &cfg.sections[1].kvs[0]);
        gl_config_free(&cfg);
    }
    snprintf(t, sizeof t, "%s", two);
    strcpy(strstr(t, "verify = slow.twice"), "verify = slow.twic\n[slow]\nvariants = twice\n"
           "grid = cdiv(N, 2*BLOCK)\n");
    FAILS(t, 11, "verify: unknown variant 'slow.twic'", "did you mean 'slow.twice'?");
}

int main(void)
{
    if (!t_load_plugins())
        return t_done("kernel_section");
    snprintf(dir, sizeof dir, "/tmp/gl_ktest_XXXXXX");
    if (!mkdtemp(dir)) {
        printf("FAIL mkdtemp\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/x.conf", dir);
    write_file("k.cu", kernel_cu);
    write_file("tile.h", "#define X 1\n");
    test_every_key();
    test_hash();
    test_headers();
    test_options();
    test_errors();
    test_nesting();
    test_check();
    test_counts_and_keys();
    test_verify_c();
    test_16bit();
    test_8bit_and_more();
    test_objects();
    test_verify_reads();
    test_inits_symbols();
    test_init_checks();
    test_shared_keys();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return t_done("kernel_section");
}
