/* test_config.c - config parsing (src/config/config_parse.c, src/expr.c checks): value lists,
 * ranges, comments, defaults before the first section, variants all/cpu/gpu,
 * zip, where, timing keys, and every error path with its "path:line:" prefix and
 * the offending text. Must not expand sweeps (test_expand.c does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "t.h"

#define PATH "cfg/x.conf"

static struct gl_config cfg;
static char err[2048];

static int parse(const char *text)
{
    err[0] = '\0';
    return gl_config_parse(PATH, text, &cfg, err, sizeof err);
}

/* The config must fail with "cfg/x.conf:LINE: " at the start and every needle in
 * the message; prints the message when it does not. */
static int fails_with(const char *text, int line, const char *needle1, const char *needle2,
                      const char *file, int at)
{
    char prefix[64];
    int ok = parse(text) == -1;
    snprintf(prefix, sizeof prefix, "%s:%d: ", PATH, line);
    ok = ok && strncmp(err, prefix, strlen(prefix)) == 0;
    ok = ok && (!needle1 || strstr(err, needle1));
    ok = ok && (!needle2 || strstr(err, needle2));
    if (!ok)
        printf("  %s:%d: got [%s], want prefix [%s] with [%s] [%s]\n", file, at, err, prefix,
               needle1 ? needle1 : "", needle2 ? needle2 : "");
    CHECK(cfg.nsections == 0 && cfg.text == NULL);   /* freed on error */
    return ok;
}
#define FAILS(text, line, n1, n2) CHECK(fails_with(text, line, n1, n2, __FILE__, __LINE__))

static const struct gl_section *sec(const char *name)
{
    for (int i = 0; i < cfg.nsections; i++)
        if (strcmp(cfg.sections[i].name, name) == 0)
            return &cfg.sections[i];
    return NULL;
}

