/* test_gpuprocs.c - counting the other processes that hold a GPU open, on a
 * made-up /proc tree (real directories, files and symlinks in a temporary
 * folder): the GPU is found by its UUID (case aside) among several, only the
 * processes holding its /dev/nvidiaN count (not another GPU's, not nvidiactl),
 * skipped pids (gpulab's own) are left out, a process whose fds cannot be read
 * is reported, and a tree without the driver's information or without the
 * UUID gives -1 with the reason. Needs no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuprocs.h"
#include "t.h"

static char root[256];

static void mk(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* process pid holding the device files in devs (NULL-terminated) */
static void proc(const char *pid, const char *const *devs)
{
    char d[256], l[600];
    snprintf(d, sizeof d, "%s", pid);
    mk(d);
    snprintf(d, sizeof d, "%s/fd", pid);
    mk(d);
    for (int i = 0; devs[i]; i++) {
        snprintf(l, sizeof l, "%s/%s/fd/%d", root, pid, i + 3);
        if (symlink(devs[i], l) != 0)
            perror("symlink");
    }
}

int main(void)
{
    char note[512];
    snprintf(root, sizeof root, "/tmp/gl_gpuprocs_%d", (int)getpid());
    mkdir(root, 0755);

    /* no driver information: not checked */
    CHECK(gl_gpu_procs(root, "GPU-aaaa", NULL, 0, note, sizeof note) == -1);
    CHECK(strstr(note, "no NVIDIA driver information") != NULL);

    mk("driver");
    mk("driver/nvidia");
    mk("driver/nvidia/gpus");
    mk("driver/nvidia/gpus/0000:01:00.0");
    mk("driver/nvidia/gpus/0000:41:00.0");
    put("driver/nvidia/gpus/0000:01:00.0/information",
        "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 10\nGPU UUID: \t GPU-1111aaaa-0000\n"
        "Video BIOS: \t ??.??.??.??.??\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
        "Device Minor: \t 0\n");
    put("driver/nvidia/gpus/0000:41:00.0/information",
        "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-2222BBBB-0000\nDevice Minor: \t 3\n");
    /* an unknown UUID: not checked */
    CHECK(gl_gpu_procs(root, "GPU-9999", NULL, 0, note, sizeof note) == -1);
    CHECK(strstr(note, "GPU-9999 is not among") != NULL);

    static const char *const gpu3[] = { "/dev/nvidiactl", "/dev/nvidia3", "/dev/nvidia-uvm", NULL };
    static const char *const gpu0[] = { "/dev/nvidiactl", "/dev/nvidia0", NULL };
    static const char *const ctl[] = { "/dev/nvidiactl", "/dev/null", NULL };
    static const char *const both[] = { "/dev/nvidia0", "/dev/nvidia3", NULL };
    static const char *const none[] = { NULL };
    proc("100", gpu3);
    proc("101", gpu0);
    proc("102", ctl);
    proc("103", both);
    proc("104", gpu3);   /* gpulab's own: skipped below */
    proc("105", none);
    mk("self");          /* not a pid */
    /* the second GPU (minor 3, UUID in another case): 100, 103 and 104 hold it */
    CHECK(gl_gpu_procs(root, "GPU-2222bbbb-0000", NULL, 0, note, sizeof note) == 3);
    CHECK(note[0] == '\0');
    const pid_t skip[] = { 104, 999 };
    CHECK(gl_gpu_procs(root, "GPU-2222bbbb-0000", skip, 2, note, sizeof note) == 2);
    /* the first GPU (minor 0): 101 and 103 */
    CHECK(gl_gpu_procs(root, "GPU-1111aaaa-0000", skip, 2, note, sizeof note) == 2);
    /* a process whose fds cannot be read is counted as not inspected (a pid with no fd dir) */
    mk("106");
    CHECK(gl_gpu_procs(root, "GPU-1111aaaa-0000", skip, 2, note, sizeof note) == 2);
    CHECK(strstr(note, "/dev/nvidia0") && strstr(note, "(1 could not be)"));

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("test_gpuprocs: could not remove %s\n", root);
    return t_done("test_gpuprocs");
}
