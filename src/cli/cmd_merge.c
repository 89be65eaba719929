/* cmd_merge.c - `gpulab merge OUT IN...`: check every input (there, readable,
 * sound by PRAGMA integrity_check, a gpulab database of this schema version or
 * an older one, migrated in memory), compare the configs the inputs ran, then
 * merge them one by one into OUT, each in its own transaction (store_merge.c),
 * and say what each added, every conflict, and which shards of each config OUT
 * holds now.
 *
 * What must match: for every study, the latest session of each input that has
 * the study ran the same config (the same SHA-256 of its text, wherever the file
 * was); else nothing is merged, exit 6, unless --allow-mixed-configs. What is
 * only a warning: a study some inputs lack, inputs run by different gpulab
 * builds, an input with claims left (a sweep still running, or killed), a
 * config's shards missing from OUT; and a note when OUT's own latest session
 * of a study ran another config (OUT is where results accumulate).
 * Exit codes: commands.h. Must not write to an input, nor merge rows itself. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One input as the checks found it. */
struct input {
    const char *path;
    struct gl_merge_facts f;
};

static const struct gl_merge_study *study_in(const struct gl_merge_facts *f, const char *study)
{
    for (int i = 0; i < f->nstudies; i++)
        if (strcmp(f->studies[i].study, study) == 0)
            return &f->studies[i];
    return NULL;
}

/* The first 12 digits of a config's SHA-256, into buf[16]. */
static void short_hash(const char *h, char *buf)
{
    snprintf(buf, 16, "%.12s", h[0] ? h : "(none)");
}

/* Open, check and describe input i of n (every message says which, and names
 * its file). 0, 2 (missing: a usage error) or 3. */
