/* config_objects.c - a kernel section's objects (kernel.h struct gl_kobject),
 * what the kernel reaches through a handle passed by value:
 *   tensormap.NAME = BUFFER dims(D0, D1, ...) box(B0, B1, ...) [strides(S1, ...)]
 *                    [type(T)] [elem_strides(E0, ...)] [interleave(none|16B|32B)]
 *                    [swizzle(none|32B|64B|128B)] [l2(none|64B|128B|256B)] [fill(zero|nan)]
 *   texture.NAME   = ARRAY-OR-BUFFER [filter(point|linear)] [address(clamp|wrap|mirror|border
 *                    [, ...])] [coords(element|normalized)] [read(element|normalized)]
 *   surface.NAME   = ARRAY
 * Dimensions go innermost first, as cuTensorMapEncodeTiled takes them; dims,
 * box and strides (bytes, of dimensions 1..rank-1; packed when left out) are
 * expressions of the point's parameters. The rules (kobject.h) are checked
 * here for what is constant; the plan checks each point's values.
 * Every mistake is "path:line: message" with the nearest valid word.
 * Must not evaluate anything but constants, nor know CUDA types. */
#include "config_int.h"
#include "kobject.h"
#include "nearest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tmap_words[] = { "dims", "box", "strides", "type", "elem_strides",
                                          "interleave", "swizzle", "l2", "fill", NULL };
static const char *const tex_words[] = { "filter", "address", "coords", "read", NULL };
static const char *const coords_words[] = { "element", "normalized", NULL };

struct oread {
    struct ctx *x;
    const struct entry *e;
    struct gl_section *s;
    struct gl_kernel *k;
    struct gl_expr_scope *sc;
    struct gl_kobject *o;
    char what[GL_KNAME + 16];
};

/* The index of word in list, or -1 with an error naming the nearest one. */
static int word_in(struct oread *r, const char *setting, const char *word,
                   const char *const *list)
{
    struct gl_nearest near;
    char all[256] = "";
    gl_nearest_init(&near, word);
    for (int i = 0; list[i]; i++) {
        if (strcmp(list[i], word) == 0)
            return i;
        gl_nearest_offer(&near, list[i]);
        cfg_add_to_list(all, sizeof all, list[i]);
    }
    if (near.best)
        cfg_err(r->x, r->e->line, "%s: unknown %s '%s' (did you mean '%s'?)", r->what, setting,
                word, near.best);
    else
        cfg_err(r->x, r->e->line, "%s: unknown %s '%s' (%s)", r->what, setting, word, all);
    return -1;
}

/* Split args (the text inside the parentheses) into at most max items. */
static int items(struct oread *r, const char *setting, char *args, char **out, int max)
{
    int n = 0;
    for (char *p = args; p;) {
        char *item = cfg_next_item(&p, 0);
        if (!*item)
            return cfg_err(r->x, r->e->line, "%s: empty item in %s(...)", r->what, setting);
        if (n == max)
            return cfg_err(r->x, r->e->line, "%s: %s(...) takes at most %d values", r->what,
                           setting, max);
        out[n++] = item;
    }
    return n;
}

/* One size list (dims, box, strides) of expressions: their count, or -1. */
static int sizes(struct oread *r, const char *setting, char *args, char (*out)[GL_KEXPR],
                 int first)
{
    char *it[GL_TMAP_RANK] = { NULL };
    char what[GL_KNAME + 40];
    int n = items(r, setting, args, it, GL_TMAP_RANK - first);
    if (n < 0)
        return -1;
    snprintf(what, sizeof what, "%s %s", r->what, setting);
    for (int i = 0; i < n; i++)
        if (cfg_kernel_check_expr(r->x, r->e->line, what, it[i], r->sc, r->s, out[first + i]) != 0)
            return -1;
    return n;
}

static int one_word(struct oread *r, const char *setting, char *args, const char *const *list)
{
    char *it[1] = { NULL };
    if (items(r, setting, args, it, 1) != 1)
        return -1;
    return word_in(r, setting, it[0], list);
}

