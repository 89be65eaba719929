/* config_read.c - the first step of reading a config: its text into blocks of
 * `key = value` lines (the keys before the first section, then one block per
 * [section]), with comments cut and every line's syntax checked, every key known
 * (or a "did you mean"), allowed where it stands and not repeated. The keys a
 * config may have are listed here. A kernel section (one with `source =`) may
 * also have keys of its own and named parameters (any other identifier):
 * config_kernel.c judges those. Must not interpret a value: config_values.c,
 * config_parse.c and config_kernel.c do.
 * Text: a UTF-8 byte-order mark at the start is skipped; a NUL byte or invalid
 * UTF-8 is an error ("not text", with line and column); and no error message
 * ever carries a raw control byte (other than tab) or invalid UTF-8 from the
 * config to the terminal: cfg_err writes them as \xNN. */
#include "config_int.h"
#include "fileutil.h"
#include "nearest.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one parsed line, and the blocks of lines ------------------------------ */

/* Copy src into dst (size cap > 0), control bytes other than tab, DEL and bytes
 * of invalid UTF-8 written as \xNN; always terminated, cut at a whole piece. */
static void escape_text(char *dst, size_t cap, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src), o = 0;
    for (size_t i = 0; i < n;) {
        size_t len = gl_utf8_len(s + i, n - i);
        if (len == 0 || (len == 1 && ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7F))) {
            if (o + 4 >= cap)
                break;
            snprintf(dst + o, cap - o, "\\x%02X", s[i]);
            o += 4;
            i++;
            continue;
        }
        if (o + len >= cap)
            break;
        memcpy(dst + o, s + i, len);
        o += len;
        i += len;
    }
    dst[o] = '\0';
}

int cfg_err(struct ctx *x, int line, const char *fmt, ...)
{
    /* The whole message first, however long the input it echoes, so that
     * gl_text_fit shortens that input and keeps the reason after it. */
    char small[1024], safe[1024], *msg = small, *esc = NULL;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (!msg)
        msg = small;
    size_t len = strlen(msg);
    if ((esc = malloc(4 * len + 1)) != NULL)
        escape_text(esc, 4 * len + 1, msg);
    gl_text_fit(esc ? esc : "out of memory", safe, sizeof safe);
    snprintf(x->err, x->errlen, "%s:%d: %s", x->path, line, safe);
    free(esc);
    if (msg != small)
        free(msg);
    return -1;
}

int cfg_check_text(struct ctx *x, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    int line = 1;
    size_t col = 1;
    for (size_t i = 0; i < n;) {
        size_t len = s[i] ? gl_utf8_len(s + i, n - i) : 0;
        if (len == 0)
            return cfg_err(x, line, "not text (byte 0x%02X at column %zu)", s[i], col);
        if (s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;   /* a character, of len bytes */
        }
        i += len;
    }
    return 0;
}

const char *const cfg_section_keys[] = {
    "family", "variants", "where", "zip", "metrics", "warmup", "samples_min", "samples_max",
    "noise", "time_cap", "timeout", "strategy", "budget", "objective", "search_seed", NULL
};
/* `grid` is a parameter's name too: in a kernel section it is the launch grid. */
const char *const cfg_kernel_keys[] = {
    "source", "defines", "args", "block", "smem", "verify", "verify_reads", "tolerance", "flops",
    "bytes", "options", "compiler", "launch", "cluster", "arch", NULL
};
#define section_keys cfg_section_keys
static const char *const top_only_keys[] = { "study", "description", NULL };

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

static int known_key(const char *k)
{
    return gl_param_by_name(k) || in_list(section_keys, k) || in_list(top_only_keys, k);
}

