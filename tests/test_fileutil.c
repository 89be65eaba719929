/* test_fileutil.c - the compile path's shared helpers of src/core: fileutil.c
 * (error text, a path's folder, a whole file read), on real files in a
 * temporary folder.
 * Must not write outside its temporary folder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "t.h"

static char dir[64];

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!CHECK(f != NULL))
        return;
    CHECK(fwrite(text, 1, len, f) == len);
    fclose(f);
}

static void test_say_and_folder(void)
{
    char buf[8], out[64];
    gl_say(buf, sizeof buf, "%s=%d", "abcdef", 42);
    CHECK_STR(buf, "abcdef=");   /* cut to the buffer, NUL-terminated */
    gl_say(NULL, 0, "%d", 1);     /* no buffer: nothing happens */
    buf[0] = 'x';
    gl_say(buf, 0, "%d", 1);
    CHECK(buf[0] == 'x');

    gl_folder_of("a/b/c.cu", out, sizeof out);
    CHECK_STR(out, "a/b");
    gl_folder_of("c.cu", out, sizeof out);
    CHECK_STR(out, ".");
    gl_folder_of("/c.cu", out, sizeof out);
    CHECK_STR(out, "/");
    gl_folder_of("/x/y/", out, sizeof out);
    CHECK_STR(out, "/x/y");
}

static void test_file_read(void)
{
    char path[128], err[256];
    size_t len = 99;

    /* a file larger than the first buffer, with a NUL inside: all of it, and a NUL after */
    size_t big = 100000;
    char *data = malloc(big);
    if (!CHECK(data != NULL))
        return;
    for (size_t i = 0; i < big; i++)
        data[i] = (char)('a' + i % 26);
    data[500] = '\0';
    snprintf(path, sizeof path, "%s/big", dir);
    write_file(path, data, big);
    char *got = gl_file_read(path, &len, err, sizeof err);
    CHECK(got != NULL && len == big && memcmp(got, data, big) == 0 && got[big] == '\0');
    free(got);
    free(data);

    /* an empty file: a buffer of length 0 (callers that want bytes say so) */
    snprintf(path, sizeof path, "%s/empty", dir);
    write_file(path, "", 0);
    len = 99;
    got = gl_file_read(path, &len, err, sizeof err);
    CHECK(got != NULL && len == 0 && got[0] == '\0');
    free(got);
    got = gl_file_read(path, NULL, NULL, 0);   /* no length, no err buffer */
    CHECK(got != NULL);
    free(got);

    /* a missing file: NULL, errno and "path: why" */
    snprintf(path, sizeof path, "%s/missing", dir);
    err[0] = '\0';
    errno = 0;
    got = gl_file_read(path, &len, err, sizeof err);
    CHECK(got == NULL && errno == ENOENT);
    char want[256];
    snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
    CHECK_STR(err, want);

    /* a folder cannot be read as a file */
    err[0] = '\0';
    got = gl_file_read(dir, &len, err, sizeof err);
    CHECK(got == NULL && err[0] != '\0');
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpulab_fileutil_XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return t_done("fileutil");
    test_say_and_folder();
    test_file_read();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return t_done("fileutil");
}
