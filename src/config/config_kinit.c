/* config_kinit.c - what follows TYPE[COUNT] in a kernel section's
 * `buffer.NAME =` or `symbol.NAME =` line: the init (random, random(lo, hi),
 * randint(lo, hi), normal(mu, sigma), zero, const(V), ramp, file(PATH)) and
 * `output`, into a struct gl_kbuffer (src/core/kernel.h), with the rules each
 * init has for the buffer's type: bounds in order and inside the type, no
 * randint for floating-point buffers, no random(lo, hi) or normal for integer
 * ones, a file that exists and holds whole elements (and exactly COUNT of them
 * when COUNT needs no parameter; else each point checks: kernel_variant.c).
 * Also whether a key names a symbol (`symbol.NAME`, NAME a C++ name, possibly
 * qualified: ns::c_table). Every mistake is a cfg_err (path:line: message).
 * Must not evaluate anything per point, open the kernel's module or read a
 * file's contents beyond hashing them (the GPU harness reads them per run). */
#include "config_int.h"
#include "expr.h"
#include "ktype.h"
#include "nearest.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const words[] = { "random", "zero",   "const", "ramp",  "randint",
                                      "normal", "file",   "output", "unordered", NULL };
enum { W_RANDOM, W_ZERO, W_CONST, W_RAMP, W_RANDINT, W_NORMAL, W_FILE, W_OUTPUT, W_UNORDERED };

static int word_index(const char *s)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], s) == 0)
            return i;
    return -1;
}


/* The numbers of "(a, b)" (or "(a)" when want is 1) at *p: *p past ')'. */
static int numbers(struct ctx *x, int line, const char *what, const char *init, char **p,
                   int want, double *v, char (*exprs)[GL_KEXPR])
{
    char *open = *p, *close = *open == '(' ? strchr(open, ')') : NULL;
    if (!close)
        return cfg_err(x, line, "%s: %s needs %s: %s(%s)", what, init,
                       want == 1 ? "a value" : "two values", init,
                       want == 1 ? "V" : strcmp(init, "normal") == 0 ? "mu, sigma" : "lo, hi");
    *close = '\0';
    char *s = open + 1;
    for (int i = 0; i < want; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(s, &end);
        if (exprs && (errno || end == s || !isfinite(v[i]) || (*cfg_trim(end) != ',' &&
                                                                 *cfg_trim(end) != '\0'))) {
            /* an expression over the point's parameters (checked by the caller) */
            char *comma = i + 1 < want ? strchr(s, ',') : s + strlen(s);
            if (!comma)
                return cfg_err(x, line, "%s: %s(%s) needs two values", what, init,
                               cfg_trim(open + 1));
            char c = *comma;
            *comma = '\0';
            if (strlen(cfg_trim(s)) >= GL_KEXPR)
                return cfg_err(x, line, "%s: %s bound '%.40s...' is too long", what, init, s);
            snprintf(exprs[i], GL_KEXPR, "%s", cfg_trim(s));
            *comma = c;
            v[i] = NAN;
            end = comma;
        } else if (errno || end == s || !isfinite(v[i])) {
            return cfg_err(x, line, "%s: bad value '%s' in %s(%s)", what, cfg_trim(s), init,
                           want == 1 ? "V" : strcmp(init, "normal") == 0 ? "mu, sigma" : "lo, hi");
        }
        s = cfg_trim(end);
        if (i + 1 < want) {
            if (*s != ',')
                return cfg_err(x, line, "%s: %s(%s) needs two values", what, init,
                               cfg_trim(open + 1));
            s++;
        }
    }
    if (*cfg_trim(s))
        return cfg_err(x, line, "%s: %s(%s) takes %d value%s", what, init, cfg_trim(open + 1),
                       want, want == 1 ? "" : "s");
    *p = close + 1;
    return 0;
}

/* The smallest and largest value an integer type holds (doubles: 64-bit
 * bounds as far as a double tells them). */
static void int_range(enum gl_ktype t, double *lo, double *hi)
{
    gl_ktype_int_range(t, lo, hi);
}

static int is_float_type(enum gl_ktype t)
{
    return gl_ktype_is_float(t);
}