static int is_ident(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

/* grid.NAME, block.NAME, smem.NAME, args.NAME: variant NAME's own launch. */
int cfg_is_variant_key(const char *k)
{
    static const char *const base[] = { "grid.", "block.", "smem.", "args.", NULL };
    for (int i = 0; base[i]; i++) {
        size_t n = strlen(base[i]);
        if (strncmp(k, base[i], n) == 0)
            return is_ident(k + n);
    }
    return 0;
}

/* the object keys' prefixes, in enum gl_kobj_kind's order */
static const char *const object_kinds[] = { "tensormap.", "texture.", "surface.", NULL };

int cfg_object_kind(const char *key)
{
    for (int i = 0; object_kinds[i]; i++)
        if (strncmp(key, object_kinds[i], strlen(object_kinds[i])) == 0)
            return i;
    return -1;
}

int cfg_is_kernel_key(const char *k)
{
    return in_list(cfg_kernel_keys, k) || strncmp(k, "buffer.", 7) == 0 || cfg_is_symbol_key(k) ||
           strncmp(k, "launch.", 7) == 0 || cfg_is_variant_key(k) ||
           strncmp(k, "array.", 6) == 0 || cfg_object_kind(k) >= 0;
}

/* Closest known key or parameter; *is_param says which it is (ties: parameter). */
static const char *nearest_key(const char *k, int *is_param)
{
    struct gl_nearest near;
    gl_nearest_init(&near, k);
    *is_param = 0;
    for (int i = 0; i < GL_NPARAMS; i++)
        if (gl_nearest_offer(&near, gl_param_table[i].name))
            *is_param = 1;
    const char *const *lists[] = { section_keys, top_only_keys };
    for (int l = 0; l < 2; l++)
        for (const char *const *c = lists[l]; *c; c++)
            if (gl_nearest_offer(&near, *c))
                *is_param = 0;
    return near.best;
}

struct entry *cfg_find(const struct block *b, const char *key)
{
    for (int i = 0; i < b->n; i++)
        if (strcmp(b->e[i].key, key) == 0)
            return &b->e[i];
    return NULL;
}

/* Cut a '#' comment that is not inside a quoted string. */
static void strip_comment(char *s)
{
    char quote = 0;
    for (; *s; s++) {
        if (quote) {
            if (*s == quote)
                quote = 0;
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        } else if (*s == '#') {
            *s = '\0';
            return;
        }
    }
}

static int valid_section_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return 0;
    return 1;
}

static int add_entry(struct block *b, const char *key, char *val, int line)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        struct entry *e = realloc(b->e, (size_t)cap * sizeof *e);
        if (!e)
            return -1;
        b->e = e;
        b->cap = cap;
    }
    struct entry *e = &b->e[b->n++];
    snprintf(e->key, sizeof e->key, "%s", key);
    e->val = val;
    e->line = line;
    return 0;
}

/* An unknown key where only known ones may stand: the error, with a suggestion. */
static int unknown_key(struct ctx *x, const char *key, int line)
{
    int is_param = 0;
    const char *near = nearest_key(key, &is_param);
    if (near)
        return cfg_err(x, line, "unknown %s '%s' (did you mean '%s'?)",
                       is_param ? "parameter" : "key", key, near);
    return cfg_err(x, line, "unknown key '%s'", key);
}

/* A section ends: without `source =`, its kernel keys and unknown identifiers
 * (kept for a kernel section's named parameters) are errors. */
static int close_block(struct ctx *x, const struct block *b, const struct block *top)
{
    if (!b->name[0] || cfg_find(b, "source") || cfg_find(top, "source"))
        return 0;
    for (int i = 0; i < b->n; i++) {
        const struct entry *e = &b->e[i];
        if (cfg_is_kernel_key(e->key))
            return cfg_err(x, e->line, "'%s' belongs in a kernel section, and section [%s] has no "
                           "'source =' (a CUDA file of your kernels)", e->key, b->name);
        if (!known_key(e->key))
            return unknown_key(x, e->key, e->line);
    }
    return 0;
}

/* Split the text (in place) into blocks; check the syntax of every line, that
 * every key is known, allowed where it stands and not repeated. */
