/* deps.h - the user's files a kernel's source includes, found by one scan that
 * the driver (a kernel section's hash, kernel.h's `hash`) and the GPU plugin
 * (the kernel cache's key) share, so that both see the same headers: every
 * `#include "..."` and `#include <...>` line of the source, then of each file
 * found, recursively, resolved against the including file's folder, the
 * source's folder and the -I folders of the section's `options` (user folders
 * only). Every existing file among those candidates is a dependency (so the scan
 * over-approximates what the compiler reads: conditionals are ignored too); a
 * name found in none of them is a toolkit or system header, covered by the
 * compiler's version in the cache key. Each dependency is named by its path
 * relative to a base folder (the config's), so that a moved project keeps its
 * hashes.
 * Must not compile, run or print anything, nor read more than the files found. */
#ifndef GL_DEPS_H
#define GL_DEPS_H

#include <stddef.h>

#include "kernel.h"
#include "sha256.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GL_DEPS_MAX 4096   /* files one scan may find (more is an error) */

struct gl_dep {
    char *path;    /* as found (the candidate's path) */
    char *real;    /* its real path (the identity: a file reached twice is one) */
    char *rel;     /* relative to the base folder ("inc/util.cuh", "../common/x.h") */
    char *text;    /* contents, NUL-terminated */
    size_t len;
};

struct gl_deps {
    int n, cap;
    struct gl_dep *d;   /* sorted by rel after a scan */
};

/* The dependencies of source (its contents text, or read from the file when
 * NULL) with the include folders dirs[0..ndirs), named relative to base ("" or
 * NULL: the source's folder). out is filled (free it with gl_deps_free, also
 * after an error). 0, or -1 with err (a file found but unreadable, too many). */
int gl_deps_scan(const char *source, const char *text, const char *const *dirs, int ndirs,
                 const char *base, struct gl_deps *out, char *err, size_t errlen);
/* Add every dependency to h, in order: "dep", its relative path and contents. */
void gl_deps_hash(const struct gl_deps *d, struct gl_sha256 *h);
void gl_deps_free(struct gl_deps *d);

/* The -I folders of k's options (the config reader made them absolute), up to
 * max of them into dirs (pointers into k). Their count. */
int gl_kernel_include_dirs(const struct gl_kernel *k, const char **dirs, int max);
/* Scan k's source (k->text) with its -I folders, based at k->config_dir (the
 * source's folder when that is ""), and add the dependencies to h. *nfiles (if
 * not NULL) gets their count. 0, or -1 with err. */
int gl_kernel_deps_hash(const struct gl_kernel *k, struct gl_sha256 *h, int *nfiles, char *err,
                        size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
