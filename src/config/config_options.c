/* config_options.c - how a kernel section's kernels are compiled: `options =`
 * (extra compiler options, split like a shell splits words: whitespace, '...'
 * and "..." quotes, a backslash outside single quotes; an include folder
 * -I DIR, -IDIR, --include-path DIR or --include-path=DIR found from the
 * config's folder and made one absolute -I<DIR>), `compiler = auto | nvrtc | nvcc`
 * (auto, the default: NVRTC unless the file's text shows host code, ksource.c),
 * and the config's folder (kernel.h's config_dir: user headers are named
 * relative to it). Options gpulab sets itself (the architecture, the output)
 * are refused here; any other mistake in an option is the compiler's to find
 * (plan compiles, and names this line).
 * Must not compile or run anything. */
#include "config_int.h"
#include "fileutil.h"
#include "ksource.h"
#include "nearest.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Options that would fight gpulab's own: the target, the output, the mode. */
static const char *const refused[] = {
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code",
    "-o", "--output-file", "-c", "--compile", "-cubin", "--cubin", "-ptx", "--ptx",
    "-fatbin", "--fatbin", "-E", "--preprocess", "-M", "--generate-dependencies", NULL
};

/* The refused option that word is (as itself or NAME=VALUE), or NULL. */
static const char *refused_option(const char *word)
{
    for (int i = 0; refused[i]; i++) {
        size_t n = strlen(refused[i]);
        if (strncmp(word, refused[i], n) == 0 && (word[n] == '\0' || word[n] == '='))
            return refused[i];
    }
    if (strncmp(word, "-arch=", 6) == 0 || strncmp(word, "-arch", 5) == 0)
        return "-arch";
    return NULL;
}

/* Split text into words (in place into buf): a shell's word rules without
 * expansions. The count, or -1 with *why (an open quote, too many, too long). */
static int split_words(const char *text, char words[][GL_KOPTION], int max, const char **why)
{
    int n = 0;
    const char *s = text;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        if (n == max) {
            *why = "too many options";
            return -1;
        }
        size_t o = 0;
        int have = 0;
        while (*s && *s != ' ' && *s != '\t') {
            char c = *s++;
            if (c == '\'') {
                const char *close = strchr(s, '\'');
                if (!close) {
                    *why = "a ' quote is not closed";
                    return -1;
                }
                for (; s < close; s++) {
                    if (o + 1 >= GL_KOPTION)
                        goto too_long;
                    words[n][o++] = *s;
                }
                s++;
                have = 1;
                continue;
            }
            if (c == '"') {
                for (; *s && *s != '"'; s++) {
                    if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
                        s++;
                    if (o + 1 >= GL_KOPTION)
                        goto too_long;
                    words[n][o++] = *s;
                }
                if (*s != '"') {
                    *why = "a \" quote is not closed";
                    return -1;
                }
                s++;
                have = 1;
                continue;
            }
            if (c == '\\' && *s)
                c = *s++;
            if (o + 1 >= GL_KOPTION)
                goto too_long;
            words[n][o++] = c;
            have = 1;
        }
        if (have) {
            words[n][o] = '\0';
            n++;
        }
    }
too_long:
    *why = "an option is too long";
    return -1;
}

/* dir (relative to the config's folder cdir unless absolute) as an existing
 * folder's absolute path into out. 0, or -1 with errno. */
