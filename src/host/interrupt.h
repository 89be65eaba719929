/* interrupt.h - SIGINT and SIGTERM for `gpulab run`: the handler records which
 * signal came and makes a pipe readable, so that the parent, waiting in poll()
 * for the worker's result, wakes at once instead of when the run ends. The
 * caller forwards the signal to the worker and stops. Must not do anything in
 * the handler but record and write one byte (async-signal-safe only). */
#ifndef GL_INTERRUPT_H
#define GL_INTERRUPT_H

#include <signal.h>

/* Catch SIGINT and SIGTERM from now on. 0, or -1 (errno) if the pipe could not
 * be made (the signals are then still recorded, only not woken on). */
int gl_interrupt_install(void);
/* The first SIGINT or SIGTERM caught, or 0. */
int gl_interrupt_signal(void);
/* The same, as a flag that loops waiting outside poll() may read (non-zero once
 * a signal came): the device locks' wait. */
volatile sig_atomic_t *gl_interrupt_flag(void);
/* The pipe's read end to poll() beside a worker's (readable once a signal came),
 * or -1 when gl_interrupt_install has not run. */
int gl_interrupt_fd(void);
/* In a forked child: close the pipe and restore the default actions. */
void gl_interrupt_child(void);
/* The exit status for an interrupted run: 128 + the signal (130 SIGINT, 143 SIGTERM). */
int gl_interrupt_exit_code(void);

#endif
