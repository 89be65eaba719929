/* ceilings_cache.c - see ceilings_cache.h. The file is plain text, one
 * "name value" per line:
 *   gpulab-ceilings 1
 *   ident GPU-...          driver 13000          measured 1764015600 2026-11-24T20:20:00Z
 *   l1 32466.0  smem 32716.5  l2 7043.6  hostlink 50.5  h2d 54.4  clock 1972.0
 * (each on a line of its own). */
#include "ceilings_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileutil.h"

#define GL_CEILINGS_TAG "gpulab-ceilings 1"

/* <kernel cache>/ceilings-<ident>.txt, the ident's characters other than
 * letters, digits and '-' written as '_'. 0, or -1. */
static int cache_path(const struct gl_device *gpu, char *out, size_t len)
{
    char dir[1024], name[160];
    size_t n = 0;
    if (!gpu->ident[0] || gl_kernel_cache_dir(dir, sizeof dir) != 0)
        return -1;
    for (const char *s = gpu->ident; *s && n + 1 < sizeof name; s++) {
        char ch = *s;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '-';
        name[n++] = ok ? ch : '_';
    }
    name[n] = '\0';
    int w = snprintf(out, len, "%s/ceilings-%s.txt", dir, name);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

int gl_ceilings_cache_load(const struct gl_device *gpu, struct gl_ceilings *c, char *at,
                           size_t atlen)
{
    char path[1300];
    if (cache_path(gpu, path, sizeof path) != 0)
        return 0;
    char *text = gl_file_read(path, NULL, NULL, 0);
    if (!text)
        return 0;
    struct gl_ceilings k;
    memset(&k, 0, sizeof k);
    char ident[128] = "", when[40] = "";
    long long epoch = 0;
    int driver = -1, tag = 0, got = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        double v;
        if (strcmp(line, GL_CEILINGS_TAG) == 0)
            tag = 1;
        else if (sscanf(line, "ident %127s", ident) == 1 || sscanf(line, "driver %d", &driver) == 1)
            ;
        else if (sscanf(line, "measured %lld %39s", &epoch, when) == 2)
            ;
        else if (sscanf(line, "l1 %lf", &v) == 1)
            k.l1_gbs = v, got |= 1;
        else if (sscanf(line, "smem %lf", &v) == 1)
            k.smem_gbs = v, got |= 2;
        else if (sscanf(line, "l2 %lf", &v) == 1)
            k.l2_gbs = v, got |= 4;
        else if (sscanf(line, "hostlink %lf", &v) == 1)
            k.hostlink_gbs = v, got |= 8;
        else if (sscanf(line, "h2d %lf", &v) == 1)
            k.h2d_gbs = v, got |= 16;
        else if (sscanf(line, "clock %lf", &v) == 1)
            k.clock_mhz = v, got |= 32;
    }
    free(text);
    long long age = (long long)time(NULL) - epoch;
    if (!tag || got != 63 || strcmp(ident, gpu->ident) != 0 || driver != gpu->driver_version ||
        epoch <= 0 || age < 0 || age > GL_CEILINGS_MAX_AGE_S || !when[0] ||
        !(k.l1_gbs > 0 && k.smem_gbs > 0 && k.l2_gbs > 0 && k.hostlink_gbs > 0 && k.h2d_gbs > 0))
        return 0;
    *c = k;
    snprintf(at, atlen, "%s", when);
    return 1;
}

int gl_ceilings_cache_save(const struct gl_device *gpu, const struct gl_ceilings *c, char *at,
                           size_t atlen)
{
    char path[1300], dir[1300], failed[1300], tmp[1400], when[40];
    if (at && atlen)
        at[0] = '\0';
    if (c->why[0] || !(c->l1_gbs > 0 && c->smem_gbs > 0 && c->l2_gbs > 0 && c->hostlink_gbs > 0 &&
                       c->h2d_gbs > 0 && c->clock_mhz > 0))
        return -1;
    if (cache_path(gpu, path, sizeof path) != 0)
        return -1;
    gl_folder_of(path, dir, sizeof dir);
    if (gl_make_dirs(dir, failed, sizeof failed) != 0)
        return -1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\nident %s\ndriver %d\nmeasured %lld %s\n", GL_CEILINGS_TAG, gpu->ident,
            gpu->driver_version, (long long)now, when);
    fprintf(f, "l1 %.17g\nsmem %.17g\nl2 %.17g\nhostlink %.17g\nh2d %.17g\nclock %.17g\n",
            c->l1_gbs, c->smem_gbs, c->l2_gbs, c->hostlink_gbs, c->h2d_gbs, c->clock_mhz);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    if (at && atlen)
        snprintf(at, atlen, "%s", when);
    return 0;
}