static int tmap_setting(struct oread *r, int w, char *args, int *nbox, int *nstrides)
{
    struct gl_kobject *o = r->o;
    char *it[GL_TMAP_RANK] = { NULL };
    int n;
    switch (w) {
    case 0:
        return (o->rank = sizes(r, "dims", args, o->dims, 0)) < 0 ? -1 : 0;
    case 1:
        return (*nbox = sizes(r, "box", args, o->box, 0)) < 0 ? -1 : 0;
    case 2:
        return (*nstrides = sizes(r, "strides", args, o->strides, 1)) < 0 ? -1 : 0;
    case 3:
        if (items(r, "type", args, it, 1) != 1)
            return -1;
        if ((o->dtype = gl_tmap_dtype(it[0])) < 0) {
            const char *names[16];
            int k = 0;
            for (int d = 0; gl_tmap_dtype_size(d) > 0 && k < 15; d++)
                names[k++] = gl_tmap_dtype_name(d);
            names[k] = NULL;
            return word_in(r, "data type", it[0], names) < 0 ? -1 : 0;
        }
        return 0;
    case 4:
        if ((n = items(r, "elem_strides", args, it, GL_TMAP_RANK)) < 0)
            return -1;
        for (int i = 0; i < n; i++) {
            char *end;
            long v = strtol(it[i], &end, 10);
            if (*end || v < 1 || v > 8)
                return cfg_err(r->x, r->e->line, "%s: elem_strides: '%s' is not 1 to 8",
                               r->what, it[i]);
            o->elem_strides[i] = (int)v;
        }
        return 0;
    case 5:
        return (o->interleave = one_word(r, "interleave", args, gl_tmap_interleaves)) < 0 ? -1 : 0;
    case 6:
        return (o->swizzle = one_word(r, "swizzle", args, gl_tmap_swizzles)) < 0 ? -1 : 0;
    case 7:
        return (o->l2 = one_word(r, "l2", args, gl_tmap_l2s)) < 0 ? -1 : 0;
    default:
        return (o->fill = one_word(r, "fill", args, gl_tmap_fills)) < 0 ? -1 : 0;
    }
}

static int tex_setting(struct oread *r, int w, char *args)
{
    struct gl_kobject *o = r->o;
    char *it[3] = { NULL };
    int n;
    switch (w) {
    case 0:
        return (o->filter = one_word(r, "filter", args, gl_tex_filters)) < 0 ? -1 : 0;
    case 1:
        if ((n = items(r, "address", args, it, 3)) < 0)
            return -1;
        for (int i = 0; i < 3; i++)   /* one mode: every dimension's */
            if ((o->address[i] = word_in(r, "address mode", it[i < n ? i : n - 1],
                                         gl_tex_addresses)) < 0)
                return -1;
        return 0;
    case 2:
        return (o->normalized = one_word(r, "coords", args, coords_words)) < 0 ? -1 : 0;
    default:
        return (o->read_normalized = one_word(r, "read", args, coords_words)) < 0 ? -1 : 0;
    }
}

static int find_buffer(const struct gl_kernel *k, const char *name)
{
    for (int i = 0; i < k->nbuffers; i++)
        if (strcmp(k->buffers[i].name, name) == 0)
            return i;
    return -1;
}