static int ints_are(const struct gl_values *v, int n, const long *want)
{
    if (!v->set || v->n != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (v->ints[i] != want[i])
            return 0;
    return 1;
}

static void test_lists_ranges_comments(void)
{
    const char *text =
        "# a comment line\n"
        "study = demo   # trailing comment\n"
        "description = lists, ranges and comments\n"
        "\n"
        "[gpu_a-1]\n"
        "family = matmul\n"
        "variants = global\n"
        "N = 1024, 2048,3072   # list\n"
        "BS = 8:32:8\n"
        "K = 1:4:*2\n"
        "mem = device, zerocopy\n"
        "seed = 1<<20\n"
        "\t grid = 2d \r\n"
        "[vec]\n"
        "family = vecadd\n"
        "variants = gridstride\n"
        "N = 50000, 1<<20:1<<23:*2, 7:7:1\n"
        "BS = 256\n"
        "G = 0\n";
    CHECK(parse(text) == 0);
    if (err[0])
        printf("  %s\n", err);
    CHECK_STR(cfg.study, "demo");
    CHECK_STR(cfg.description, "lists, ranges and comments");
    CHECK_STR(cfg.path, PATH);
    CHECK(cfg.text && strcmp(cfg.text, text) == 0);
    CHECK(cfg.nsections == 2);
    const struct gl_section *s = sec("gpu_a-1");
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(s->line == 5);
    CHECK_STR(s->family, "matmul");
    CHECK(s->nvariants == 1 && strcmp(s->variants[0], "global") == 0);
    CHECK(s->variants_line == 7);
    CHECK(ints_are(&s->values[GL_P_N], 3, (long[]){ 1024, 2048, 3072 }));
    CHECK(s->values[GL_P_N].line == 8);
    CHECK(ints_are(&s->values[GL_P_BS], 4, (long[]){ 8, 16, 24, 32 }));
    CHECK(ints_are(&s->values[GL_P_K], 3, (long[]){ 1, 2, 4 }));
    CHECK(ints_are(&s->values[GL_P_SEED], 1, (long[]){ 1L << 20 }));
    CHECK(s->values[GL_P_MEM].set && s->values[GL_P_MEM].n == 2);
    CHECK_STR(s->values[GL_P_MEM].words[1], "zerocopy");
    CHECK(s->values[GL_P_GRID].n == 1 && strcmp(s->values[GL_P_GRID].words[0], "2d") == 0);
    CHECK(!s->values[GL_P_R].set && !s->values[GL_P_CACHE].set);
    CHECK_STR(s->metrics, "default");
    struct gl_timing d;
    gl_timing_defaults(&d);
    CHECK(memcmp(&d, &s->timing, sizeof d) == 0);
    CHECK(d.warmup == 2 && d.min_samples == 10 && d.max_samples == 1000);
    CHECK(d.max_noise == 0.005 && d.max_seconds == 2.0 && d.timeout_s == 600);
    s = sec("vec");
    CHECK(s && ints_are(&s->values[GL_P_N], 6,
                        (long[]){ 50000, 1L << 20, 1L << 21, 1L << 22, 1L << 23, 7 }));
    CHECK(s && ints_are(&s->values[GL_P_G], 1, (long[]){ 0 }));
    gl_config_free(&cfg);
    CHECK(cfg.sections == NULL && cfg.nsections == 0);
    gl_config_free(&cfg);   /* twice is harmless */

    /* ranges that do not land on the end; geometric factor 3 */
    CHECK(parse("[a]\nfamily = vecadd\nvariants = global\nN = 10:20:3\nBS = 2:100:*3\n") == 0);
    CHECK(ints_are(&cfg.sections[0].values[GL_P_N], 4, (long[]){ 10, 13, 16, 19 }));
    CHECK(ints_are(&cfg.sections[0].values[GL_P_BS], 4, (long[]){ 2, 6, 18, 54 }));
    CHECK_STR(cfg.study, "x");   /* default: the file's basename without .conf */
    gl_config_free(&cfg);

    /* '#' inside a quoted where string is not a comment */
    CHECK(parse("[a]\nfamily = matmul\nvariants = global\nN = 64\nBS = 16\nmem = device\n"
                "where = mem != \"#x\" || N > 0  # real comment\n") == -1);
    CHECK(strstr(err, "\"#x\" is not a choice for mem") != NULL);
}

static void test_timing_keys(void)
{
    CHECK(parse("warmup = 0\nnoise = 0.5%\n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n"
                "samples_min = 3\nsamples_max = 50\ntime_cap = 500ms\ntimeout = 30s\n"
                "[b]\nfamily = vecadd\nvariants = seq\nN = 10\nnoise = 0.01\ntime_cap = 3\n") == 0);
    const struct gl_section *a = sec("a"), *b = sec("b");
    CHECK(a && a->timing.warmup == 0 && a->timing.min_samples == 3 && a->timing.max_samples == 50);
    CHECK(a && a->timing.max_noise > 0.00499 && a->timing.max_noise < 0.00501);
    CHECK(a && a->timing.max_seconds > 0.4999 && a->timing.max_seconds < 0.5001);
    CHECK(a && a->timing.timeout_s == 30);
    CHECK(b && b->timing.warmup == 0 && b->timing.max_noise == 0.01 && b->timing.max_seconds == 3);
    CHECK(b && b->timing.min_samples == 10 && b->timing.timeout_s == 600);
    gl_config_free(&cfg);
}

static void test_defaults(void)
{
    const char *text =
        "study = d\n"
        "family = matmul\n"                     /* 2 */
        "N = 64, 128\n"                         /* 3 */
        "BS = 16\n"                             /* 4: applies only where read */
        "samples_min = 5\n"
        "metrics = full\n"
        "where = N % (2*BS) == 0\n"             /* 7: only where BS is set */
        "[cpu]\n"                               /* 8 */
        "variants = omp_ikj\n"
        "[gpu]\n"                               /* 10 */
        "variants = global, shared\n"
        "N = 256\n"
        "metrics = none\n"
        "where = N > 0\n"                       /* 14 */
        "[other]\n"
        "family = vecadd\n"
        "variants = seq\n";
    CHECK(parse(text) == 0);
    if (err[0])
        printf("  %s\n", err);
    const struct gl_section *c = sec("cpu"), *g = sec("gpu"), *o = sec("other");
    CHECK(c && g && o);
    if (!c || !g || !o)
        return;
    CHECK_STR(c->family, "matmul");
    CHECK(ints_are(&c->values[GL_P_N], 2, (long[]){ 64, 128 }));
    CHECK(c->values[GL_P_N].line == 3);
    CHECK(!c->values[GL_P_BS].set);   /* omp_ikj does not read BS */
    CHECK(c->nwhere == 0);            /* names BS, which [cpu] does not set */
    CHECK(c->timing.min_samples == 5);
    CHECK_STR(c->metrics, "full");
    CHECK(c->metrics_line == 6);
    CHECK(ints_are(&g->values[GL_P_N], 1, (long[]){ 256 }));
    CHECK(ints_are(&g->values[GL_P_BS], 1, (long[]){ 16 }));
    CHECK_STR(g->metrics, "none");
    CHECK(g->nwhere == 2);
    CHECK(g->nwhere == 2 && strcmp(g->where[0], "N % (2*BS) == 0") == 0 && g->where_line[0] == 7);
    CHECK(g->nwhere == 2 && strcmp(g->where[1], "N > 0") == 0 && g->where_line[1] == 14);
    CHECK_STR(o->family, "vecadd");
    CHECK(ints_are(&o->values[GL_P_N], 2, (long[]){ 64, 128 }));
    gl_config_free(&cfg);
}

static void test_variants_sets(void)
{
    CHECK(parse("[a]\nfamily = matmul\nvariants = all\nN = 64\nBS = 16\n"
                "[b]\nfamily = matmul\nvariants = cpu\nN = 64\n"
                "[c]\nfamily = stencil\nvariants = gpu\nN = 64\nR = 2\nBS = 8\n"
                "[d]\nfamily = vecadd\nvariants = global, cpu\nN = 64\nBS = 32\n") == 0);
    if (err[0])
        printf("  %s\n", err);
    const struct gl_section *a = sec("a"), *b = sec("b"), *c = sec("c"), *d = sec("d");
    int all = 0, cpu = 0;
    for (int i = 0; i < gl_registry_count(); i++) {
        if (strcmp(gl_registry_at(i)->family, "matmul") != 0)
            continue;
        all++;
        cpu += strcmp(gl_registry_at(i)->device, "cpu") == 0;
    }
    CHECK(a && a->nvariants == all && all == 13);
    CHECK(b && b->nvariants == cpu && cpu == 8);
    for (int i = 0; b && i < b->nvariants; i++)
        CHECK(strcmp(gl_variant_find("matmul", b->variants[i])->device, "cpu") == 0);
    CHECK(c && c->nvariants == 2 && strcmp(c->variants[0], "global") == 0 &&
          strcmp(c->variants[1], "shared") == 0);
    CHECK(d && d->nvariants == 3 && strcmp(d->variants[0], "global") == 0 &&
          strcmp(d->variants[1], "seq") == 0 && strcmp(d->variants[2], "omp") == 0);
    gl_config_free(&cfg);
}

static void test_zip(void)
{
    CHECK(parse("[a]\nfamily = matmul\nvariants = naive_rect\nM = 100, 200\nN = 70, 80\n"
                "P = 90, 95\nBS = 8, 16\nzip = M, N, P\n") == 0);
    CHECK(cfg.nsections == 1 && cfg.sections[0].nzip == 1);
    CHECK(cfg.sections[0].zip[0] == (GL_PBIT(GL_P_M) | GL_PBIT(GL_P_N) | GL_PBIT(GL_P_P)));
    CHECK(cfg.sections[0].zip_line[0] == 8);
    gl_config_free(&cfg);
    /* two groups */
    CHECK(parse("[a]\nfamily = matmul\nvariants = global\nN = 64, 128\nBS = 8, 16\nK = 1, 2\n"
                "grid = 2d, 1d\nmem = device, managed\nzip = BS, K\nzip = grid, mem\n") == 0);
    CHECK(cfg.nsections == 1 && cfg.sections[0].nzip == 2);
    gl_config_free(&cfg);
}

/* Every error path: file:line prefix and the offending text. */
static void test_errors(void)
{
    const char *H = "[a]\nfamily = matmul\nvariants = global\n";   /* lines 1-3 */
    char t[1024];
#define WITH(extra) (snprintf(t, sizeof t, "%s%s", H, extra), t)
    /* keys */
    FAILS(WITH("N = 64\nBs = 16\n"), 5, "unknown parameter 'Bs'", "(did you mean 'BS'?)");
    FAILS(WITH("N = 64\nBS = 16\nvarients = shared\n"), 6, "unknown key 'varients'",
          "did you mean 'variants'?");
    FAILS(WITH("radius = 2\n"), 4, "unknown key 'radius'", NULL);
    FAILS(WITH("samples_mn = 3\n"), 4, "'samples_mn'", "did you mean 'samples_min'?");
    FAILS("[a]\nfamily = matmul\nvariants = global\nstudy = x\n", 4, "'study'",
          "only before the first section");
    FAILS(WITH("N = 64\nBS = 16\nN = 128\n"), 6, "duplicate key 'N'", "first set on line 4");
    FAILS("N = 1\nN = 2\n[a]\nfamily = vecadd\nvariants = seq\n", 2, "duplicate key 'N'",
          "before the first section");
    FAILS(WITH("N 64\n"), 4, "expected 'key = value'", "'N 64'");
    FAILS(WITH("= 64\n"), 4, "missing key", NULL);
    FAILS(WITH("N =   # nothing\n"), 4, "'N' has no value", NULL);
    /* sections */
    FAILS("study = s\n[abc\nfamily = matmul\n", 2, "unterminated section header '[abc'", NULL);
    FAILS("[a b]\nfamily = matmul\n", 1, "bad section name '[a b]'", NULL);
    FAILS("[]\n", 1, "bad section name", NULL);
    FAILS("[a] x\n", 1, "unexpected text 'x'", NULL);
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 1\n[a]\n", 5, "section [a]",
          "already defined on line 1");
    FAILS("study = nothing\n", 1, "no [section]", NULL);
    FAILS("[a]\nvariants = seq\nN = 1\n", 1, "section [a] has no 'family'", NULL);
    FAILS("[a]\nfamily = vecadd\nN = 1\n", 1, "section [a] has no 'variants'", NULL);
    /* family and variants */
    FAILS("[a]\nfamily = matmull\nvariants = global\n", 2, "unknown family 'matmull'",
          "did you mean 'matmul'?");
    FAILS("[a]\nfamily = fft\nvariants = global\n", 2, "unknown family 'fft'", NULL);
    FAILS("[a]\nfamily = matmul\nvariants = global, globl\nN = 64\nBS = 16\n", 3,
          "unknown variant 'globl' of family matmul", "did you mean 'global'?");
    FAILS("[a]\nfamily = stencil\nvariants = tiled\nN = 64\n", 3, "unknown variant 'tiled'",
          "global, shared");
    FAILS("[a]\nfamily = matmul\nvariants = global, global\nN = 64\nBS = 16\n", 3,
          "variant 'global' is listed twice", NULL);
    FAILS("[a]\nfamily = matmul\nvariants = global,\nN = 64\nBS = 16\n", 3, "empty item", NULL);
    /* parameters not read, not set */
    FAILS(WITH("N = 64\nBS = 16\nR = 2\n"), 6, "parameter 'R' is not read by any variant",
          "section [a]");
    FAILS("R = 2\n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n", 1,
          "parameter 'R' is not read by any variant of any section", NULL);
    FAILS(WITH("N = 64\n"), 3, "variant 'global' reads BS", "does not set");
    /* values */
    FAILS(WITH("N = 64\nBS = 0\n"), 5, "value 0 for BS is out of range", NULL);
    FAILS(WITH("N = 64\nBS = 16\nK = 1, -2\n"), 6, "value -2 for K is out of range", NULL);
    FAILS(WITH("N = 64, abc\nBS = 16\n"), 4, "bad number 'abc' for N", NULL);
    FAILS(WITH("N = 12x\nBS = 16\n"), 4, "bad number '12x'", NULL);
    FAILS(WITH("N = 1,,2\nBS = 16\n"), 4, "empty item 2", "'1,,2'");
    FAILS(WITH("N = 10:1:2\nBS = 16\n"), 4, "malformed range '10:1:2' (start > end)", NULL);
    FAILS(WITH("N = 1:10:0\nBS = 16\n"), 4, "malformed range '1:10:0' (step must be > 0)", NULL);
    FAILS(WITH("N = 1:10:*1\nBS = 16\n"), 4, "malformed range '1:10:*1' (factor must be >= 2)",
          NULL);
    FAILS(WITH("N = 1:10\nBS = 16\n"), 4, "malformed range '1:10'", "start:end:step");
    FAILS(WITH("N = 1:2:3:4\nBS = 16\n"), 4, "malformed range '1:2:3:4'", NULL);
    FAILS(WITH("N = x:10:1\nBS = 16\n"), 4, "malformed range 'x:10:1' (bad start 'x')", NULL);
    FAILS(WITH("N = 1:y:1\nBS = 16\n"), 4, "(bad end 'y')", NULL);
    FAILS(WITH("N = 1:10:z\nBS = 16\n"), 4, "(bad step 'z')", NULL);
    FAILS(WITH("N = 0:10:1\nBS = 16\n"), 4, "value 0 for N is out of range", NULL);
    FAILS(WITH("N = 1:2000000:1\nBS = 16\n"), 4, "range '1:2000000:1' has more than 1000000", NULL);
    FAILS(WITH("N = 64\nBS = 16\nmem = device, gpu\n"), 6, "'gpu' is not a choice for mem",
          "device, zerocopy, managed");
    FAILS(WITH("N = 64\nBS = 16\ngrid = 3d\n"), 6, "'3d' is not a choice for grid", NULL);
    FAILS(WITH("N = 64\nBS = 16\nmem = zerocpy\n"), 6, "'zerocpy' is not a choice for mem",
          "did you mean 'zerocopy'?");
    FAILS(WITH("N = 1:1000:1\nBS = 1:1001:1\n"), 1, "section [a] sweeps 1001000 points",
          "more than 1000000");
    /* zip */
    FAILS(WITH("N = 64, 128\nBS = 8, 16\nK = 1\nzip = BS, K\n"), 7,
          "zip: BS has 2 values but K has 1", NULL);
    FAILS(WITH("N = 64\nBS = 8, 16\nzip = BS, K\n"), 6, "zip: parameter 'K' is not set", "[a]");
    FAILS(WITH("N = 64\nBS = 8, 16\nzip = BS, seeds\n"), 6, "zip: unknown parameter 'seeds'",
          "did you mean 'seed'?");
    FAILS(WITH("N = 64\nBS = 8, 16\nzip = BS\n"), 6, "at least two parameters", "'BS'");
    FAILS(WITH("N = 64\nBS = 8, 16\nK = 1, 2\nzip = BS, K\nzip = K, N\n"), 8,
          "'K' is already zipped on line 7", NULL);
    FAILS(WITH("N = 64\nBS = 8, 16\nK = 1, 2\nzip = BS, K, BS\n"), 7, "'BS' is named twice", NULL);
    FAILS("zip = BS, K\n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n", 1, "zip 'BS, K'",
          "applies to no section");
    /* where */
    FAILS(WITH("N = 64\nBS = 16\nwhere = N % (2*BS == 0\n"), 6, "where 'N % (2*BS == 0'",
          "expected ')'");
    FAILS(WITH("N = 64\nBS = 16\nwhere = N % Bs == 0\n"), 6, "unknown parameter 'Bs'",
          "did you mean 'BS'?");
    FAILS(WITH("N = 64\nBS = 16\nwhere = N % R == 0\n"), 6, "where 'N % R == 0'",
          "'R' is not set");
    FAILS(WITH("N = 64\nBS = 16\nwhere = N = 64\n"), 6, "where 'N = 64'", "use ==");
    FAILS(WITH("N = 64\nBS = 16\nmem = device\nwhere = mem == \"zerocpy\"\n"), 7,
          "\"zerocpy\" is not a choice for mem", NULL);
    FAILS(WITH("N = 64\nBS = 16\nmem = device\nwhere = mem < \"device\"\n"), 7,
          "text compares only with == and !=", NULL);
    FAILS(WITH("N = 64\nBS = 16\nwhere = N == \"64\"\n"), 6, "compares text with a number", NULL);
    FAILS(WITH("N = 64\nBS = 16\nwhere = N BS\n"), 6, "where 'N BS'", "unexpected text");
    FAILS(WITH("N = 64\nBS = 16\nwhere =  N >\n"), 6, "where 'N >'", "at the end");
    FAILS("where = R > 1\n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n", 1,
          "where 'R > 1' applies to no section", NULL);
    FAILS("where = N >> \n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n", 1, "where 'N >>'",
          NULL);
    /* timing */
    FAILS(WITH("N = 64\nBS = 16\nsamples_min = 20\nsamples_max = 10\n"), 7,
          "samples_min = 20 is more than samples_max = 10", NULL);
    FAILS(WITH("N = 64\nBS = 16\nsamples_max = 5000\n"), 6, "samples_max = 5000 is out of range",
          "1..1000");
    FAILS(WITH("N = 64\nBS = 16\nwarmup = many\n"), 6, "bad number 'many' for warmup", NULL);
    FAILS(WITH("N = 64\nBS = 16\nnoise = 150%\n"), 6, "noise = 150% is out of range", NULL);
    FAILS(WITH("N = 64\nBS = 16\nnoise = low\n"), 6, "bad noise 'low'", NULL);
    FAILS(WITH("N = 64\nBS = 16\ntime_cap = 2x\n"), 6, "bad duration '2x' for time_cap", NULL);
    FAILS(WITH("N = 64\nBS = 16\ntimeout = 0s\n"), 6, "timeout = 0s must be more than 0", NULL);
#undef WITH
}

