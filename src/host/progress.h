/* progress.h - what a long sweep shows while it runs: on a terminal, one line that
 * is rewritten (done/total, current run, ETA); otherwise plain lines, one per run,
 * and a "still running" line now and then during a long one. total counts the
 * runs that will execute (not those done, rejected or without their GPU), so
 * the ETA is made of them only. Result lines are printed either way. With
 * several workers at once (`run --gpus`) each has its run in flight (slot), the
 * rewritten line names the latest and how many are busy, and the ETA divides
 * the work left among the workers. Must not decide anything about the runs. */
#ifndef GL_PROGRESS_H
#define GL_PROGRESS_H

#include <stdio.h>

#define GL_PROGRESS_SLOTS 16   /* workers whose runs it names (run --gpus) */

struct gl_progress {
    FILE *out;
    int tty;
    int total, done;
    double started;       /* gl_now() at start */
    double busy_s;        /* seconds spent in runs that executed */
    int executed;         /* runs that executed (not skipped as done) */
    int line_open;        /* a rewritable line is on screen */
    int workers;          /* runs that go on at once (>= 1) */
    char label[300];      /* the run in flight, the latest started */
    char slot_label[GL_PROGRESS_SLOTS][300];   /* each worker's run in flight ("": none) */
};

void gl_progress_init(struct gl_progress *pg, FILE *out, int total);
/* Before a run starts: show "[i/total] label  ETA". */
void gl_progress_start(struct gl_progress *pg, const char *label);
/* The same for worker slot (0..GL_PROGRESS_SLOTS-1) of several: "[i/total] label (+N more
 * running)  ETA". */
void gl_progress_start_on(struct gl_progress *pg, int slot, const char *label);
/* After it: print the result line (executed = it ran; seconds it took). A line of
 * a run that did not execute (stored as skipped) is printed as "[-] line" and
 * does not count towards total. */
void gl_progress_finish(struct gl_progress *pg, const char *line, int executed, double seconds);
/* Worker slot has no run in flight any more. */
void gl_progress_idle(struct gl_progress *pg, int slot);
/* While a run goes on (elapsed seconds): when out is not a terminal, one line
 * "still running [i/total] LABEL (N s)"; nothing on a terminal. */
void gl_progress_tick(struct gl_progress *pg, double elapsed);
/* The same for worker slot's run. */
void gl_progress_tick_on(struct gl_progress *pg, int slot, double elapsed);
/* A message that must stay visible (clears the rewritable line first); "" only
 * clears it. */
void gl_progress_note(struct gl_progress *pg, const char *msg);
void gl_progress_end(struct gl_progress *pg);

#endif
