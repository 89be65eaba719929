/* progress.c - see progress.h. */
#include "progress.h"
#include "util.h"

#include <string.h>
#include <unistd.h>

void gl_progress_init(struct gl_progress *pg, FILE *out, int total)
{
    memset(pg, 0, sizeof *pg);
    pg->out = out;
    pg->tty = isatty(fileno(out));
    pg->total = total;
    pg->workers = 1;
    pg->started = gl_now();
}

static void clear_line(struct gl_progress *pg)
{
    if (pg->line_open) {
        fputs("\r\033[K", pg->out);
        pg->line_open = 0;
    }
}

static void format_eta(const struct gl_progress *pg, char *buf, size_t len)
{
    if (pg->executed == 0) {
        snprintf(buf, len, "ETA --:--");
        return;
    }
    double per = pg->busy_s / pg->executed;
    int todo = pg->total - pg->done;
    long left = (long)(per * (todo > 0 ? todo : 0) / (pg->workers > 1 ? pg->workers : 1) + 0.5);
    snprintf(buf, len, "ETA %ld:%02ld:%02ld", left / 3600, (left / 60) % 60, left % 60);
}

void gl_progress_start(struct gl_progress *pg, const char *label)
{
    snprintf(pg->label, sizeof pg->label, "%s", label);
    if (!pg->tty)
        return;
    char eta[32];
    format_eta(pg, eta, sizeof eta);
    clear_line(pg);
    fprintf(pg->out, "[%d/%d] %.90s  %s", pg->done + 1, pg->total, label, eta);
    fflush(pg->out);
    pg->line_open = 1;
}

void gl_progress_start_on(struct gl_progress *pg, int slot, const char *label)
{
    int busy = 0;
    if (slot >= 0 && slot < GL_PROGRESS_SLOTS)
        snprintf(pg->slot_label[slot], sizeof pg->slot_label[slot], "%s", label);
    for (int i = 0; i < GL_PROGRESS_SLOTS; i++)
        busy += pg->slot_label[i][0] != '\0';
    if (busy <= 1) {
        gl_progress_start(pg, label);
        return;
    }
    char both[300];
    snprintf(both, sizeof both, "%.200s (+%d more running)", label, busy - 1);
    gl_progress_start(pg, both);
    snprintf(pg->label, sizeof pg->label, "%s", label);
}

void gl_progress_idle(struct gl_progress *pg, int slot)
{
    if (slot >= 0 && slot < GL_PROGRESS_SLOTS)
        pg->slot_label[slot][0] = '\0';
}

void gl_progress_tick_on(struct gl_progress *pg, int slot, double elapsed)
{
    if (pg->tty)
        return;
    const char *label = slot >= 0 && slot < GL_PROGRESS_SLOTS && pg->slot_label[slot][0]
                            ? pg->slot_label[slot] : pg->label;
    fprintf(pg->out, "still running [%d/%d] %s (%.0f s)\n", pg->done + 1, pg->total, label,
            elapsed);
    fflush(pg->out);
}

void gl_progress_finish(struct gl_progress *pg, const char *line, int executed, double seconds)
{
    if (executed) {
        pg->done++;
        pg->executed++;
        pg->busy_s += seconds;
    }
    clear_line(pg);
    if (line && executed)
        fprintf(pg->out, "[%d/%d] %s\n", pg->done, pg->total, line);
    else if (line)
        fprintf(pg->out, "[-] %s\n", line);
    fflush(pg->out);
}

void gl_progress_tick(struct gl_progress *pg, double elapsed)
{
    if (pg->tty)
        return;
    fprintf(pg->out, "still running [%d/%d] %s (%.0f s)\n", pg->done + 1, pg->total, pg->label,
            elapsed);
    fflush(pg->out);
}

void gl_progress_note(struct gl_progress *pg, const char *msg)
{
    clear_line(pg);
    if (!msg[0]) {   /* only clear the line (before a message on stderr) */
        fflush(pg->out);
        return;
    }
    fprintf(pg->out, "%s\n", msg);
    fflush(pg->out);
}

void gl_progress_end(struct gl_progress *pg)
{
    clear_line(pg);
    fflush(pg->out);
}