static void test_load(void)
{
    char path[] = "/tmp/gl_test_config_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    const char *text = "[a]\nfamily = vecadd\nvariants = seq\nN = 10\nBS = 1\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    CHECK(gl_config_load(path, &cfg, err, sizeof err) == -1);   /* BS: not read by seq */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s:5: ", path);
    CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
    unlink(path);
    CHECK(gl_config_load("/nonexistent/dir/x.conf", &cfg, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent/dir/x.conf") && strstr(err, "cannot read the config") &&
          strstr(err, "No such file or directory"));
    CHECK(gl_config_load("configs/stencil.conf", &cfg, err, sizeof err) == 0);
    CHECK_STR(cfg.study, "stencil");
    CHECK(cfg.text && strstr(cfg.text, "[gpu]"));
    gl_config_free(&cfg);
}

/* No byte below 0x20 (tab aside), no DEL and only valid UTF-8 in s. */
static int printable(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        if ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7F)
            return 0;
        if (u[i] >= 0x80) {
            size_t n = u[i] >= 0xF0 ? 4 : u[i] >= 0xE0 ? 3 : u[i] >= 0xC2 ? 2 : 0;
            if (n == 0)
                return 0;
            for (size_t k = 1; k < n; k++)
                if (u[i + k] < 0x80 || u[i + k] > 0xBF)
                    return 0;
            i += n - 1;
        }
    }
    return 1;
}

