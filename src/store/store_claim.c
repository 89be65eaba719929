/* store_claim.c - run claims, so that several processes running one plan on one
 * database split it instead of repeating it. A claim is a row of table claim:
 * the run key's SHA-256 (study, device model, family, variant, every parameter,
 * named parameters, code hash: what the resume lookup matches) and who holds it
 * (host, boot id, pid, the pid's start time: procid.h). It is taken in one
 * IMMEDIATE transaction together with the checks that no ok run of that key is
 * stored, none at all since the caller planned, and no live process holds it; storing the run (store_run.c) deletes it
 * in the result's own transaction; closing the store deletes the rest of this
 * process's claims. A claim whose holder is gone (same host: pid dead, reused, or
 * the machine rebooted) is taken over; one from another host is left alone.
 * Must not decide what runs (sweep.c) nor write runs. */
#include "store_int.h"

#include <string.h>

#include "sha256.h"

/* The claim key of k: SHA-256 of its parts, the device by model. 0 or -1. */
int store_claim_key(gl_store *s, const struct gl_run_key *k, char out[65])
{
    char ubuf[STORE_UPARAMS_MAX];
    const char *uparams;
    if (!k || !k->family || !k->variant || !k->p) {
        store_err(s, "run claim: incomplete key");
        return -1;
    }
    if (store_key_uparams(s, k, ubuf, sizeof ubuf, &uparams) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    long long model = -1;
    int rc = sqlite3_prepare_v2(s->db, "SELECT model_id FROM device_model WHERE device_id = ?", -1,
                                &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, k->device_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        model = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        store_err(s, "run claim: no device %lld", k->device_id);
    else
        store_db_err(s, "run claim: reading the device model");
    sqlite3_finalize(st);
    if (model < 0)
        return -1;
    struct row w;
    row_init(&w);
    row_text(&w, "study", k->study);
    row_text(&w, "family", k->family);
    row_text(&w, "variant", k->variant);
    row_params(&w, k->p);
    row_text(&w, "uparams", uparams);
    row_text(&w, "code_hash", k->code_hash);
    sqlite3_str *t = sqlite3_str_new(s->db);
    sqlite3_str_appendf(t, "model %lld\n", model);
    for (int i = 0; i < w.n; i++) {
        const struct cell *c = &w.c[i];
        switch (c->type) {
        case CELL_INT: sqlite3_str_appendf(t, "%s=i%lld\n", c->col, c->i); break;
        case CELL_REAL: sqlite3_str_appendf(t, "%s=r%!.17g\n", c->col, c->d); break;
        case CELL_TEXT: sqlite3_str_appendf(t, "%s=t%d:%.*s\n", c->col, c->tlen, c->tlen, c->t); break;
        default: sqlite3_str_appendf(t, "%s\n", c->col); break;
        }
    }
    int len = sqlite3_str_length(t);
    char *text = sqlite3_str_finish(t);
    if (!text) {
        store_err(s, "run claim: out of memory");
        return -1;
    }
    gl_sha256_hex(text, (size_t)len, out);
    sqlite3_free(text);
    return 0;
}

/* The holder of a claim row (columns host, boot_id, pid, pid_start from `first`). */
static void holder_of(sqlite3_stmt *st, int first, struct gl_procid *h)
{
    memset(h, 0, sizeof *h);
    const char *host = (const char *)sqlite3_column_text(st, first);
    const char *boot = (const char *)sqlite3_column_text(st, first + 1);
    snprintf(h->host, sizeof h->host, "%s", host ? host : "");
    snprintf(h->boot, sizeof h->boot, "%s", boot ? boot : "");
    h->pid = (long)sqlite3_column_int64(st, first + 2);
    h->start = sqlite3_column_type(st, first + 3) == SQLITE_NULL ? -1
                                                                 : sqlite3_column_int64(st, first + 3);
}

static int is_self(const gl_store *s, const struct gl_procid *h)
{
    return strcmp(h->host, s->self.host) == 0 && strcmp(h->boot, s->self.boot) == 0 &&
           h->pid == s->self.pid && h->start == s->self.start;
}

static void self_init(gl_store *s)
{
    if (!s->self_known) {
        gl_procid_self(&s->self);
        s->self_known = 1;
    }
}

/* The claim row of key: 1 with its holder in *h (and when in `since`), 0 none, -1. */
static int claim_row(gl_store *s, const char *key, struct gl_procid *h, char *since, size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT host, boot_id, pid, pid_start, claimed_at FROM "
                                       "claim WHERE key = ?", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int found = -1;
    if (rc == SQLITE_ROW) {
        holder_of(st, 0, h);
        const char *at = (const char *)sqlite3_column_text(st, 4);
        if (since)
            snprintf(since, len, "%s", at ? at : "?");
        found = 1;
    } else if (rc == SQLITE_DONE) {
        found = 0;
    } else {
        store_db_err(s, "reading a run claim");
    }
    sqlite3_finalize(st);
    return found;
}

int gl_store_claim_held(gl_store *s, const struct gl_run_key *k)
{
    char key[65];
    struct gl_procid h;
    self_init(s);
    if (store_claim_key(s, k, key) != 0)
        return -1;
    int found = claim_row(s, key, &h, NULL, 0);
    if (found <= 0)
        return found;
    return !is_self(s, &h) && gl_procid_alive(&s->self, &h);
}


/* Run sql with its five parameters bound to key and this process (host, boot
 * id, pid, pid start time: NULL when unknown). 0, or -1 with the error set
 * (what: the action, for the message). */
static int exec_with_self(gl_store *s, const char *sql, const char *key, const char *what)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 2, s->self.host, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = s->self.boot[0] ? sqlite3_bind_text(st, 3, s->self.boot, -1, SQLITE_STATIC)
                             : sqlite3_bind_null(st, 3);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 4, s->self.pid);
    if (rc == SQLITE_OK)
        rc = s->self.start >= 0 ? sqlite3_bind_int64(st, 5, s->self.start) : sqlite3_bind_null(st, 5);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, what);
        return -1;
    }
    return 0;
}