/* file(PATH): found from the config's folder, its size and sha256. */
static int file_init(struct ctx *x, int line, const char *what, const char *path,
                     struct gl_kbuffer *bf)
{
    const char *slash = strrchr(x->path, '/');
    int n = path[0] == '/' || !slash
                ? snprintf(bf->file, sizeof bf->file, "%s", path)
                : snprintf(bf->file, sizeof bf->file, "%.*s/%s", (int)(slash - x->path), x->path,
                           path);
    if (n < 0 || (size_t)n >= sizeof bf->file)
        return cfg_err(x, line, "%s: file path '%.60s...' is too long", what, path);
    struct stat st;
    if (stat(bf->file, &st) != 0 || !S_ISREG(st.st_mode))
        return cfg_err(x, line, "%s: file(%s): cannot read %s: %s", what, path, bf->file,
                       errno ? strerror(errno) : "not a regular file");
    FILE *f = fopen(bf->file, "rb");
    if (!f)
        return cfg_err(x, line, "%s: file(%s): cannot read %s: %s", what, path, bf->file,
                       strerror(errno));
    struct gl_sha256 h;
    unsigned char d[32], buf[65536];
    size_t got;
    long long total = 0;
    gl_sha256_init(&h);
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        gl_sha256_update(&h, buf, got);
        total += (long long)got;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return cfg_err(x, line, "%s: file(%s): read error in %s", what, path, bf->file);
    gl_sha256_final(&h, d);
    for (int i = 0; i < 32; i++)
        snprintf(bf->file_hash + 2 * i, 3, "%02x", d[i]);
    bf->file_bytes = total;
    size_t es = gl_ktype_size(bf->type);
    if (total == 0 || total % (long long)es != 0)
        return cfg_err(x, line, "%s: file(%s) holds %lld bytes, not a whole number of %s "
                       "elements (%zu bytes each)", what, path, total, gl_ktype_name(bf->type), es);
    struct gl_params none;
    long long count;
    char err[200];
    gl_params_init(&none);
    if (gl_expr_value(bf->count, &none, &count, err, sizeof err) == 0 &&
        count * (long long)es != total)   /* a count without parameters: known now */
        return cfg_err(x, line, "%s: file(%s) holds %lld bytes (%lld %s elements), the buffer "
                       "has %s = %lld elements (%lld bytes)", what, path, total,
                       total / (long long)es, gl_ktype_name(bf->type), bf->count, count,
                       count * (long long)es);
    return 0;
}

/* Check the bounds of random(lo, hi), randint(lo, hi) or normal(mu, sigma)
 * against bf's type. */
static int bounds(struct ctx *x, int line, const char *what, int w, struct gl_kbuffer *bf)
{
    const char *tn = gl_ktype_name(bf->type);
    double a = bf->value, b = bf->value2;
    if (w == W_RANDOM) {
        if (!is_float_type(bf->type))
            return cfg_err(x, line, "%s: random(%g, %g) is for floating-point buffers; %s "
                           "elements from a range: randint(%g, %g)", what, a, b, tn, a, b);
        if (!(a < b))
            return cfg_err(x, line, "%s: random(%g, %g): lo must be below hi (uniform in "
                           "[lo, hi))", what, a, b);
        return 0;
    }
    if (w == W_NORMAL) {
        if (!is_float_type(bf->type))
            return cfg_err(x, line, "%s: normal(%g, %g) is for floating-point buffers, not %s",
                           what, a, b, tn);
        if (!(b >= 0))
            return cfg_err(x, line, "%s: normal(%g, %g): sigma must not be negative", what, a,
                           b);
        return 0;
    }
    /* randint (a bound that is an expression is checked at each point: kinit.h) */
    if (is_float_type(bf->type))
        return cfg_err(x, line, "%s: randint(%g, %g) is for integer buffers (int8, uint8, int, "
                       "uint, int64, uint64), not %s; uniform %s values: random(%g, %g)", what, a, b, tn, tn,
                       a, b);
    if (bf->bound[0][0] || bf->bound[1][0])
        return 0;
    if (a != floor(a) || b != floor(b))
        return cfg_err(x, line, "%s: randint(%g, %g): the bounds must be integers", what, a, b);
    if (!(a < b))
        return cfg_err(x, line, "%s: randint(%g, %g): lo must be below hi (integers in "
                       "[lo, hi))", what, a, b);
    double lo, hi;
    int_range(bf->type, &lo, &hi);
    if (a < lo || b - 1 > hi)
        return cfg_err(x, line, "%s: randint(%g, %g): %s holds %.0f to %.0f", what, a, b, tn, lo,
                       hi);
    if (fabs(a) > 9007199254740992.0 || fabs(b) > 9007199254740992.0)
        return cfg_err(x, line, "%s: randint(%g, %g): bounds beyond 2^53 are not supported",
                       what, a, b);
    return 0;
}

