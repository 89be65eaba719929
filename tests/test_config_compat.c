/* test_config_compat.c - a config that planned before step 15 (kernel keys
 * before the first section, per-variant launches, verify across sections)
 * plans the same points with the same kernel hash (run.code_hash): every
 * config of configs/ and tests/collection/ (not the *.first.conf rewrites) is
 * expanded and each job written as "config section variant hash params", and
 * the lines must equal tests/data/config_compat.txt, which the reader as it
 * was before step 15 wrote. `test_config_compat --write FILE` writes the lines
 * (to regenerate after an intended change of a listed config or kernel file).
 * Needs the GPU plugin's variant tables for the built-in sections. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sha256.h"
#include "t.h"

static int lines(FILE *out)
{
    static const char *const pats[] = { "configs/*.conf", "tests/collection/*.conf" };
    for (int g = 0; g < 2; g++) {
        glob_t gb;
        if (glob(pats[g], 0, NULL, &gb) != 0)
            continue;
        for (size_t i = 0; i < gb.gl_pathc; i++) {
            const char *path = gb.gl_pathv[i];
            if (strstr(path, ".first.conf"))
                continue;
            struct gl_config c;
            struct gl_expansion e;
            char err[4096];
            if (gl_config_load(path, &c, err, sizeof err) != 0) {
                fprintf(out, "%s ERROR %s\n", path, err);
                continue;
            }
            if (gl_expand(&c, NULL, NULL, &e, err, sizeof err) != 0) {
                fprintf(out, "%s EXPAND-ERROR %s\n", path, err);
                gl_config_free(&c);
                continue;
            }
            /* per (section, variant, kernel hash): the number of points and the
             * SHA-256 of their parameters, in the order of the expansion */
            for (int si = 0; si < c.nsections; si++) {
                const struct gl_section *s = &c.sections[si];
                for (int vi = 0; vi < s->nvariants; vi++) {
                    const struct gl_variant *v = gl_section_variant(s, vi);
                    struct gl_sha256 h;
                    unsigned char d[32];
                    char hex[65];
                    int n = 0;
                    gl_sha256_init(&h);
                    for (int j = 0; j < e.njobs; j++) {
                        const struct gl_job *jb = &e.jobs[j];
                        if (jb->section != si || jb->v != v)
                            continue;
                        char p[1024];
                        gl_params_format(&jb->p, p, sizeof p);
                        gl_sha256_update(&h, p, strlen(p) + 1);
                        gl_sha256_update(&h, jb->skip, strlen(jb->skip) + 1);
                        n++;
                    }
                    gl_sha256_final(&h, d);
                    for (int b = 0; b < 32; b++)
                        snprintf(hex + 2 * b, 3, "%02x", d[b]);
                    fprintf(out, "%s [%s] %s code_hash=%s points=%d params=%.16s\n", path,
                            s->name, v->name,
                            s->kernel ? ((const struct gl_kernel_variant *)v)->k->hash : "-", n,
                            hex);
                }
            }
            gl_expansion_free(&e);
            gl_config_free(&c);
        }
        globfree(&gb);
    }
    return 0;
}

int main(int argc, char **argv)
{
    t_need_gpu_plugin("config_compat");
    if (!t_load_plugins())
        return t_done("config_compat");
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return 1;
        lines(f);
        return fclose(f) != 0;
    }
    char *now = NULL, *want = NULL;
    size_t nn = 0;
    FILE *m = open_memstream(&now, &nn);
    CHECK(m != NULL);
    if (m) {
        lines(m);
        fclose(m);
    }
    FILE *f = fopen("tests/data/config_compat.txt", "r");
    CHECK(f != NULL);
    if (f && now) {
        size_t cap = nn + ((size_t)1 << 20);
        want = calloc(1, cap + 1);
        size_t got = want ? fread(want, 1, cap, f) : 0;
        want[got] = '\0';
        /* line by line, so that a failure names the first point that changed */
        char *a = now, *b = want;
        int nlines = 0;
        while (*a || *b) {
            char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
            size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
            if (la != lb || memcmp(a, b, la) != 0) {
                printf("  now:  %.*s\n  want: %.*s\n", (int)la, a, (int)lb, b);
                CHECK(!"a config that planned before step 15 plans the same points and hashes");
                break;
            }
            nlines++;
            a += la + (ea != NULL);
            b += lb + (eb != NULL);
        }
        CHECK(nlines > 50);
    }
    if (f)
        fclose(f);
    free(now);
    free(want);
    return t_done("config_compat");
}
