/* gpuprocs.c - see gpuprocs.h. */
#include "gpuprocs.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The device minor of the GPU with this UUID, from the driver's information
 * files; -1 when there are none, -2 when none has this UUID. */
static int gpu_minor(const char *proc_root, const char *uuid)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/driver/nvidia/gpus", proc_root);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int minor = -2;
    struct dirent *e;
    while (minor < 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char info[4096 + 300], line[256], u[128] = "";
        int m = -1;
        snprintf(info, sizeof info, "%s/%s/information", path, e->d_name);
        FILE *f = fopen(info, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Device Minor:", 13) == 0)
                m = atoi(line + 13);
            else if (strncmp(line, "GPU UUID:", 9) == 0 && sscanf(line + 9, " %127s", u) != 1)
                u[0] = '\0';
        }
        fclose(f);
        if (m >= 0 && u[0] && strcasecmp(u, uuid) == 0)
            minor = m;
    }
    closedir(d);
    return minor;
}

static int skipped(pid_t pid, const pid_t *skip, int nskip)
{
    for (int i = 0; i < nskip; i++)
        if (skip[i] == pid)
            return 1;
    return 0;
}

/* 1 when process dir (proc_root/pid) has an fd linked to dev; 0 when not; -1
 * when its fds cannot be read. */
int gl_proc_holds(const char *proc_root, const char *pid, const char *dev)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/fd", proc_root, pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        char link[4096 + 300], target[256];
        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        found = strcmp(target, dev) == 0;
    }
    closedir(d);
    return found;
}

long gl_gpu_procs(const char *proc_root, const char *uuid, const pid_t *skip, int nskip,
                  char *note, size_t notelen)
{
    note[0] = '\0';
    int minor = gpu_minor(proc_root, uuid);
    if (minor == -1) {
        snprintf(note, notelen, "not checked: no NVIDIA driver information in %s/driver/nvidia",
                 proc_root);
        return -1;
    }
    if (minor == -2) {
        snprintf(note, notelen, "not checked: %s is not among the driver's GPUs (%s/driver/nvidia)",
                 uuid, proc_root);
        return -1;
    }
    char dev[64];
    snprintf(dev, sizeof dev, "/dev/nvidia%d", minor);
    DIR *d = opendir(proc_root);
    if (!d) {
        snprintf(note, notelen, "not checked: cannot list %s", proc_root);
        return -1;
    }
    long count = 0, hidden = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atol(e->d_name);
        if (skipped(pid, skip, nskip))
            continue;
        int h = gl_proc_holds(proc_root, e->d_name, dev);
        count += h == 1;
        hidden += h < 0;
    }
    closedir(d);
    if (hidden)
        snprintf(note, notelen, "processes holding %s, of those this user may inspect (%ld could "
                 "not be)", dev, hidden);
    return count;
}

int gl_gpu_dev_file(const char *proc_root, const char *uuid, char *buf, size_t len)
{
    int minor = uuid && *uuid ? gpu_minor(proc_root, uuid) : -1;
    if (minor < 0)
        return -1;
    snprintf(buf, len, "/dev/nvidia%d", minor);
    return 0;
}
