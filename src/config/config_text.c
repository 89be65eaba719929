/* config_text.c - the small text helpers of kernel sections' readers
 * (config_kernel.c, config_launches.c): C identifiers, a comma list for
 * messages, the next comma-separated item outside parentheses (and angle
 * brackets), the __global__ functions a source defines, whether it (or a user
 * header it includes) uses a name,
 * the expression language's function names, and a symbol.NAME key's form.
 * Must not read configs or report errors: the callers do. */
#include "config_int.h"
#include "deps.h"

#include <stdio.h>
#include <string.h>

/* s without its leading and trailing blanks (cut in place). */
char *cfg_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

const char *const cfg_function_names[] = { "ceil", "cdiv", "div", "min", "max", "log2", "pow",
                                            "occupancy", "sm_count",
                                            NULL };

int cfg_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

int cfg_ident_char(char c)
{
    return cfg_ident_start(c) || (c >= '0' && c <= '9');
}

int cfg_is_ident(const char *s)
{
    if (!cfg_ident_start(*s))
        return 0;
    while (*++s)
        if (!cfg_ident_char(*s))
            return 0;
    return 1;
}

/* Append ", item" (or "item" first) to the list in buf, as far as it fits. */
void cfg_add_to_list(char *buf, size_t len, const char *item)
{
    size_t n = strlen(buf), m = strlen(item), sep = n ? 2 : 0;
    if (n + sep + m + 1 > len)
        return;
    memcpy(buf + n, ", ", sep);
    memcpy(buf + n + sep, item, m + 1);
}

/* Cut the next item of a comma-separated list at *p, outside () (and <> when
 * angle): the trimmed item, and *p past its comma (NULL after the last). */
char *cfg_next_item(char **p, int angle)
{
    char *s = *p;
    int depth = 0;
    for (char *c = s; *c; c++) {
        if (*c == '(' || (angle && *c == '<'))
            depth++;
        else if ((*c == ')' || (angle && *c == '>')) && depth > 0)
            depth--;
        else if (*c == ',' && depth == 0) {
            *c = '\0';
            *p = c + 1;
            return cfg_trim(s);
        }
    }
    *p = NULL;
    return cfg_trim(s);
}

/* Up to max names of the source's __global__ functions (for suggestions). */
int cfg_global_names(const char *text, char names[][GL_KNAME], int max)
{
    int n = 0;
    for (const char *p = strstr(text, "__global__"); p && n < max; p = strstr(p, "__global__")) {
        p += 10;
        const char *c = p;
        for (int guard = 0; *c && guard < 512; guard++) {
            while (*c && !cfg_ident_start(*c) && *c != '(' && *c != ';' && *c != '{')
                c++;
            if (!*c || *c == ';' || *c == '{' || *c == '(')
                break;
            const char *s = c;
            while (cfg_ident_char(*c))
                c++;
            size_t len = (size_t)(c - s);
            const char *t = c;
            while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
                t++;
            if (*t != '(')
                continue;
            if (len == 17 && strncmp(s, "__launch_bounds__", 17) == 0) {
                int depth = 0;
                for (c = t; *c; c++) {
                    if (*c == '(')
                        depth++;
                    else if (*c == ')' && --depth == 0) {
                        c++;
                        break;
                    }
                }
                continue;
            }
            if (len < GL_KNAME)
                snprintf(names[n++], GL_KNAME, "%.*s", (int)len, s);
            break;
        }
    }
    return n;
}

/* 1 if name occurs in text as a whole identifier. */
int cfg_has_ident(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
        if ((p == text || !cfg_ident_char(p[-1])) && !cfg_ident_char(p[n]))
            return 1;
    return 0;
}

int cfg_kernel_has_ident(const struct gl_kernel *k, const char *name, char names[][GL_KNAME],
                         int max, int *n)
{
    int found = cfg_has_ident(k->text, name);
    if (n)
        *n = cfg_global_names(k->text, names, max);
    if (found && !n)
        return 1;
    /* the user headers the source includes: a kernel defined in one can be named */
    const char *dirs[GL_KERNEL_MAX_OPTIONS];
    int ndirs = gl_kernel_include_dirs(k, dirs, GL_KERNEL_MAX_OPTIONS);
    struct gl_deps d;
    char err[600];
    memset(&d, 0, sizeof d);
    if (gl_deps_scan(k->source, k->text, dirs, ndirs, k->config_dir, &d, err, sizeof err) == 0)
        for (int i = 0; i < d.n; i++) {
            found = found || cfg_has_ident(d.d[i].text, name);
            if (n && *n < max)
                *n += cfg_global_names(d.d[i].text, names + *n, max - *n);
        }
    gl_deps_free(&d);
    return found;
}

int cfg_is_symbol_key(const char *key)
{
    if (strncmp(key, "symbol.", 7) != 0)
        return 0;
    const char *s = key + 7;
    for (;;) {
        if (!cfg_ident_start(*s))
            return 0;
        while (cfg_ident_char(*s))
            s++;
        if (!*s)
            return 1;
        if (s[0] != ':' || s[1] != ':')
            return 0;
        s += 2;
    }
}

int cfg_kernel_expr(const char *expr, char *func, size_t len)
{
    const char *lt = strchr(expr, '<');
    snprintf(func, len, "%.*s", (int)(lt ? (size_t)(lt - expr) : strlen(expr)), expr);
    cfg_trim(func);
    int ok = cfg_ident_start(func[0]);
    for (const char *c = func; *c && ok; c++)
        ok = cfg_ident_char(*c) || *c == ':';
    if (ok && lt) {
        int depth = 0;
        const char *c;
        for (c = lt; *c; c++) {
            if (*c == '<')
                depth++;
            else if (*c == '>' && --depth == 0)
                break;
        }
        ok = *c == '>' && c[1] == '\0' && c > lt + 1;
    }
    return ok;
}
