/* hostload.h - how busy the machine is beside gpulab, as Linux shows it to any
 * process: the tasks runnable now (the fourth field of /proc/loadavg,
 * "runnable/total", and its 1-minute load average; $GPULAB_LOADAVG_FILE names
 * another file in that format, for tests), less this process's own running
 * threads (/proc/self/task/N/stat, state R); and other gpulab processes
 * (/proc/PID/comm "gpulab") that are not this one's own (itself, its parent,
 * their children), optionally only those holding a GPU's device file.
 * Must not print, and must not need a GPU or the NVIDIA libraries. */
#ifndef GL_HOSTLOAD_H
#define GL_HOSTLOAD_H

#include <stddef.h>
#include <sys/types.h>

/* The loadavg file: $GPULAB_LOADAVG_FILE, else /proc/loadavg. 0 with the
 * 1-minute load average and the runnable tasks now, or -1 when it cannot be
 * read (a pointer may be NULL). */
int gl_loadavg_read(double *load1, int *runnable);

/* This process's threads in state R now (>= 0; 0 when unknown). */
int gl_self_running(void);

/* Runnable tasks now that are not this process's threads (>= 0), or -1 when
 * the loadavg file cannot be read. */
int gl_others_running(void);

/* Other gpulab processes under proc_root: comm "gpulab", neither self nor
 * parent nor a child of either (a sibling worker). With dev (a device file,
 * "/dev/nvidia0", gpuprocs.h) only those holding it. Returns how many; *first
 * gets the first one's pid (0 when none). */
long gl_other_gpulabs(const char *proc_root, pid_t self, pid_t parent, const char *dev,
                      pid_t *first);

#endif
