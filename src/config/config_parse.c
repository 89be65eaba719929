/* config_parse.c - read an experiment config (see config.h) into struct
 * gl_config: the section rules on top of config_read.c (lines into blocks),
 * config_values.c (one value) and config_section.c (zip groups, where-expressions,
 * timing policy: the keys every section has): family and variants, parameters
 * and metrics text. Every error is
 * "path:line: message" naming the offending text. Expansion into jobs is expand.c.
 *
 * Keys before the first section are study, description, and defaults for every
 * section: a section's own key replaces the default. A default parameter only
 * applies to sections with a variant that reads it; default where and zip lines
 * only to sections that set every parameter they name (each must apply somewhere).
 * A section with `source =` is a kernel section: config_kernel.c reads it, with
 * the zip, where and timing rules of config_section.c.
 * Must not run anything, touch the database or know about CUDA. */
#include "config_int.h"
#include "fileutil.h"
#include "nearest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- sections -------------------------------------------------------------- */

/* Parameters without a default: a variant that reads one needs it set. */

static int add_variant(struct ctx *x, struct gl_section *s, const char *name, int line)
{
    if (s->nvariants == GL_MAX_VARIANTS)
        return cfg_err(x, line, "more than %d variants in section [%s]", GL_MAX_VARIANTS, s->name);
    snprintf(s->variants[s->nvariants++], sizeof s->variants[0], "%s", name);
    return 0;
}

static int has_variant(const struct gl_section *s, const char *name)
{
    for (int i = 0; i < s->nvariants; i++)
        if (strcmp(s->variants[i], name) == 0)
            return 1;
    return 0;
}

static int parse_variants(struct ctx *x, struct gl_section *s, const struct entry *e)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", e->val);
    s->variants_line = e->line;
    char *save = NULL;
    for (char *p = buf; p; p = save) {
        save = strchr(p, ',');
        if (save)
            *save++ = '\0';
        char *name = cfg_trim(p);
        if (!*name)
            return cfg_err(x, e->line, "empty item in variants list '%s'", e->val);
        if (strcmp(name, "all") == 0 || strcmp(name, "cpu") == 0 || strcmp(name, "gpu") == 0) {
            for (int i = 0; i < gl_registry_count(); i++) {
                const struct gl_variant *v = gl_registry_at(i);
                if (strcmp(v->family, s->family) != 0 || has_variant(s, v->name))
                    continue;
                if (strcmp(name, "all") == 0 || strcmp(name, v->device) == 0)
                    if (add_variant(x, s, v->name, e->line) != 0)
                        return -1;
            }
            continue;
        }
        if (!gl_variant_find(s->family, name)) {
            const char *near = gl_variant_nearest(s->family, name);
            if (near)
                return cfg_err(x, e->line, "unknown variant '%s' of family %s (did you mean '%s'?)",
                            name, s->family, near);
            char list[512] = "";
            for (int i = 0; i < gl_registry_count(); i++)
                if (strcmp(gl_registry_at(i)->family, s->family) == 0)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                             list[0] ? ", " : "", gl_registry_at(i)->name);
            if (gl_registry_gpu_why()[0])
                return cfg_err(x, e->line, "unknown variant '%s' of family %s (variants: %s; the "
                            "GPU variants are missing: %s)", name, s->family, list,
                            gl_registry_gpu_why());
            return cfg_err(x, e->line, "unknown variant '%s' of family %s (variants: %s)", name,
                        s->family, list);
        }
        if (has_variant(s, name))
            return cfg_err(x, e->line, "variant '%s' is listed twice in section [%s]", name, s->name);
        if (add_variant(x, s, name, e->line) != 0)
            return -1;
    }
    if (s->nvariants == 0)
        return cfg_err(x, e->line, "no variants of family %s match '%s'", s->family, e->val);
    return 0;
}

static int section_variants(struct ctx *x, const struct block *b, const struct block *top,
                            struct gl_section *s, unsigned *reads)
{
    char fams[256] = "";
    for (int i = 0; i < gl_registry_count(); i++) {
        const char *f = gl_registry_at(i)->family;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(gl_registry_at(j)->family, f) == 0;
        if (!seen)
            snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s", fams[0] ? ", " : "",
                     f);
    }
    const struct entry *e = cfg_pick(b, top, "family");
    if (!e)
        return cfg_err(x, b->line, "section [%s] has no 'family' (%s)", s->name, fams);
    if (!gl_family_known(e->val)) {
        const char *near = gl_family_nearest(e->val);
        if (near)
            return cfg_err(x, e->line, "unknown family '%s' (did you mean '%s'?)", e->val, near);
        return cfg_err(x, e->line, "unknown family '%s' (%s)", e->val, fams);
    }
    snprintf(s->family, sizeof s->family, "%s", e->val);
    if (!(e = cfg_pick(b, top, "variants")))
        return cfg_err(x, b->line, "section [%s] has no 'variants' (names, or all, cpu, gpu)",
                    s->name);
    if (parse_variants(x, s, e) != 0)
        return -1;
    *reads = 0;
    for (int i = 0; i < s->nvariants; i++)
        *reads |= gl_variant_find(s->family, s->variants[i])->params;
    return 0;
}