static int include_folder(const char *cdir, const char *dir, char *out, size_t len)
{
    char path[PATH_MAX * 2], real[PATH_MAX];
    struct stat st;
    if (dir[0] == '/')
        snprintf(path, sizeof path, "%s", dir);
    else
        snprintf(path, sizeof path, "%s/%s", cdir, dir);
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    if (!realpath(path, real))
        return -1;
    if (strlen(real) + 1 > len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(out, len, "%s", real);
    return 0;
}

static int read_options(struct ctx *x, const struct entry *e, struct gl_kernel *k)
{
    static char words[GL_KERNEL_MAX_OPTIONS][GL_KOPTION];
    const char *why = NULL;
    if (strlen(e->val) >= sizeof k->options_text)
        return cfg_err(x, e->line, "options: longer than %zu characters", sizeof k->options_text - 1);
    int n = split_words(e->val, words, GL_KERNEL_MAX_OPTIONS, &why);
    if (n < 0)
        return cfg_err(x, e->line, "options = '%s': %s (at most %d options, split like a shell "
                       "splits words)", e->val, why, GL_KERNEL_MAX_OPTIONS);
    snprintf(k->options_text, sizeof k->options_text, "%s", e->val);
    k->options_line = e->line;
    for (int i = 0; i < n; i++) {
        const char *w = words[i], *dir = NULL;
        const char *bad = refused_option(w);
        if (bad)
            return cfg_err(x, e->line, "options: '%s' is gpulab's to set (%s: the GPU's "
                           "architecture or --arch, and a cubin); remove it", w, bad);
        if (strcmp(w, "-I") == 0 || strcmp(w, "--include-path") == 0) {
            if (i + 1 == n)
                return cfg_err(x, e->line, "options: '%s' needs a folder", w);
            dir = words[++i];
        } else if (strncmp(w, "--include-path=", 15) == 0) {
            dir = w + 15;
        } else if (strncmp(w, "-I", 2) == 0) {
            dir = w + 2;
        }
        char *opt = k->options[k->noptions];
        if (dir) {
            char abs[GL_KOPTION];
            if (!*dir)
                return cfg_err(x, e->line, "options: '%s' needs a folder", w);
            if (include_folder(k->config_dir, dir, abs, sizeof abs - 2) != 0)
                return cfg_err(x, e->line, "options: include folder '%s' (from %s): %s", dir,
                               k->config_dir, strerror(errno));
            memcpy(opt, "-I", 2);
            memcpy(opt + 2, abs, strlen(abs) + 1);   /* fits: abs is 2 shorter */
        } else {
            snprintf(opt, GL_KOPTION, "%s", w);
        }
        k->noptions++;
    }
    return 0;
}

int cfg_kernel_compile_keys(struct ctx *x, const struct block *b, struct gl_kernel *k)
{
    char dir[PATH_MAX], real[PATH_MAX];
    gl_folder_of(x->path, dir, sizeof dir);
    if (!realpath(dir, real))
        return cfg_err(x, b->line, "the config's folder %s: %s", dir, strerror(errno));
    if (strlen(real) >= sizeof k->config_dir)
        return cfg_err(x, b->line, "the config's folder %s: path too long", real);
    snprintf(k->config_dir, sizeof k->config_dir, "%s", real);
    const struct entry *e = cfg_find(b, "compiler");
    if (!e || strcmp(e->val, "auto") == 0) {
        /* auto, the default: NVRTC, unless the text shows what only nvcc takes */
        k->compiler_line = e ? e->line : 0;
        k->compiler = GL_KC_NVRTC;
        if (k->text && gl_ks_needs_nvcc(k->text, k->compiler_why, sizeof k->compiler_why))
            k->compiler = GL_KC_NVCC;
        else
            k->compiler_why[0] = '\0';
    } else {
        static const char *const names[] = { "auto", "nvrtc", "nvcc", NULL };
        k->compiler_line = e->line;
        if (strcmp(e->val, "nvrtc") == 0) {
            k->compiler = GL_KC_NVRTC;
        } else if (strcmp(e->val, "nvcc") == 0) {
            k->compiler = GL_KC_NVCC;
        } else {
            struct gl_nearest near;
            gl_nearest_init(&near, e->val);
            for (int i = 0; names[i]; i++)
                gl_nearest_offer(&near, names[i]);
            char sug[64] = "";
            if (near.best)
                snprintf(sug, sizeof sug, " (did you mean '%s'?)", near.best);
            return cfg_err(x, e->line, "compiler = '%s': unknown%s (auto, the default: NVRTC, or "
                           "nvcc for a file with host code; or nvrtc, or nvcc)", e->val, sug);
        }
    }
    e = cfg_find(b, "options");
    return e ? read_options(x, e, k) : 0;
}
