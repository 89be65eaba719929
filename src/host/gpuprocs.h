/* gpuprocs.h - other processes using a GPU, as Linux lets a process see them
 * without the NVIDIA libraries: the driver's /proc/driver/nvidia/gpus/<bus>/
 * information file gives each GPU's UUID and device minor N, and a process that
 * uses that GPU holds /dev/nvidiaN open (one of its /proc/<pid>/fd links).
 * Sees only the processes of this PID namespace that this user may inspect.
 * Must not need a GPU, the NVIDIA libraries or root. */
#ifndef GL_GPUPROCS_H
#define GL_GPUPROCS_H

#include <stddef.h>
#include <sys/types.h>

/* Processes under proc_root ("/proc", or a test's tree) that hold the device
 * file of the GPU whose UUID is uuid ("GPU-..."), leaving out the pids in
 * skip[0..nskip). Returns the count (>= 0), with note set to what it could not
 * inspect ("" when it saw every process), or -1 with note saying why nothing
 * could be counted (no NVIDIA driver information, the UUID not found). */
long gl_gpu_procs(const char *proc_root, const char *uuid, const pid_t *skip, int nskip,
                  char *note, size_t notelen);

/* The device file of the GPU whose UUID is uuid ("/dev/nvidia3") into buf: 0,
 * or -1 when the driver's information does not name it. */
int gl_gpu_dev_file(const char *proc_root, const char *uuid, char *buf, size_t len);

/* Process pid (a name under proc_root) has the device file dev open: 1, 0, or
 * -1 when its fds cannot be read (another user's process). */
int gl_proc_holds(const char *proc_root, const char *pid, const char *dev);

#endif
