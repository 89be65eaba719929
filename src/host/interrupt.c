/* interrupt.c - see interrupt.h (the self-pipe trick). */
#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static int wake[2] = { -1, -1 };

static void on_signal(int sig)
{
    int saved = errno;
    if (!caught)
        caught = sig;
    if (wake[1] >= 0) {
        ssize_t n = write(wake[1], "x", 1);   /* full pipe: already readable */
        (void)n;
    }
    errno = saved;
}

volatile sig_atomic_t *gl_interrupt_flag(void)
{
    return &caught;
}

int gl_interrupt_install(void)
{
    int rc = 0;
    if (wake[0] < 0) {
        /* non-blocking: a handler never waits on a full pipe (already readable) */
        if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0) {
            wake[0] = wake[1] = -1;
            rc = -1;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return rc;
}

int gl_interrupt_signal(void)
{
    return caught;
}

int gl_interrupt_fd(void)
{
    return wake[0];
}

void gl_interrupt_child(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    for (int i = 0; i < 2; i++)
        if (wake[i] >= 0) {
            close(wake[i]);
            wake[i] = -1;
        }
    caught = 0;
}

int gl_interrupt_exit_code(void)
{
    return caught ? 128 + caught : 0;
}