/* Inside the caller's IMMEDIATE transaction. */
static int claim_in_txn(gl_store *s, const struct gl_run_key *k, int force, long long since,
                        char *holder, size_t holderlen)
{
    char key[65], at[64];
    struct gl_procid h;
    if (store_claim_key(s, k, key) != 0)
        return -1;
    if (since >= 0) {
        int ran = store_ran_since(s, k, since);
        if (ran != 0)
            return ran < 0 ? -1 : GL_CLAIM_ELSEWHERE;
    }
    if (!force) {
        int ok = gl_store_has_ok(s, k);
        if (ok != 0)
            return ok < 0 ? -1 : GL_CLAIM_DONE;
    }
    int found = claim_row(s, key, &h, at, sizeof at);
    if (found < 0)
        return -1;
    if (found && is_self(s, &h))
        return GL_CLAIM_TAKEN;
    if (found && gl_procid_alive(&s->self, &h)) {
        if (holder)
            snprintf(holder, holderlen, "pid %ld on %s since %s", h.pid, h.host, at);
        return GL_CLAIM_BUSY;
    }
    /* none, or its holder is gone: ours now */
    if (exec_with_self(s, "INSERT OR REPLACE INTO claim (key, host, boot_id, pid, pid_start) "
                          "VALUES (?, ?, ?, ?, ?)", key, "claiming a run") != 0)
        return -1;
    s->claims = 1;
    return GL_CLAIM_TAKEN;
}

int gl_store_claim(gl_store *s, const struct gl_run_key *k, int force, long long since,
                   char *holder, size_t holderlen)
{
    if (s->readonly) {
        store_err(s, "claiming a run: the database is open read-only");
        return -1;
    }
    self_init(s);
    if (store_exec(s, "BEGIN IMMEDIATE", "claiming a run") != 0)
        return -1;
    int rc = claim_in_txn(s, k, force, since, holder, holderlen);
    if (rc < 0 || store_exec(s, "COMMIT", "committing a run claim") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return rc;
}

int store_claim_drop(gl_store *s, const char *key)
{
    self_init(s);
    return exec_with_self(s, "DELETE FROM claim WHERE key = ? AND host = ? AND boot_id IS ? AND "
                             "pid = ? AND pid_start IS ?", key, "releasing a run claim");
}

int gl_store_unclaim(gl_store *s, const struct gl_run_key *k)
{
    char key[65];
    if (s->readonly || !s->claims)
        return 0;
    if (store_claim_key(s, k, key) != 0)
        return -1;
    return store_claim_drop(s, key);
}

int gl_store_unclaim_all(gl_store *s)
{
    if (s->readonly || !s->claims)
        return 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "DELETE FROM claim WHERE host = ? AND boot_id IS ? AND "
                                       "pid = ? AND pid_start IS ?", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, s->self.host, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = s->self.boot[0] ? sqlite3_bind_text(st, 2, s->self.boot, -1, SQLITE_STATIC)
                             : sqlite3_bind_null(st, 2);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, s->self.pid);
    if (rc == SQLITE_OK)
        rc = s->self.start >= 0 ? sqlite3_bind_int64(st, 4, s->self.start) : sqlite3_bind_null(st, 4);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "releasing this process's run claims");
        return -1;
    }
    s->claims = 0;
    return 0;
}
