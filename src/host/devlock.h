/* devlock.h - one measurement per device at a time: `gpulab run` holds an
 * exclusive flock(2) on a file per device it will measure (the CPU of the
 * baselines: cpu-HOST.lock; a GPU: gpu-UUID.lock) in a folder every user of the
 * machine shares, $GPULAB_LOCK_DIR, else /tmp/gpulab-locks (made mode 1777). The
 * holder writes its pid, host, start time and command line into the file, so a
 * second sweep can say whom it waits for. The kernel drops a lock when its
 * holder dies, so a killed sweep leaves nothing to clean up.
 * Must not know about the store or configs, and must not print except the one
 * "waiting for" note it is given a stream for. */
#ifndef GL_DEVLOCK_H
#define GL_DEVLOCK_H

#include <signal.h>
#include <stdio.h>

#include "gpulab.h"

#define GL_DEVLOCK_DIR_DEFAULT "/tmp/gpulab-locks"
#define GL_DEVLOCK_MAX 17   /* the CPU and 16 GPUs (run --gpus) */

enum { GL_DEVLOCK_BUSY = 1, GL_DEVLOCK_STOPPED = 2 };

struct gl_devlocks {
    int n;                          /* locks held */
    int fd[GL_DEVLOCK_MAX];
    double waited;                  /* seconds spent waiting for them */
};

/* The lock folder in use ($GPULAB_LOCK_DIR or the default). */
const char *gl_devlock_dir(void);
/* Lock file of device d under gl_devlock_dir() into buf. */
void gl_devlock_path(const struct gl_device *d, char *buf, size_t len);

/* Take the lock of every device devs[0..ndevs), in that order (callers give the
 * CPU first, then the GPU, so two sweeps never wait for each other crosswise).
 * A device locked by someone else: with wait, one line on `note` naming the
 * device and the holder, then wait (polling, so that a signal that sets *stop
 * ends the wait whatever its SA_RESTART); without wait, refuse. Returns 0 (all
 * held), GL_DEVLOCK_BUSY (without wait; err names the device and the holder),
 * GL_DEVLOCK_STOPPED (*stop was set while waiting) or -1 (the folder or a file
 * cannot be made or opened: err says which and why). On anything but 0 no lock
 * is left held. */
int gl_devlock_take(struct gl_devlocks *l, const struct gl_device *const *devs, int ndevs,
                    int wait, const char *cmdline, volatile sig_atomic_t *stop, FILE *note,
                    char *err, size_t errlen);
/* Release every lock held (the files stay, emptied). */
void gl_devlock_release(struct gl_devlocks *l);

#endif
