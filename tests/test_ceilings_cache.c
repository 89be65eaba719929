/* test_ceilings_cache.c - the machine's ceilings cache (src/host/ceilings_cache.c) in a
 * folder of its own (GPULAB_CACHE): what is kept is read back as it was; nothing
 * is kept when a ceiling is missing; another GPU, another driver, an old or a
 * damaged file gives nothing; and the store records the measurement's time, not
 * the taking's. Must not touch anything outside its temporary folder. */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "ceilings_cache.h"
#include "store.h"
#include "t.h"

static struct gl_device gpu(const char *ident, int driver)
{
    struct gl_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.kind, sizeof d.kind, "gpu");
    snprintf(d.name, sizeof d.name, "Test GPU");
    snprintf(d.ident, sizeof d.ident, "%s", ident);
    d.driver_version = driver;
    return d;
}

static struct gl_ceilings full(void)
{
    struct gl_ceilings c;
    memset(&c, 0, sizeof c);
    c.l1_gbs = 32466.04;
    c.smem_gbs = 32716.5;
    c.l2_gbs = 7043.6;
    c.hostlink_gbs = 50.5;
    c.h2d_gbs = 54.4;
    c.clock_mhz = 1972.0;
    return c;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    char dir[] = "/tmp/gl_ceil_XXXXXX", path[700], at[40], err[512];
    if (!CHECK(mkdtemp(dir) != NULL))
        return t_done("ceilings_cache");
    char cache[600];
    snprintf(cache, sizeof cache, "%s/cache/kernels", dir);
    setenv("GPULAB_CACHE", cache, 1);
    struct gl_device g = gpu("GPU-abc/1", 13000), other = gpu("GPU-def", 13000);
    struct gl_ceilings c = full(), got;

    /* nothing kept yet */
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);
    /* an incomplete measurement is not kept */
    struct gl_ceilings part = full();
    part.h2d_gbs = 0;
    snprintf(part.why, sizeof part.why, "pinned host-to-device copy not measured: x");
    CHECK(gl_ceilings_cache_save(&g, &part, at, sizeof at) == -1 && at[0] == '\0');
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);
    /* kept (the folder made), read back exactly, with its UTC time */
    char saved[40];
    CHECK(gl_ceilings_cache_save(&g, &c, saved, sizeof saved) == 0);
    snprintf(path, sizeof path, "%s/ceilings-GPU-abc_1.txt", cache);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    memset(&got, 0, sizeof got);
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 1);
    CHECK(got.l1_gbs == c.l1_gbs && got.smem_gbs == c.smem_gbs && got.l2_gbs == c.l2_gbs &&
          got.hostlink_gbs == c.hostlink_gbs && got.h2d_gbs == c.h2d_gbs &&
          got.clock_mhz == c.clock_mhz && got.why[0] == '\0');
    CHECK(strlen(at) == 20 && at[4] == '-' && at[10] == 'T' && at[19] == 'Z' &&
          strcmp(at, saved) == 0);
    /* another GPU, the same GPU under another driver: nothing */
    CHECK(gl_ceilings_cache_load(&other, &got, at, sizeof at) == 0);
    struct gl_device newer = gpu("GPU-abc/1", 13010);
    CHECK(gl_ceilings_cache_load(&newer, &got, at, sizeof at) == 0);
    /* older than a week, from the future, or damaged: nothing */
    char text[1024];
    long long now = (long long)time(NULL);
    snprintf(text, sizeof text, "gpulab-ceilings 1\nident GPU-abc/1\ndriver 13000\nmeasured %lld "
             "2026-01-01T00:00:00Z\nl1 1\nsmem 1\nl2 1\nhostlink 1\nh2d 1\nclock 1\n",
             now - GL_CEILINGS_MAX_AGE_S - 10);
    write_file(path, text);
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);
    snprintf(text, sizeof text, "gpulab-ceilings 1\nident GPU-abc/1\ndriver 13000\nmeasured %lld "
             "2026-01-01T00:00:00Z\nl1 1\nsmem 1\nl2 1\nhostlink 1\nh2d 1\nclock 1\n", now + 3600);
    write_file(path, text);
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);
    snprintf(text, sizeof text, "gpulab-ceilings 1\nident GPU-abc/1\ndriver 13000\nmeasured %lld "
             "2026-01-01T00:00:00Z\nl1 1\nsmem 1\nl2 1\nhostlink 1\nclock 1\n", now - 60);
    write_file(path, text);
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);   /* no h2d */
    write_file(path, "not a ceilings file\n");
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 0);
    snprintf(text, sizeof text, "gpulab-ceilings 1\nident GPU-abc/1\ndriver 13000\nmeasured %lld "
             "2026-01-01T00:00:00Z\nl1 1\nsmem 2\nl2 3\nhostlink 4\nh2d 5\nclock 6\n", now - 60);
    write_file(path, text);
    CHECK(gl_ceilings_cache_load(&g, &got, at, sizeof at) == 1 && got.smem_gbs == 2 &&
          got.clock_mhz == 6 && strcmp(at, "2026-01-01T00:00:00Z") == 0);

    /* the store writes the time the ceilings were measured, not now */
    char db[600];
    snprintf(db, sizeof db, "%s/c.db", dir);
    gl_store *s = NULL;
    if (CHECK(gl_store_open(db, &s, err, sizeof err) == 0)) {
        long long id = gl_store_device(s, &g), id2 = gl_store_device(s, &other);
        CHECK(id > 0 && id2 > 0);
        CHECK(gl_store_device_ceilings_at(s, id, &c, "2026-01-01T00:00:00Z") == 0);
        CHECK(gl_store_device_ceilings_at(s, id2, &c, NULL) == 0);
        CHECK(gl_store_device_has_ceilings(s, id) == 1 && gl_store_device_has_ceilings(s, id2) == 1);
        gl_store_close(s);
        char q[1024];
        snprintf(q, sizeof q, "sqlite3 %s \"select ceilings_at from device where ident = "
                 "'GPU-abc/1'\" | grep -qx 2026-01-01T00:00:00Z", db);
        CHECK(system(q) == 0);
        snprintf(q, sizeof q, "sqlite3 %s \"select ceilings_at from device where ident = "
                 "'GPU-def'\" | grep -q '^20[0-9][0-9]-'", db);
        CHECK(system(q) == 0);
    }
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        printf("note: could not remove %s\n", dir);
    return t_done("ceilings_cache");
}