int cfg_read_blocks(struct ctx *x, char *text, struct block **out, int *nout)
{
    struct block *b = calloc(1, sizeof *b);
    int nb = 1;
    if (!b)
        return cfg_err(x, 0, "out of memory");
    *out = b;
    *nout = 1;
    b[0].line = 1;
    if (cfg_check_text(x, text, strlen(text)) != 0)
        return -1;
    int line = 0;
    char *s = text;
    if (strncmp(s, "\xEF\xBB\xBF", 3) == 0)   /* a UTF-8 byte-order mark */
        s += 3;
    while (s) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char *l = s;
        s = nl ? nl + 1 : NULL;
        strip_comment(l);
        l = cfg_trim(l);
        if (!*l)
            continue;
        struct block *cur = &(*out)[nb - 1];
        if (*l == '[') {
            char *close = strchr(l, ']');
            if (!close)
                return cfg_err(x, line, "unterminated section header '%s'", l);
            *close = '\0';
            char *name = cfg_trim(l + 1), *rest = cfg_trim(close + 1);
            if (*rest)
                return cfg_err(x, line, "unexpected text '%s' after section header [%s]", rest, name);
            if (!valid_section_name(name))
                return cfg_err(x, line, "bad section name '[%s]' (letters, digits, _ and - only)",
                            name);
            if (strlen(name) >= sizeof b->name)
                return cfg_err(x, line, "section name '%s' is too long", name);
            if (close_block(x, cur, &(*out)[0]) != 0)
                return -1;
            for (int i = 1; i < nb; i++)
                if (strcmp((*out)[i].name, name) == 0)
                    return cfg_err(x, line, "section [%s] is already defined on line %d", name,
                                (*out)[i].line);
            struct block *nbk = realloc(*out, (size_t)(nb + 1) * sizeof *nbk);
            if (!nbk)
                return cfg_err(x, line, "out of memory");
            *out = nbk;
            memset(&nbk[nb], 0, sizeof nbk[nb]);
            snprintf(nbk[nb].name, sizeof nbk[nb].name, "%s", name);
            nbk[nb].line = line;
            nb++;
            *nout = nb;
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq)
            return cfg_err(x, line, "expected 'key = value', got '%s'", l);
        *eq = '\0';
        char *key = cfg_trim(l), *val = cfg_trim(eq + 1);
        if (!*key)
            return cfg_err(x, line, "missing key before '= %s'", val);
        if (strlen(key) >= sizeof cur->e[0].key)
            return cfg_err(x, line, "key '%.40s...' is too long", key);
        /* an identifier may be a kernel section's named parameter, in a section or
         * before the first one (a default: cfg_check_top judges it once every
         * section is known) */
        int maybe = (is_ident(key) || (strncmp(key, "buffer.", 7) == 0 && is_ident(key + 7)) ||
                                cfg_is_symbol_key(key) ||
                               (strncmp(key, "array.", 6) == 0 && is_ident(key + 6)) ||
                               (cfg_object_kind(key) >= 0 && is_ident(strchr(key, '.') + 1)) ||
                               (strncmp(key, "launch.", 7) == 0 && is_ident(key + 7)) ||
                               cfg_is_variant_key(key));
        if (!known_key(key) && !maybe)
            return unknown_key(x, key, line);
        if (!*val)
            return cfg_err(x, line, "'%s' has no value", key);
        if (nb > 1 && in_list(top_only_keys, key))
            return cfg_err(x, line, "'%s' is allowed only before the first section (it is in [%s])",
                        key, cur->name);
        if (strcmp(key, "where") != 0 && strcmp(key, "zip") != 0) {
            const struct entry *prev = cfg_find(cur, key);
            if (prev) {
                if (nb > 1)
                    return cfg_err(x, line, "duplicate key '%s' in section [%s] (first set on line "
                                "%d)", key, cur->name, prev->line);
                return cfg_err(x, line, "duplicate key '%s' before the first section (first set on "
                            "line %d)", key, prev->line);
            }
        }
        if (add_entry(cur, key, val, line) != 0)
            return cfg_err(x, line, "out of memory");
    }
    if (close_block(x, &(*out)[nb - 1], &(*out)[0]) != 0)
        return -1;
    return cfg_check_top(x, *out, nb);
}

/* The keys before the first section, once every section is read: in a config
 * without a kernel section (no `source =` anywhere) a kernel key or an unknown
 * identifier there is the error it always was. With one, config_defaults.c
 * judges them (each must find a kernel section that uses it). */
int cfg_check_top(struct ctx *x, const struct block *bl, int nb)
{
    const struct block *top = &bl[0];
    int kernel = cfg_find(top, "source") != NULL;
    for (int i = 1; i < nb && !kernel; i++)
        kernel = cfg_find(&bl[i], "source") != NULL;
    if (kernel)
        return 0;
    for (int i = 0; i < top->n; i++) {
        const struct entry *e = &top->e[i];
        if (cfg_is_kernel_key(e->key))
            return cfg_err(x, e->line, "'%s' belongs in a kernel section (one with 'source ='), "
                           "and this config has none", e->key);
        if (!known_key(e->key))
            return unknown_key(x, e->key, e->line);
    }
    return 0;
}

int cfg_is_known_key(const char *k)
{
    return known_key(k);
}

void cfg_free_blocks(struct block *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].e);
    free(b);
}
