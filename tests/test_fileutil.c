/* test_fileutil.c - the compile path's shared helpers of src/core: fileutil.c
 * (error text, a path's folder, a whole file read, mkdir -p, the kernel cache's
 * folder from the environment) and subprocess.c (a program run with its output
 * captured: exit status, PATH lookup, a program that is not there, a signal,
 * output longer than the buffer), on real files in a temporary folder and real
 * programs (sh, true).
 * Must not write outside its temporary folder, nor leave the environment
 * changed for what runs after a check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileutil.h"
#include "subprocess.h"
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

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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

/* What gl_file_read_max refuses, and why it says so: devices, folders, files
 * over the limit (looked at before they are read), a pipe that goes on. */
static void test_file_read_max(void)
{
    char path[128], err[256];
    size_t len = 0;
    errno = 0;
    char *got = gl_file_read_max("/dev/zero", GL_TEXT_MAX, 0, &len, err, sizeof err);
    CHECK(got == NULL && errno == EINVAL);
    CHECK_STR(err, "/dev/zero: is not a regular file (a character device)");
    got = gl_file_read("/dev/null", &len, err, sizeof err);   /* no limit, still a device */
    CHECK(got == NULL && strstr(err, "is not a regular file") != NULL);
    got = gl_file_read_max(dir, GL_TEXT_MAX, GL_READ_PIPE, &len, err, sizeof err);
    CHECK(got == NULL && errno == EISDIR && strstr(err, ": is a directory") != NULL);

    /* over the limit: refused with the size and the limit; at it: read */
    char data[100];
    memset(data, 'x', sizeof data);
    snprintf(path, sizeof path, "%s/hundred", dir);
    write_file(path, data, sizeof data);
    got = gl_file_read_max(path, 99, 0, &len, err, sizeof err);
    CHECK(got == NULL && errno == EFBIG);
    char want[256];
    snprintf(want, sizeof want, "%s: is 100 bytes, over the limit of 99 bytes", path);
    CHECK_STR(err, want);
    got = gl_file_read_max(path, 100, 0, &len, err, sizeof err);
    CHECK(got != NULL && len == 100 && got[100] == '\0');
    free(got);

    /* a pipe: read with GL_READ_PIPE, up to the limit; refused without it */
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (!CHECK(mkfifo(path, 0600) == 0))
        return;
    got = gl_file_read_max(path, 1000, 0, &len, err, sizeof err);
    CHECK(got == NULL && strstr(err, "is not a regular file (a pipe (FIFO))") != NULL);
    for (int over = 0; over < 2; over++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(data, 1, sizeof data, f);
                fclose(f);
            }
            _exit(0);
        }
        got = gl_file_read_max(path, over ? 60 : 100, GL_READ_PIPE, &len, err, sizeof err);
        if (over) {
            CHECK(got == NULL && errno == EFBIG && strstr(err, "is over the limit of 60 bytes"));
        } else {
            CHECK(got != NULL && len == 100);
            free(got);
        }
        int st;
        waitpid(pid, &st, 0);
    }
    char size[32];
    gl_size_text(16u << 20, size, sizeof size);
    CHECK_STR(size, "16.0 MiB");
    gl_size_text((3ull << 30) / 2, size, sizeof size);
    CHECK_STR(size, "1.5 GiB");
}

/* gl_text_fit: an echoed input is shortened, the reason after it kept. */
static void test_text_fit(void)
{
    char in[4096], out[256];
    /* short: as it is */
    gl_text_fit("unknown variant 'x' (did you mean 'y'?)", out, sizeof out);
    CHECK_STR(out, "unknown variant 'x' (did you mean 'y'?)");
    /* a long quoted input: its first GL_QUOTE_KEEP bytes, "...", then the rest */
    char val[3001];
    memset(val, 'a', 3000);
    val[3000] = '\0';
    snprintf(in, sizeof in, "unknown variant '%s' of family f (did you mean 'b'?)", val);
    gl_text_fit(in, out, sizeof out);
    char want[256];
    snprintf(want, sizeof want, "unknown variant '%.*s...' of family f (did you mean 'b'?)",
             GL_QUOTE_KEEP, val);
    CHECK_STR(out, want);
    /* an apostrophe in a word opens no quote */
    snprintf(in, sizeof in, "section's value %.150s' is cut", val);
    gl_text_fit(in, out, sizeof out);
    CHECK(strlen(out) == strlen(in));
    /* too long without quotes: the start and the end stay, the middle goes */
    snprintf(in, sizeof in, "START %s END: the reason", val);
    gl_text_fit(in, out, sizeof out);
    CHECK(strlen(out) < sizeof out && strncmp(out, "START ", 6) == 0 &&
          strstr(out, " [...] ") != NULL);
    size_t n = strlen(out);
    CHECK(n > 16 && strcmp(out + n - 16, " END: the reason") == 0);
    /* UTF-8 (é is 2 bytes) and \xNN escapes are never split */
    in[0] = '\'';
    size_t o = 1;
    for (int i = 0; i < 100; i++) {
        memcpy(in + o, "\xc3\xa9\\x01", 6);
        o += 6;
    }
    snprintf(in + o, sizeof in - o, "' is bad");
    gl_text_fit(in, out, sizeof out);
    const char *dots = strstr(out, "...' is bad");
    CHECK(dots != NULL);
    if (dots) {
        size_t keep = (size_t)(dots - out) - 1;   /* after the opening quote */
        CHECK(keep % 6 == 0 || keep % 6 == 2);     /* ends after an é or after an escape */
    }
}