/* The object's source: a buffer or an array of the section, as its kind allows. */
static int source(struct oread *r, const char *name)
{
    struct gl_kobject *o = r->o;
    const struct gl_kernel *k = r->k;
    int b = find_buffer(k, name);
    if (b < 0) {
        struct gl_nearest near;
        char list[512] = "";
        gl_nearest_init(&near, name);
        for (int i = 0; i < k->nbuffers; i++) {
            gl_nearest_offer(&near, k->buffers[i].name);
            cfg_add_to_list(list, sizeof list, k->buffers[i].name);
        }
        if (near.best)
            return cfg_err(r->x, r->e->line, "%s: no buffer or array '%s' (did you mean '%s'?)",
                           r->what, name, near.best);
        return cfg_err(r->x, r->e->line, "%s: no buffer or array '%s' (declared: %s)", r->what,
                       name, list[0] ? list : "none");
    }
    const struct gl_kbuffer *bf = &k->buffers[b];
    o->source = b;
    if (bf->symbol)
        return cfg_err(r->x, r->e->line, "%s: '%s' is a symbol (a module variable), not a "
                       "buffer", r->what, name);
    if (o->kind == GL_KO_SURFACE && !bf->array)
        return cfg_err(r->x, r->e->line, "%s: a surface is over an array (array.%s = TYPE[W, "
                       "H]), and '%s' is a buffer", r->what, name, name);
    if (o->kind == GL_KO_TENSORMAP && bf->array)
        return cfg_err(r->x, r->e->line, "%s: a tensor map is over a buffer in global memory, "
                       "and '%s' is an array", r->what, name);
    if (o->kind == GL_KO_TEXTURE && !bf->array && !bf->tparam[0] &&
        !gl_kobj_texture_type(bf->type))
        return cfg_err(r->x, r->e->line, "%s: textures read float, half, int, uint, int8 and "
                       "uint8 elements; buffer '%s' holds %s", r->what, name,
                       gl_ktype_name(bf->type));
    return 0;
}

/* What a texture's settings allow together, and a tensor map's sizes. */
static int consistent(struct oread *r, int nbox, int nstrides)
{
    struct gl_kobject *o = r->o;
    const struct gl_kbuffer *bf = &r->k->buffers[o->source];
    if (o->kind == GL_KO_TENSORMAP) {
        if (o->rank == 0 || nbox == 0)
            return cfg_err(r->x, r->e->line, "%s: a tensor map needs dims(...) and box(...), "
                           "innermost dimension first", r->what);
        if (nbox != o->rank)
            return cfg_err(r->x, r->e->line, "%s: box has %d sides but dims %d", r->what, nbox,
                           o->rank);
        if (nstrides > 0 && nstrides != o->rank - 1)
            return cfg_err(r->x, r->e->line, "%s: strides(...) gives the byte strides of "
                           "dimensions 1 to %d: %d values, not %d", r->what, o->rank - 1,
                           o->rank - 1, nstrides);
        char msg[300];
        struct gl_params none;
        gl_params_init(&none);
        if (gl_tmap_eval(r->k, o, &none, 1, NULL, msg, sizeof msg) != 0)
            return cfg_err(r->x, r->e->line, "%s: %s", r->what, msg);
        return 0;
    }
    if (o->kind != GL_KO_TEXTURE)
        return 0;
    int t = bf->type, small = t == GL_KT_INT8 || t == GL_KT_UINT8 || t == GL_KT_HALF;
    if (!bf->array) {
        if (o->filter || o->normalized)
            return cfg_err(r->x, r->e->line, "%s: a texture over a buffer (linear memory) reads "
                           "element i with tex1Dfetch: no %s; declare an array (array.NAME = "
                           "TYPE[W, H]) to filter or normalise", r->what,
                           o->filter ? "filter(linear)" : "coords(normalized)");
    }
    if (o->read_normalized && t != GL_KT_INT8 && t != GL_KT_UINT8)
        return cfg_err(r->x, r->e->line, "%s: read(normalized) is for 8-bit integer elements "
                       "(read as [0, 1] or [-1, 1]), not %s", r->what, gl_ktype_name(t));
    if (o->filter == 1 && (t == GL_KT_INT || t == GL_KT_UINT ||
                           ((t == GL_KT_INT8 || t == GL_KT_UINT8) && !o->read_normalized)))
        return cfg_err(r->x, r->e->line, "%s: filter(linear) interpolates floating-point reads: "
                       "%s elements cannot be filtered%s", r->what, gl_ktype_name(t),
                       small ? " unless read(normalized)" : "");
    for (int i = 0; i < 3; i++)
        if ((o->address[i] == 0 || o->address[i] == 2) && !o->normalized)
            return cfg_err(r->x, r->e->line, "%s: address(%s) needs coords(normalized) (with "
                           "element coordinates the texture unit clamps)", r->what,
                           gl_tex_addresses[o->address[i]]);
    return 0;
}