/* Parameters: the section's own (an error if no variant reads it), else the
 * default where a variant reads it; then every parameter without a default
 * that a variant reads must be set. */
static int section_params(struct ctx *x, const struct block *b, const struct block *top,
                          unsigned reads, struct top_use *use, struct gl_section *s)
{
    for (int i = 0; i < GL_NPARAMS; i++) {
        const struct gl_param_def *d = &gl_param_table[i];
        const struct entry *e;
        const struct entry *t = cfg_find(top, d->name);
        if (t && cfg_is_kernel_default(t))
            t = NULL;   /* a launch grid (grid = cdiv(N, BS)): kernel sections' */
        if ((reads & GL_PBIT(i)) && t)
            use->param[i] = 1;
        if ((e = cfg_find(b, d->name))) {
            if (!(reads & GL_PBIT(i)))
                return cfg_err(x, e->line, "parameter '%s' is not read by any variant of section "
                            "[%s]", d->name, s->name);
        } else if (!(reads & GL_PBIT(i)) || !(e = t)) {
            continue;
        }
        if (cfg_parse_values(x, d, e, &s->values[i]) != 0)
            return -1;
    }
    for (int i = 0; i < s->nvariants; i++) {
        const struct gl_variant *v = gl_variant_find(s->family, s->variants[i]);
        for (int p = 0; p < GL_NPARAMS; p++)
            if ((v->params & GL_PBIT(p)) && !gl_param_table[p].deflt && !s->values[p].set)
                return cfg_err(x, s->variants_line, "variant '%s' reads %s, which section [%s] does "
                            "not set", v->name, gl_param_table[p].name, s->name);
    }
    return 0;
}

/* zip: the section's own lines, else the defaults whose parameters it sets. */
static int build_section(struct ctx *x, const struct block *b, const struct block *top,
                         struct top_use *use, struct gl_section *s, int *kused)
{
    unsigned reads = 0;
    snprintf(s->name, sizeof s->name, "%s", b->name);
    s->line = b->line;
    if (cfg_find(b, "source") || cfg_find(top, "source")) {
        /* a kernel section: its own lines and the defaults it takes (config_defaults.c) */
        struct block m;
        int rc = cfg_kernel_block(x, top, b, kused, &m);
        if (rc == 0)
            rc = cfg_kernel_section(x, &m, top, use, s);
        free(m.e);
        return rc;
    }
    if (section_variants(x, b, top, s, &reads) != 0 ||
        section_params(x, b, top, reads, use, s) != 0 || cfg_section_zip(x, b, top, use, s) != 0 ||
        cfg_section_where(x, b, top, use, s, NULL) != 0 || cfg_section_timing(x, b, top, s) != 0)
        return -1;
    return cfg_section_size(x, s);
}

static void free_section(struct gl_section *s)
{
    cfg_kernel_free(s);
    for (int i = 0; i < GL_MAX_UPARAMS; i++)
        cfg_free_values(&s->uvalues[i]);
    for (int i = 0; i < GL_NPARAMS; i++)
        cfg_free_values(&s->values[i]);
    for (int i = 0; i < s->nwhere; i++)
        free(s->where[i]);
    s->nwhere = 0;
}

void gl_config_free(struct gl_config *c)
{
    for (int i = 0; i < c->nsections; i++)
        free_section(&c->sections[i]);
    free(c->sections);
    free(c->text);
    memset(c, 0, sizeof *c);
}

static void default_study(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".conf") == 0)
        n -= 5;
    snprintf(out, len, "%.*s", (int)n, base);
}