/* Write n bytes to a temporary file and load it; its path in path (size 64). */
static int load_bytes(const char *bytes, size_t n, char *path)
{
    snprintf(path, 64, "/tmp/gl_test_config_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -2;
    int ok = write(fd, bytes, n) == (ssize_t)n;
    close(fd);
    err[0] = '\0';
    int rc = ok ? gl_config_load(path, &cfg, err, sizeof err) : -2;
    unlink(path);
    return rc;
}

/* A byte-order mark is skipped; binary bytes are errors with line and column,
 * and no error message echoes a raw control byte or invalid UTF-8. */
static void test_text_bytes(void)
{
    const char *ok = "\xEF\xBB\xBFstudy = s\n[a]\nfamily = vecadd\nvariants = seq\nN = 10\n";
    CHECK(parse(ok) == 0);
    if (err[0])
        printf("  got [%s]\n", err);
    CHECK(cfg.study && strcmp(cfg.study, "s") == 0);
    gl_config_free(&cfg);

    /* control characters in quoted text: escaped */
    FAILS("stu\x1b[31mdy = s\n", 1, "unknown key 'stu\\x1B[31mdy'", NULL);
    CHECK(printable(err));
    FAILS("[a]\nfamily = vecadd\x07\x7f\nvariants = seq\n", 2, "vecadd\\x07\\x7F", NULL);
    CHECK(printable(err));
    FAILS("st\rudy = s\n", 1, "st\\x0Dudy", NULL);
    CHECK(printable(err));
    /* valid UTF-8 stays as it is */
    FAILS("st\xC3\xBC" "dy = s\n", 1, "'st\xC3\xBC" "dy'", NULL);

    /* invalid UTF-8: not text, where it is */
    FAILS("study = s\n# caf\xE9\n", 2, "not text (byte 0xE9 at column 6)", NULL);
    CHECK(printable(err));
    FAILS("study = s\n[a]\nfamily = \xC3\xA9\xFF\n", 3, "not text (byte 0xFF at column 11)",
          NULL);
    FAILS("study = \xC0\xAF\n", 1, "not text (byte 0xC0 at column 9)", NULL);     /* overlong */
    FAILS("study = \xED\xA0\x80\n", 1, "not text (byte 0xED at column 9)", NULL); /* surrogate */
    FAILS("study = \xE2\x82\n", 1, "not text (byte 0xE2 at column 9)", NULL);     /* cut short */

    /* a NUL byte, and invalid UTF-8, in a file */
    char path[64], prefix[160];
    static const char nul[] = "study = s\nfa\0mily = vecadd\n";
    CHECK(load_bytes(nul, sizeof nul - 1, path) == -1);
    snprintf(prefix, sizeof prefix, "%s:2: not text (byte 0x00 at column 3)", path);
    CHECK_STR(err, prefix);
    CHECK(cfg.text == NULL);
    static const char bad[] = "\xEF\xBB\xBFstudy = s\n\n[a\x80]\n";
    CHECK(load_bytes(bad, sizeof bad - 1, path) == -1);
    snprintf(prefix, sizeof prefix, "%s:3: not text (byte 0x80 at column 3)", path);
    CHECK_STR(err, prefix);
    static const char esc[] = "study = s\n[a\x1b]\n";
    CHECK(load_bytes(esc, sizeof esc - 1, path) == -1);
    CHECK(strstr(err, ":2: ") && strstr(err, "a\\x1B") && printable(err));
    CHECK(load_bytes(ok, strlen(ok), path) == 0);
    gl_config_free(&cfg);
}

/* The expression language's functions, numbers, named parameters and depth limit. */
static void test_expr_functions(void)
{
    struct gl_params p;
    char msg[512];
    long long v;
    gl_params_init(&p);
    p.n = 1000;
    gl_params_user_set(&p, "TILE", 32);
    gl_params_user_set(&p, "BLOCK_ROWS", 8);
    static const struct { const char *e; long long want; } cases[] = {
        { "ceil(N/TILE)", 32 }, { "ceil(N)", 1000 }, { "ceil((N/TILE))", 32 },
        { "ceil(N/TILE + 1)", 32 }, { "ceil(1024/TILE)", 32 }, { "ceil(-7/2)", -3 },
        { "cdiv(N, TILE)", 32 }, { "cdiv(1024, TILE)", 32 }, { "cdiv(-7, 2)", -3 },
        { "div(N, TILE)", 31 }, { "div(-7, 2)", -4 }, { "div(7, -2)", -4 },
        { "min(TILE, BLOCK_ROWS)", 8 }, { "max(TILE, BLOCK_ROWS)", 32 },
        { "max(min(1, 2), cdiv(N, 3))", 334 }, { "TILE * BLOCK_ROWS", 256 },
        { "N*N", 1000000 }, { " min ( 4 , 5 ) ", 4 }, { "TILE == 32", 1 },
        { "log2(1)", 0 }, { "log2(1024)", 10 }, { "log2(N)", 9 }, { "log2(1 << 62)", 62 },
        { "pow(TILE, 2)", 1024 }, { "pow(2, 0)", 1 }, { "pow(0, 0)", 1 }, { "pow(0, 5)", 0 },
        { "pow(1, 1000000000000)", 1 }, { "pow(-1, 3)", -1 }, { "pow(-2, 3)", -8 },
        { "cdiv(log2(1 << 24), log2(256))", 3 }, { "cdiv(N, pow(TILE, 1 + 1))", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = gl_expr_value(cases[i].e, &p, &v, msg, sizeof msg);
        if (!CHECK(r == 0 && v == cases[i].want))
            printf("  '%s' = %d %lld (%s), want %lld\n", cases[i].e, r, v, r ? msg : "",
                   cases[i].want);
    }
    CHECK(gl_expr_eval("ceil(N/TILE) == 32 && TILE > BLOCK_ROWS", &p, msg, sizeof msg) == 1);
    static const struct { const char *e; const char *msg; } bad[] = {
        { "cdiv(N, 0)", "division by zero" }, { "div(N, TILE - 32)", "division by zero" },
        { "ceil(N/0)", "division by zero" }, { "min(1)", "two arguments" },
        { "ceil(1, 2)", "one argument" }, { "floor(N)", "unknown function 'floor'" },
        { "mim(1, 2)", "did you mean 'min'" }, { "TILES", "did you mean 'TILE'" },
        { "WPT + 1", "unknown parameter 'WPT'" }, { "\"a\"", "text, not a number" },
        { "cdiv(-9223372036854775807 - 1, -1)", "overflow" },
        { "log2(0)", "at least 1" }, { "log2(-4)", "at least 1" }, { "log2(1, 2)", "one argument" },
        { "pow(2)", "two arguments" }, { "pow(2, -1)", "exponent" }, { "pow(2, 63)", "overflow" },
        { "pow(10, 19)", "overflow" }, { "lg2(8)", "did you mean 'log2'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        int r = gl_expr_value(bad[i].e, &p, &v, msg, sizeof msg);
        if (!CHECK(r == -1 && strstr(msg, bad[i].msg)))
            printf("  '%s' = %d [%s], want [%s]\n", bad[i].e, r, msg, bad[i].msg);
    }
    /* check with a scope of named parameters: what is used is reported */
    const char names[3][GL_UPARAM_NAME] = { "TILE", "BLOCK_ROWS", "WPT" };
    struct gl_expr_scope sc = { GL_PBIT(GL_P_N), 3, names, 0, 0 };
    CHECK(gl_expr_check_scope("cdiv(N, TILE*WPT)", &sc, msg, sizeof msg) == 0);
    CHECK(sc.used_params == GL_PBIT(GL_P_N) && sc.used_names == 5);
    CHECK(gl_expr_check_scope("BLOK_ROWS", &sc, msg, sizeof msg) == -1 &&
          strstr(msg, "did you mean 'BLOCK_ROWS'"));
    CHECK(gl_expr_check_scope("BS + 1", &sc, msg, sizeof msg) == -1 &&
          strstr(msg, "'BS' is not set"));
    CHECK(gl_expr_check("TILE > 1", ~0u, msg, sizeof msg) == -1 &&
          strstr(msg, "unknown parameter 'TILE'"));
    /* the depth limit: an error, not a stack overflow */
    size_t n = 20000, m = 80000;
    char *deep = malloc(m + 64);
    if (!CHECK(deep != NULL))
        return;
    memset(deep, '(', n);
    strcpy(deep + n, "1");
    memset(deep + n + 1, ')', n);
    deep[2 * n + 1] = '\0';
    CHECK(gl_expr_check(deep, ~0u, msg, sizeof msg) == -1 &&
          strstr(msg, "expression nested deeper than 256"));
    CHECK(gl_expr_eval(deep, &p, msg, sizeof msg) == -1 &&
          strstr(msg, "expression nested deeper than 256"));
    memset(deep, '!', m);
    strcpy(deep + m, "1");
    CHECK(gl_expr_check(deep, ~0u, msg, sizeof msg) == -1 &&
          strstr(msg, "expression nested deeper than 256"));
    memset(deep, '-', m);
    CHECK(gl_expr_value(deep, &p, &v, msg, sizeof msg) == -1 &&
          strstr(msg, "expression nested deeper than 256"));
    strcpy(deep, "min(");
    for (int i = 1; i < 300; i++)
        strcat(deep, "min(");
    strcat(deep, "1");
    CHECK(gl_expr_check(deep, ~0u, msg, sizeof msg) == -1 &&
          strstr(msg, "expression nested deeper than 256"));
    /* 200 levels are fine */
    memset(deep, '(', 200);
    strcpy(deep + 200, "N");
    memset(deep + 201, ')', 200);
    deep[401] = '\0';
    CHECK(gl_expr_value(deep, &p, &v, msg, sizeof msg) == 0 && v == 1000);
    /* in a config: file:line with the start of the where */
    char *text = malloc(m + 256);
    if (CHECK(text != NULL)) {
        memset(deep, '!', m);
        strcpy(deep + m, "1");
        snprintf(text, m + 256, "[a]\nfamily = vecadd\nvariants = seq\nN = 8\nwhere = %s\n", deep);
        FAILS(text, 5, "expression nested deeper than 256", "where '!!!!");
        free(text);
    }
    free(deep);
}

/* Sizes as a program's main() writes them: integer constant expressions. */
static void test_const_expr_values(void)
{
    CHECK(parse("[a]\nfamily = vecadd\nvariants = seq\n"
                "N = 8*1024*768, 768*4, (1<<20) + 3, 1<<10, 7/2, 10 % 4\n") == 0);
    const struct gl_section *s = sec("a");
    CHECK(s != NULL);
    if (s)
        CHECK(ints_are(&s->values[GL_P_N], 6,
                       (long[]){ 8L * 1024 * 768, 768 * 4, (1L << 20) + 3, 1024, 3, 2 }));
    gl_config_free(&cfg);
    /* range ends may be expressions too */
    CHECK(parse("[a]\nfamily = vecadd\nvariants = seq\nN = 2*512:4*1024:*2\n") == 0);
    s = sec("a");
    if (s)
        CHECK(ints_are(&s->values[GL_P_N], 3, (long[]){ 1024, 2048, 4096 }));
    gl_config_free(&cfg);
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 8*K\n", 4, "bad number '8*K' for N",
          "names no parameter");
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 8/0\n", 4, "bad number '8/0' for N",
          "division by zero");
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 2*x3\n", 4, "bad number '2*x3' for N",
          "unknown parameter 'x3'");
    FAILS("[a]\nfamily = vecadd\nvariants = seq\nN = 1<<70\n", 4, "bad number '1<<70' for N",
          NULL);
}

int main(void)
{
    t_need_gpu_plugin("test_config");
    if (!t_load_plugins())
        return t_done("test_config");
    test_lists_ranges_comments();
    test_const_expr_values();
    test_timing_keys();
    test_defaults();
    test_variants_sets();
    test_zip();
    test_errors();
    test_load();
    test_text_bytes();
    test_expr_functions();
    return t_done("test_config");
}
