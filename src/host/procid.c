/* procid.c - see procid.h. Must not know about the store, configs or devices. */
#include "procid.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long long gl_procid_start(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold spaces and ')', so fields are
     * counted from the last ')'. starttime is field 22, the 20th after it. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    char *end;
    long long v = strtoll(p + 1, &end, 10);
    return end == p + 1 ? -1 : v;
}

void gl_procid_self(struct gl_procid *p)
{
    memset(p, 0, sizeof *p);
    if (gethostname(p->host, sizeof p->host - 1) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(p->boot, sizeof p->boot, f))
            p->boot[0] = '\0';
        fclose(f);
        p->boot[strcspn(p->boot, "\n")] = '\0';
    }
    p->pid = (long)getpid();
    p->start = gl_procid_start(p->pid);
}

int gl_procid_alive(const struct gl_procid *self, const struct gl_procid *h)
{
    if (strcmp(self->host, h->host) != 0)
        return 1;   /* another machine: its processes cannot be seen from here */
    if (self->boot[0] && h->boot[0] && strcmp(self->boot, h->boot) != 0)
        return 0;   /* rebooted since */
    if (h->pid == self->pid)
        return self->start < 0 || h->start < 0 || self->start == h->start;
    long long st = gl_procid_start(h->pid);
    if (st < 0)   /* unreadable (hidepid) is not gone: kill(pid, 0) tells */
        return kill((pid_t)h->pid, 0) == 0 || errno == EPERM;
    return h->start < 0 || st == h->start;
}