static int parse_blocks(struct ctx *x, struct gl_config *c, struct block *bl, int nb)
{
    const struct block *top = &bl[0];
    struct top_use use;
    memset(&use, 0, sizeof use);
    int rc = -1, *kused = NULL;
    use.where = calloc((size_t)top->n + 1, sizeof *use.where);
    use.zip = calloc((size_t)top->n + 1, sizeof *use.zip);
    if (!use.where || !use.zip) {
        cfg_err(x, 0, "out of memory");
        goto out;
    }
    const struct entry *e;
    if ((e = cfg_find(top, "study"))) {
        if (strlen(e->val) >= sizeof c->study) {
            cfg_err(x, e->line, "study name '%s' is longer than %zu characters", e->val,
                 sizeof c->study - 1);
            goto out;
        }
        snprintf(c->study, sizeof c->study, "%s", e->val);
    } else {
        default_study(c->path, c->study, sizeof c->study);
    }
    if ((e = cfg_find(top, "description"))) {
        if (strlen(e->val) >= sizeof c->description) {
            cfg_err(x, e->line, "description is longer than %zu characters",
                 sizeof c->description - 1);
            goto out;
        }
        snprintf(c->description, sizeof c->description, "%s", e->val);
    }
    if (nb < 2) {
        cfg_err(x, 1, "no [section] in the config: nothing to run");
        goto out;
    }
    c->sections = calloc((size_t)(nb - 1), sizeof *c->sections);
    if (!c->sections) {
        cfg_err(x, 0, "out of memory");
        goto out;
    }
    kused = calloc((size_t)top->n + 1, sizeof *kused);
    if (!kused) {
        cfg_err(x, 0, "out of memory");
        goto out;
    }
    int nkernel = 0;
    for (int i = 1; i < nb; i++) {
        c->nsections = i;
        if (build_section(x, &bl[i], top, &use, &c->sections[i - 1], kused) != 0 ||
            cfg_section_search(x, &bl[i], top, &c->sections[i - 1]) != 0)
            goto out;
        nkernel += c->sections[i - 1].kernel != NULL;
    }
    if (cfg_top_unused(x, top, kused, nkernel) != 0 || cfg_kernel_cross_verify(x, c) != 0)
        goto out;
    /* every default must have applied somewhere */
    for (int i = 0; i < top->n; i++) {
        const struct entry *t = &top->e[i];
        const struct gl_param_def *d = gl_param_by_name(t->key);
        if (d && !use.param[d->id] && !cfg_is_kernel_default(t)) {
            cfg_err(x, t->line, "parameter '%s' is not read by any variant of any section", d->name);
            goto out;
        }
        if (strcmp(t->key, "where") == 0 && !use.where[i]) {
            /* its own mistake (syntax, a name no section has) if it has one */
            static char names[GL_MAX_UPARAMS][GL_UPARAM_NAME];
            int nn = 0;
            for (int si = 0; si < c->nsections; si++)
                for (int u = 0; u < c->sections[si].nuser && nn < GL_MAX_UPARAMS; u++) {
                    int seen = 0;
                    for (int k = 0; k < nn && !seen; k++)
                        seen = strcmp(names[k], c->sections[si].uname[u]) == 0;
                    if (!seen)
                        memcpy(names[nn++], c->sections[si].uname[u], GL_UPARAM_NAME);
                }
            struct gl_expr_scope any = { ~0u, nn, (const char (*)[GL_UPARAM_NAME])names, 0, 0 };
            char msg[512];
            if (gl_expr_check_scope(t->val, &any, msg, sizeof msg) != 0)
                cfg_err(x, t->line, "where '%.200s': %s", t->val, msg);
            else
                cfg_err(x, t->line, "where '%.200s' applies to no section (none sets every "
                        "parameter it names)", t->val);
            goto out;
        }
        if (strcmp(t->key, "zip") == 0 && !use.zip[i]) {
            int own = 1;
            for (int s = 1; s < nb && own; s++)
                own = cfg_find(&bl[s], "zip") != NULL;
            cfg_err(x, t->line, "zip '%s' applies to no section (%s)", t->val,
                 own ? "every section has its own zip" : "none sets every parameter it names");
            goto out;
        }
    }
    rc = 0;
out:
    free(kused);
    free(use.where);
    free(use.zip);
    return rc;
}

int gl_config_parse(const char *path, const char *text, struct gl_config *c, char *err,
                    size_t errlen)
{
    struct ctx x = { path, err, errlen };
    struct block *bl = NULL;
    int nb = 0;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->text = strdup(text);
    char *work = strdup(text);
    if (!c->text || !work) {
        free(work);
        gl_config_free(c);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = cfg_read_blocks(&x, work, &bl, &nb);
    if (rc == 0)
        rc = parse_blocks(&x, c, bl, nb);
    cfg_free_blocks(bl, nb);
    free(work);
    if (rc != 0)
        gl_config_free(c);
    return rc;
}

int gl_config_load(const char *path, struct gl_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    size_t n = 0;
    char why[1200];
    /* a regular file of at most GL_TEXT_MAX (16 MiB), or a pipe (`plan <(...)`) */
    char *buf = gl_file_read_max(path, GL_TEXT_MAX, GL_READ_PIPE, &n, why, sizeof why);
    if (!buf) {
        size_t pl = strlen(path);
        const char *w = strncmp(why, path, pl) == 0 && why[pl] == ':' ? why + pl + 2 : why;
        snprintf(err, errlen, "%s: cannot read the config: %s", path, w);
        return -1;
    }
    buf[n] = '\0';
    struct ctx x = { path, err, errlen };
    if (cfg_check_text(&x, buf, n) != 0) {   /* a NUL byte or invalid UTF-8 */
        free(buf);
        return -1;
    }
    int rc = gl_config_parse(path, buf, c, err, errlen);
    free(buf);
    return rc;
}