static int check_input(struct input *x, int i, int n)
{
    char err[1200], which[48];
    gl_store *s = NULL;
    snprintf(which, sizeof which, "input %d of %d: ", i + 1, n);
    if (access(x->path, F_OK) != 0) {
        fprintf(stderr, "gpulab: merge: %sno database %s%s%s\n", which, x->path,
                errno == ENOENT ? "" : ": ", errno == ENOENT ? "" : strerror(errno));
        return 2;
    }
    /* A write-ahead log beside it holds its latest runs; SQLite reads it only
     * where it may make the -shm index beside it (else the file alone is read). */
    char wal[4200], dir[4200];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", x->path);
    snprintf(dir, sizeof dir, "%s", x->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    if (stat(wal, &st) == 0 && st.st_size > 0 && access(slash ? dir : ".", W_OK) != 0) {
        fprintf(stderr, "gpulab: merge: %s%s has a write-ahead log (%s) in a folder this user "
                        "cannot write, so its latest runs cannot be read: copy both files to a "
                        "folder you can write, and merge that copy; nothing was merged\n",
                which, x->path, wal);
        return 3;
    }
    if (gl_store_open_readonly(x->path, &s, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: merge: %s%s; nothing was merged\n", which, err);
        return 3;
    }
    if (gl_store_integrity(s, x->path, err, sizeof err) != 0) {
        fprintf(stderr, "gpulab: merge: %s%s; nothing was merged\n", which, err);
        gl_store_close(s);
        return 3;
    }
    if (gl_store_merge_facts(s, &x->f) != 0) {
        const char *e = gl_store_errmsg(s);
        fprintf(stderr, "gpulab: merge: %s%s%s%s; nothing was merged\n", which,
                strstr(e, x->path) ? "" : x->path, strstr(e, x->path) ? "" : ": ", e);
        gl_store_close(s);
        return 3;
    }
    gl_store_close(s);
    return 0;
}

/* The config checks across the inputs: 0, or 6 (different configs, said). */
static int compare_configs(struct input *xs, int nin, int allow_mixed)
{
    int mixed = 0;
    char h[16];
    for (int i = 0; i < nin; i++) {
        for (int k = 0; k < xs[i].f.nstudies; k++) {
            const struct gl_merge_study *a = &xs[i].f.studies[k];
            int first = 1;   /* an earlier input has this study: said there */
            for (int j = 0; j < i && first; j++)
                first = !study_in(&xs[j].f, a->study);
            if (!first)
                continue;
            int differ = 0, missing = 0;
            for (int j = i + 1; j < nin; j++) {
                const struct gl_merge_study *b = study_in(&xs[j].f, a->study);
                if (!b)
                    missing++;
                else if (strcmp(a->config_hash, b->config_hash) != 0)
                    differ = 1;
            }
            missing += i;   /* the inputs before the first one with it */
            if (differ) {
                mixed = 1;
                fprintf(stderr, "gpulab: merge: study %s: the inputs ran different configs "
                                "(config SHA-256 of the latest session of each):\n", a->study);
                for (int j = 0; j < nin; j++) {
                    const struct gl_merge_study *b = study_in(&xs[j].f, a->study);
                    if (!b)
                        continue;
                    short_hash(b->config_hash, h);
                    fprintf(stderr, "  %s: %s (%s, run on %s at %s)\n", xs[j].path, h,
                            b->config_path, b->host, b->started_at);
                }
            }
            if (missing) {
                fprintf(stderr, "gpulab: merge: warning: study %s is not in", a->study);
                for (int j = 0; j < nin; j++)
                    if (!study_in(&xs[j].f, a->study))
                        fprintf(stderr, " %s", xs[j].path);
                fprintf(stderr, " (those ran other configs)\n");
            }
        }
    }
    /* builds: the latest session of every study of every input */
    const char *tool = NULL;
    int builds = 0;
    for (int i = 0; i < nin && !builds; i++)
        for (int k = 0; k < xs[i].f.nstudies; k++) {
            if (!tool)
                tool = xs[i].f.studies[k].tool;
            else if (strcmp(tool, xs[i].f.studies[k].tool) != 0)
                builds = 1;
        }
    if (builds) {
        fprintf(stderr, "gpulab: merge: warning: the inputs were run by different gpulab builds:\n");
        for (int i = 0; i < nin; i++)
            for (int k = 0; k < xs[i].f.nstudies; k++)
                fprintf(stderr, "  %s, study %s: %s\n", xs[i].path, xs[i].f.studies[k].study,
                        xs[i].f.studies[k].tool);
    }
    for (int i = 0; i < nin; i++)
        if (xs[i].f.claims > 0)
            fprintf(stderr, "gpulab: merge: warning: %s: %lld run%s claimed and not stored (its "
                            "sweep is still running, or was killed): run that shard again to "
                            "complete it, and merge again\n", xs[i].path, xs[i].f.claims,
                    xs[i].f.claims == 1 ? "" : "s");
    if (mixed && !allow_mixed) {
        fprintf(stderr, "gpulab: merge: nothing was merged: run every shard with the same "
                        "configs, or merge with --allow-mixed-configs\n");
        return 6;
    }
    if (mixed)
        fprintf(stderr, "gpulab: merge: warning: merging inputs of different configs "
                        "(--allow-mixed-configs)\n");
    return 0;
}

static void outcome(const struct gl_merge_side *s, char *buf, size_t len)
{
    int w = snprintf(buf, len, "%s", s->status);
    if (!isnan(s->median_ms) && w >= 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, ", median %.6g ms", s->median_ms);
    if (!isnan(s->max_rel_err) && w >= 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, ", max_rel_err %.3g", s->max_rel_err);
    if (s->reason[0] && w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, ": %.200s", s->reason);
}

struct conflict_arg {
    const char *out, *in;
};

static void print_conflict(void *arg, const struct gl_merge_conflict *c)
{
    const struct conflict_arg *a = arg;
    char had[400], got[400];
    outcome(&c->had, had, sizeof had);
    outcome(&c->got, got, sizeof got);
    fprintf(stderr, "gpulab: merge: conflict: study %s, %s/%s %s on %s:\n"
                    "  %s run %lld: %s (session of %s at %s)\n"
                    "  %s run %lld: %s (session of %s at %s)\n",
            c->study, c->family, c->variant, c->params, c->device, a->out, c->had.run_id, had,
            c->had.host, c->had.started_at, a->in, c->got.run_id, got, c->got.host,
            c->got.started_at);
}

/* The shards of one config OUT holds (gl_store_merge_shards's callback). */
struct shards {
    int whole;
    int count;          /* the first shard count seen; 0 none */
    int other_counts;   /* sessions of other shard counts */
    unsigned char *have;
    int oom;
};

static void shard_seen(void *arg, int index, int count)
{
    struct shards *s = arg;
    if (count == 0) {
        s->whole = 1;
        return;
    }
    if (s->count == 0) {
        s->count = count;
        s->have = calloc((size_t)count, 1);
        s->oom = !s->have;
    }
    if (count != s->count)
        s->other_counts = 1;
    else if (s->have && index >= 0 && index < count)
        s->have[index] = 1;
}

/* Which shards of each study's config OUT holds now. */
static void report_shards(gl_store *out, const char *out_path, struct input *xs, int nin)
{
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < xs[i].f.nstudies; k++) {
            const struct gl_merge_study *a = &xs[i].f.studies[k];
            int first = 1;
            for (int j = 0; j < i && first; j++)
                first = !study_in(&xs[j].f, a->study);
            if (!first)
                continue;
            struct shards s = { 0, 0, 0, NULL, 0 };
            char h[16];
            short_hash(a->config_hash, h);
            if (gl_store_merge_shards(out, a->study, a->config_hash, shard_seen, &s) != 0 || s.oom) {
                fprintf(stderr, "gpulab: merge: %s: cannot read its sessions' shards: %s\n",
                        out_path, s.oom ? "out of memory" : gl_store_errmsg(out));
                free(s.have);
                continue;
            }
            if (s.whole) {
                printf("gpulab: merge: study %s (config %s): %s holds a run of the whole plan\n",
                       a->study, h, out_path);
            } else if (s.count > 0) {
                int missing = 0;
                for (int x = 0; x < s.count; x++)
                    missing += !s.have[x];
                if (!missing) {
                    printf("gpulab: merge: study %s (config %s): %s holds all %d shards\n",
                           a->study, h, out_path, s.count);
                } else {
                    fprintf(stderr, "gpulab: merge: warning: study %s (config %s): %s holds %d "
                                    "of its %d shards; missing:", a->study, h, out_path,
                            s.count - missing, s.count);
                    int shown = 0;
                    for (int x = 0; x < s.count && shown < 32; x++)
                        if (!s.have[x])
                            fprintf(stderr, "%s %d", shown++ ? "," : "", x);
                    fprintf(stderr, "%s (their runs are not in it)\n", missing > shown ? ", ..." : "");
                }
                if (s.other_counts)
                    fprintf(stderr, "gpulab: merge: warning: study %s (config %s): %s also holds "
                                    "shards of another count than %d\n", a->study, h, out_path,
                            s.count);
            }
            free(s.have);
        }
}

/* OUT's own latest config of each study, against the inputs'. */
static void note_out_configs(gl_store *out, const char *out_path, struct input *xs, int nin)
{
    struct gl_merge_facts of;
    if (gl_store_merge_facts(out, &of) != 0)
        return;
    for (int k = 0; k < of.nstudies; k++)
        for (int i = 0; i < nin; i++) {
            const struct gl_merge_study *b = study_in(&xs[i].f, of.studies[k].study);
            if (!b)
                continue;
            if (strcmp(b->config_hash, of.studies[k].config_hash) != 0) {
                char h1[16], h2[16];
                short_hash(of.studies[k].config_hash, h1);
                short_hash(b->config_hash, h2);
                fprintf(stderr, "gpulab: merge: note: %s's latest session of study %s ran "
                                "config %s, the inputs' %s: both are kept\n", out_path,
                        of.studies[k].study, h1, h2);
            }
            break;
        }
    gl_merge_facts_free(&of);
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int gl_cmd_merge(const char *out, int nin, char **in, const struct gl_merge_opts *o)
{
    struct input *xs = calloc((size_t)nin, sizeof *xs);
    gl_store *store = NULL;
    char err[1200];
    int rc = 0, refused = 0;
    if (!xs) {
        fprintf(stderr, "gpulab: out of memory\n");
        return 1;
    }
    for (int i = 0; i < nin && rc == 0; i++) {
        xs[i].path = in[i];
        if (same_file(out, in[i]) || strcmp(out, in[i]) == 0) {
            fprintf(stderr, "gpulab: merge: %s is the output itself\n", in[i]);
            rc = 2;
        }
    }
    /* 1. every input checked before anything is written */
    for (int i = 0; i < nin && rc == 0; i++)
        rc = check_input(&xs[i], i, nin);
    if (rc == 0)
        rc = compare_configs(xs, nin, o->allow_mixed_configs);
    /* 2. the output, made or migrated as `run` would */
    if (rc == 0) {
        int orc = gl_store_open(out, &store, err, sizeof err);
        if (orc != 0) {
            fprintf(stderr, "gpulab: merge: %s%s%s; nothing was merged\n",
                    strstr(err, out) ? "" : out, strstr(err, out) ? "" : ": ", err);
            rc = 3;
        }
    }
    if (rc == 0)
        note_out_configs(store, out, xs, nin);
    /* 3. one input at a time, each in its own transaction */
    long long added = 0, present = 0, kept = 0;
    for (int i = 0; i < nin && rc == 0; i++) {
        gl_store *src = NULL;
        struct gl_merge_counts n;
        struct conflict_arg ca = { out, in[i] };
        if (gl_store_open_readonly(in[i], &src, err, sizeof err) != 0) {
            fprintf(stderr, "gpulab: merge: input %d of %d: %s; not merged\n", i + 1, nin, err);
            rc = 3;
            break;
        }
        int mrc = gl_store_merge(store, src, o->allow_conflicts, print_conflict, &ca, &n);
        gl_store_close(src);
        if (mrc < 0) {
            const char *e = gl_store_errmsg(store);
            fprintf(stderr, "gpulab: merge: storage error merging input %d of %d (%s): %s%s%s; %s "
                            "is as it was before this input\n", i + 1, nin, in[i],
                    strstr(e, out) ? "" : out, strstr(e, out) ? "" : ": ", e, out);
            rc = 3;
            break;
        }
        if (mrc == 1) {
            fprintf(stderr, "gpulab: merge: %s: not merged: %lld conflict%s (above); %s is as it "
                            "was before it. Merge it with --allow-conflicts to keep both runs of "
                            "each (the one merged last is the latest)\n", in[i], n.conflicts,
                    n.conflicts == 1 ? "" : "s", out);
            refused++;
            continue;
        }
        added += n.runs;
        present += n.runs_present;
        kept += n.conflicts;
        printf("gpulab: merge: %s: %lld run%s added, %lld already in %s; %lld session%s, %lld "
               "device%s and %lld rows of samples, metrics and parameters added",
               in[i], n.runs, n.runs == 1 ? "" : "s", n.runs_present, out, n.sessions,
               n.sessions == 1 ? "" : "s", n.devices, n.devices == 1 ? "" : "s", n.rows);
        if (n.sessions_ended)
            printf("; %lld session%s got %s end", n.sessions_ended,
                   n.sessions_ended == 1 ? "" : "s", n.sessions_ended == 1 ? "its" : "their");
        if (n.conflicts)
            printf("; %lld conflict%s kept (--allow-conflicts)", n.conflicts,
                   n.conflicts == 1 ? "" : "s");
        printf("\n");
    }
    if (rc == 0) {
        report_shards(store, out, xs, nin);
        printf("gpulab: merge: %d of %d input%s merged into %s: %lld runs added, %lld already "
               "there", nin - refused, nin, nin == 1 ? "" : "s", out, added, present);
        if (kept)
            printf(", %lld conflicts kept", kept);
        if (refused)
            printf("; %d input%s not merged (conflicts)", refused, refused == 1 ? "" : "s");
        printf("\n");
        if (refused)
            rc = 5;
    }
    fflush(stdout);
    for (int i = 0; i < nin; i++)
        gl_merge_facts_free(&xs[i].f);
    free(xs);
    gl_store_close(store);
    return rc;
}
