/* hostload.c - see hostload.h. */
#include "hostload.h"
#include "gpuprocs.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gl_loadavg_read(double *load1, int *runnable)
{
    const char *path = getenv("GPULAB_LOADAVG_FILE");
    if (!path || !*path)
        path = "/proc/loadavg";
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    double l1, l5, l15;
    int run = 0, total = 0;
    int n = fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &run, &total);
    fclose(f);
    if (n < 1)
        return -1;
    if (load1)
        *load1 = l1;
    if (runnable)
        *runnable = n >= 4 ? run : -1;
    return n >= 4 ? 0 : -1;
}

/* The state letter of a /proc .../stat file: after the ")" that ends comm. */
static char stat_state(const char *path, pid_t *ppid)
{
    char buf[512];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2])
        return 0;
    if (ppid)
        *ppid = (pid_t)atol(p + 4);
    return p[2];
}

int gl_self_running(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[300];
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        n += stat_state(path, NULL) == 'R';
    }
    closedir(d);
    return n;
}

int gl_others_running(void)
{
    int run;
    if (gl_loadavg_read(NULL, &run) != 0 || run < 0)
        return -1;
    int others = run - gl_self_running();
    return others > 0 ? others : 0;
}


long gl_other_gpulabs(const char *proc_root, pid_t self, pid_t parent, const char *dev,
                      pid_t *first)
{
    *first = 0;
    DIR *d = opendir(proc_root);
    if (!d)
        return 0;
    long count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        pid_t pid = (pid_t)atol(e->d_name), ppid = 0;
        if (pid == self || pid == parent)
            continue;
        char path[4096], comm[64] = "";
        snprintf(path, sizeof path, "%s/%s/comm", proc_root, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = '\0';
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, "gpulab") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/stat", proc_root, e->d_name);
        if (!stat_state(path, &ppid) || ppid == self || (parent > 1 && ppid == parent))
            continue;   /* gone, or ours: a child, a sibling worker */
        if (dev && gl_proc_holds(proc_root, e->d_name, dev) != 1)
            continue;
        if (!*first)
            *first = pid;
        count++;
    }
    closedir(d);
    return count;
}
