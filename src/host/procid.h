/* procid.h - who a process is, in a form another process can check later: host
 * name, boot id (/proc/sys/kernel/random/boot_id), pid and the pid's start time
 * (field 22 of /proc/PID/stat, clock ticks since boot), so that a pid reused by
 * another program, or a machine rebooted since, is not taken for the process that
 * wrote it. Used by the store's run claims. Linux /proc only.
 * Must not know about the store, configs or devices. */
#ifndef GL_PROCID_H
#define GL_PROCID_H

struct gl_procid {
    char host[256];
    char boot[64];          /* "" when unknown */
    long pid;
    long long start;        /* -1 when unknown */
};

/* This process. */
void gl_procid_self(struct gl_procid *p);
/* Start time of pid (clock ticks since boot): >= 0, or -1 when there is no such
 * process (or it cannot be read). */
long long gl_procid_start(long pid);
/* What is known of the holder `h` seen from this process `self`:
 * 1 alive (same host and boot, the pid exists with the same start time; or on
 * another host, where nothing can be checked), 0 dead (same host and the boot
 * changed, or the pid is gone, or it now has another start time). */
int gl_procid_alive(const struct gl_procid *self, const struct gl_procid *h);

#endif
