/* store_merge_facts.c - what `gpulab merge` learns of a database before and
 * after it merges: whether the file is sound (PRAGMA integrity_check), which
 * config each study last ran (its latest session: config SHA-256, path, host,
 * gpulab build, shard), how many sessions, runs and claims it holds, and which
 * shards of a config its sessions ran.
 * Must not write anything (the merge itself is store_merge.c) nor print. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

int gl_store_integrity(gl_store *s, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL);
    char what[600] = "";
    int lines = 0, sound = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        if (lines == 0 && r && strcmp(r, "ok") == 0)
            sound = 1;
        else if (lines < 3)
            snprintf(what + strlen(what), sizeof what - strlen(what), "%s%.180s",
                     lines ? "; " : "", r ? r : "?");
        lines++;
        rc = SQLITE_OK;
    }
    int code = sqlite3_errcode(s->db) & 0xff;
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
            snprintf(err, errlen, "database %s is damaged (integrity_check: %s)", path,
                     sqlite3_errmsg(s->db));
            return -2;
        }
        snprintf(err, errlen, "%s: cannot check the file (integrity_check): %s", path,
                 sqlite3_errmsg(s->db));
        return -1;
    }
    if (!sound) {
        snprintf(err, errlen, "database %s is damaged (integrity_check: %s%s)", path, what,
                 lines > 3 ? "; ..." : "");
        return -2;
    }
    return 0;
}

static void copy_col(sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    snprintf(buf, len, "%s", t ? t : "");
}

int gl_store_merge_facts(gl_store *s, struct gl_merge_facts *f)
{
    memset(f, 0, sizeof *f);
    if (store_query_int(s, "SELECT count(*) FROM session", &f->sessions) != 0 ||
        store_query_int(s, "SELECT count(*) FROM run", &f->runs) != 0 ||
        store_query_int(s, "SELECT count(*) FROM claim", &f->claims) != 0)
        return -1;
    /* the latest session of each study: started_at, then id, the newest */
    const char *sql =
        "SELECT s.study, s.config_hash, s.config_path, s.started_at, s.host, "
        "       trim(coalesce(s.tool_version, '') || ' ' || coalesce(s.git_revision, '')), "
        "       s.shard_index, s.shard_count "
        "FROM session s WHERE s.id = (SELECT t.id FROM session t WHERE t.study IS s.study "
        "                             ORDER BY t.started_at DESC, t.id DESC LIMIT 1) "
        "ORDER BY s.study";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct gl_merge_study *v = realloc(f->studies, (size_t)(f->nstudies + 1) * sizeof *v);
        if (!v) {
            sqlite3_finalize(st);
            store_err(s, "reading the sessions: out of memory");
            return -1;
        }
        f->studies = v;
        struct gl_merge_study *m = &v[f->nstudies++];
        memset(m, 0, sizeof *m);
        copy_col(st, 0, m->study, sizeof m->study);
        copy_col(st, 1, m->config_hash, sizeof m->config_hash);
        copy_col(st, 2, m->config_path, sizeof m->config_path);
        copy_col(st, 3, m->started_at, sizeof m->started_at);
        copy_col(st, 4, m->host, sizeof m->host);
        copy_col(st, 5, m->tool, sizeof m->tool);
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
            m->shard_index = sqlite3_column_int(st, 6);
            m->shard_count = sqlite3_column_int(st, 7);
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) {
        store_db_err(s, "reading the sessions");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

void gl_merge_facts_free(struct gl_merge_facts *f)
{
    free(f->studies);
    memset(f, 0, sizeof *f);
}

int gl_store_merge_shards(gl_store *s, const char *study, const char *config_hash,
                          void (*fn)(void *arg, int index, int count), void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT DISTINCT coalesce(shard_index, 0), "
                                       "coalesce(shard_count, 0) FROM session WHERE study IS ? "
                                       "AND config_hash IS ? ORDER BY 2, 1", -1, &st, NULL);
    /* "" is how gl_merge_study writes NULL */
    if (rc == SQLITE_OK)
        rc = study[0] ? sqlite3_bind_text(st, 1, study, -1, SQLITE_STATIC) : sqlite3_bind_null(st, 1);
    if (rc == SQLITE_OK)
        rc = config_hash[0] ? sqlite3_bind_text(st, 2, config_hash, -1, SQLITE_STATIC)
                            : sqlite3_bind_null(st, 2);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        fn(arg, sqlite3_column_int(st, 0), sqlite3_column_int(st, 1));
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "reading the sessions' shards");
        return -1;
    }
    return 0;
}