static void test_make_dirs(void)
{
    char path[128], failed[128];
    snprintf(path, sizeof path, "%s/m/n/o", dir);
    CHECK(gl_make_dirs(path, failed, sizeof failed) == 0);
    CHECK(is_dir(path));
    CHECK(gl_make_dirs(path, failed, sizeof failed) == 0);   /* already there */
    snprintf(path, sizeof path, "%s/m/n/o/", dir);
    CHECK(gl_make_dirs(path, failed, sizeof failed) == 0);   /* a trailing slash */
    CHECK(gl_make_dirs("", failed, sizeof failed) == 0);

    /* a file in the way: -1, errno, and the folder that could not be made */
    char file[128], want[160];
    snprintf(file, sizeof file, "%s/plain", dir);
    write_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/plain/sub/deeper", dir);
    failed[0] = '\0';
    errno = 0;
    CHECK(gl_make_dirs(path, failed, sizeof failed) == -1);
    CHECK(errno == ENOTDIR);
    snprintf(want, sizeof want, "%s/plain/sub", dir);
    CHECK_STR(failed, want);
}

/* Set or unset (NULL) the three variables the cache folder is found by. */
static void cache_env(const char *cache, const char *xdg, const char *home)
{
    const char *names[3] = { "GPULAB_CACHE", "XDG_CACHE_HOME", "HOME" };
    const char *values[3] = { cache, xdg, home };
    for (int i = 0; i < 3; i++) {
        if (values[i])
            setenv(names[i], values[i], 1);
        else
            unsetenv(names[i]);
    }
}

static void test_cache_dir(void)
{
    char *saved[3];
    const char *names[3] = { "GPULAB_CACHE", "XDG_CACHE_HOME", "HOME" };
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    char out[64];
    cache_env("/c", "/x", "/h");
    CHECK(gl_kernel_cache_dir(out, sizeof out) == 0);
    CHECK_STR(out, "/c");
    cache_env("", "/x", "/h");   /* empty counts as unset */
    CHECK(gl_kernel_cache_dir(out, sizeof out) == 0);
    CHECK_STR(out, "/x/gpulab/kernels");
    cache_env(NULL, NULL, "/h");
    CHECK(gl_kernel_cache_dir(out, sizeof out) == 0);
    CHECK_STR(out, "/h/.cache/gpulab/kernels");
    cache_env(NULL, NULL, NULL);
    CHECK(gl_kernel_cache_dir(out, sizeof out) == -1);
    cache_env("/a/path/that/is/longer/than/the/buffer/it/is/written/into/by/far", NULL, NULL);
    CHECK(gl_kernel_cache_dir(out, sizeof out) == -2);
    cache_env(saved[0], saved[1], saved[2]);
    for (int i = 0; i < 3; i++)
        free(saved[i]);
}

static void test_run_captured(void)
{
    char out[256];
    /* stdout and stderr both captured, the exit status returned; sh found on PATH */
    char *a1[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
    CHECK(gl_run_captured(a1, out, sizeof out) == 3);
    CHECK(strstr(out, "out\n") != NULL && strstr(out, "err\n") != NULL);

    /* an absolute path, exit 0, no output */
    char *a2[] = { "/bin/sh", "-c", "true", NULL };
    out[0] = 'x';
    CHECK(gl_run_captured(a2, out, sizeof out) == 0);
    CHECK_STR(out, "");

    /* a program that is not there: -1 and why */
    char *a3[] = { "gpulab-no-such-program-zz", NULL };
    CHECK(gl_run_captured(a3, out, sizeof out) == -1);
    CHECK(strstr(out, "cannot run gpulab-no-such-program-zz") != NULL);

    /* ended by a signal: -1, what it wrote kept */
    char *a4[] = { "sh", "-c", "echo before; kill -9 $$", NULL };
    CHECK(gl_run_captured(a4, out, sizeof out) == -1);
    CHECK_STR(out, "before\n");

    /* more output than the buffer: cut, NUL-terminated, the program not blocked */
    char small[16];
    char *a5[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo 0123456789; i=$((i+1)); done; "
                   "exit 5", NULL };
    CHECK(gl_run_captured(a5, small, sizeof small) == 5);
    CHECK(strlen(small) == sizeof small - 1 && strncmp(small, "0123456789\n0123", 15) == 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpulab_fileutil_XXXXXX");
    if (!CHECK(mkdtemp(dir) != NULL))
        return t_done("fileutil");
    test_say_and_folder();
    test_file_read();
    test_file_read_max();
    test_text_fit();
    test_make_dirs();
    test_cache_dir();
    test_run_captured();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return t_done("fileutil");
}