static int one_object(struct ctx *x, const struct entry *e, struct gl_section *s,
                      struct gl_kernel *k, struct gl_expr_scope *sc)
{
    int kind = cfg_object_kind(e->key);
    const char *name = strchr(e->key, '.') + 1;
    struct oread r = { x, e, s, k, sc, NULL, "" };
    snprintf(r.what, sizeof r.what, "%s", e->key);
    if (!cfg_is_ident(name) || strlen(name) >= GL_KNAME)
        return cfg_err(x, e->line, "%s: bad name '%s' (a C identifier of at most %d characters)",
                       e->key, name, GL_KNAME - 1);
    if (find_buffer(k, name) >= 0)
        return cfg_err(x, e->line, "%s: '%s' is a buffer's name too", e->key, name);
    for (int i = 0; i < k->nobjects; i++)
        if (strcmp(k->objects[i].name, name) == 0)
            return cfg_err(x, e->line, "%s: '%s' is declared twice (line %d)", e->key, name,
                           k->objects[i].line);
    if (k->nobjects == GL_KERNEL_MAX_OBJECTS)
        return cfg_err(x, e->line, "more than %d tensor maps, textures and surfaces in section "
                       "[%s]", GL_KERNEL_MAX_OBJECTS, s->name);
    struct gl_kobject *o = r.o = &k->objects[k->nobjects];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->kind = kind;
    o->line = e->line;
    o->dtype = -1;
    o->address[0] = o->address[1] = o->address[2] = 1;   /* clamp */
    char val[2048];
    if (strlen(e->val) >= sizeof val)
        return cfg_err(x, e->line, "%s: value too long", e->key);
    snprintf(val, sizeof val, "%s", e->val);
    char *p = val;
    size_t n = 0;
    while (cfg_ident_char(p[n]))
        n++;
    if (n == 0)
        return cfg_err(x, e->line, "%s = '%s': want the %s it is over first", e->key, e->val,
                       kind == GL_KO_TENSORMAP ? "buffer" : kind == GL_KO_SURFACE ? "array"
                                                                        : "array or buffer");
    char src[GL_KNAME];
    snprintf(src, sizeof src, "%.*s", (int)(n < GL_KNAME - 1 ? n : GL_KNAME - 1), p);
    if (source(&r, src) != 0)
        return -1;
    p += n;
    int nbox = 0, nstrides = 0;
    unsigned seen = 0;
    const char *const *list = kind == GL_KO_TENSORMAP ? tmap_words
                              : kind == GL_KO_TEXTURE ? tex_words : NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char word[64];
        n = 0;
        while (cfg_ident_char(p[n]))
            n++;
        if (n == 0)
            n = strcspn(p, " \t(");
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), p);
        if (!list)
            return cfg_err(x, e->line, "%s: a surface takes no settings ('%s'): surface.%s = "
                           "ARRAY", e->key, word, name);
        int w = word_in(&r, "setting", word, list);
        if (w < 0)
            return -1;
        if (seen & (1u << w))
            return cfg_err(x, e->line, "%s: %s(...) is given twice", e->key, word);
        seen |= 1u << w;
        p += n;
        while (*p == ' ' || *p == '\t')
            p++;
        char *close = NULL;
        if (*p == '(') {
            int depth = 0;
            for (close = p; *close; close++)
                if (*close == '(')
                    depth++;
                else if (*close == ')' && --depth == 0)
                    break;
        }
        if (!close || !*close)
            return cfg_err(x, e->line, "%s: %s needs its values in parentheses: %s(...)",
                           e->key, word, word);
        *close = '\0';
        char *args = p + 1;
        p = close + 1;
        if (kind == GL_KO_TENSORMAP ? tmap_setting(&r, w, args, &nbox, &nstrides) != 0
                                    : tex_setting(&r, w, args) != 0)
            return -1;
    }
    if (consistent(&r, nbox, nstrides) != 0)
        return -1;
    k->nobjects++;
    return 0;
}

int cfg_kernel_objects(struct ctx *x, const struct block *b, struct gl_section *s,
                       struct gl_kernel *k, struct gl_expr_scope *sc)
{
    for (int i = 0; i < b->n; i++)
        if (cfg_object_kind(b->e[i].key) >= 0 && one_object(x, &b->e[i], s, k, sc) != 0)
            return -1;
    return 0;
}