int cfg_kbuffer_inits(struct ctx *x, int line, const char *what, char *p, struct gl_kbuffer *bf,
                      int *nrandom)
{
    int have_init = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char word[128];
        size_t n = 0;
        while (cfg_ident_char(p[n]))
            n++;
        if (n == 0)
            n = strcspn(p, " \t");
        snprintf(word, sizeof word, "%.*s", (int)(n < 127 ? n : 127), p);
        int w = word_index(word);
        char *after = p + n;
        while (*after == ' ' || *after == '\t')
            after++;
        int takes = w == W_CONST || w == W_RANDINT || w == W_NORMAL || w == W_FILE ||
                    (w == W_RANDOM && *after == '(');
        if (w >= 0 && !takes && *after == '(')
            return cfg_err(x, line, "%s: '%s' takes no arguments (the inits with arguments: "
                           "random(lo, hi), randint(lo, hi), normal(mu, sigma), const(V), "
                           "file(PATH))", what, word);
        if (w < 0) {
            struct gl_nearest near;
            char sug[96] = "";
            gl_nearest_init(&near, word);
            for (int i = 0; words[i]; i++)
                gl_nearest_offer(&near, words[i]);
            if (near.best)
                snprintf(sug, sizeof sug, " (did you mean '%s'?)", near.best);
            return cfg_err(x, line, "%s: unknown '%s'%s (an init: random, random(lo, hi), "
                           "randint(lo, hi), normal(mu, sigma), zero, const(V), ramp, "
                           "file(PATH); or output, output unordered)", what, word, sug);
        }
        p = takes ? after : p + n;
        if (w == W_UNORDERED) {   /* output unordered: compared as a multiset */
            if (!bf->output)
                return cfg_err(x, line, "%s: 'unordered' qualifies an output: write 'output "
                               "unordered'", what);
            if (bf->unordered)
                return cfg_err(x, line, "%s: 'unordered' is given twice", what);
            bf->unordered = 1;
            continue;
        }
        if (w == W_OUTPUT) {
            if (bf->output)
                return cfg_err(x, line, "%s: 'output' is given twice", what);
            bf->output = 1;
            continue;
        }
        if (have_init)
            return cfg_err(x, line, "%s: two inits ('%s' and an earlier one)", what, word);
        have_init = 1;
        double v[2] = { 0.0, 1.0 };
        switch (w) {
        case W_CONST:
            if (numbers(x, line, what, "const", &p, 1, v, NULL) != 0)
                return -1;
            bf->init = GL_KI_CONST;
            bf->value = v[0];
            break;
        case W_RANDOM:
        case W_RANDINT:
        case W_NORMAL:
            if (takes && numbers(x, line, what, word, &p, 2, v,
                                 w == W_RANDINT ? bf->bound : NULL) != 0)
                return -1;
            bf->init = w == W_RANDOM ? GL_KI_RANDOM : w == W_RANDINT ? GL_KI_RANDINT : GL_KI_NORMAL;
            bf->value = v[0];
            bf->value2 = v[1];
            if (takes && bounds(x, line, what, w, bf) != 0)
                return -1;
            break;
        case W_FILE: {
            char *close = *p == '(' ? strchr(p, ')') : NULL;
            if (!close || !*cfg_trim((*close = '\0', p + 1)))
                return cfg_err(x, line, "%s: file needs a path: file(PATH), relative to the "
                               "config's folder", what);
            char *path = cfg_trim(p + 1);
            p = close + 1;
            bf->init = GL_KI_FILE;
            if (file_init(x, line, what, path, bf) != 0)
                return -1;
            break;
        }
        case W_ZERO:
            bf->init = GL_KI_ZERO;
            break;
        default:
            bf->init = GL_KI_RAMP;
        }
    }
    if (!have_init) {
        bf->init = bf->output ? GL_KI_POISON : GL_KI_RANDOM;
        bf->value = 0.0;
        bf->value2 = 1.0;
    }
    if (bf->init == GL_KI_RANDOM || bf->init == GL_KI_RANDINT || bf->init == GL_KI_NORMAL)
        bf->stream = (*nrandom)++;
    return 0;
}
