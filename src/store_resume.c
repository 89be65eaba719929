/* store_resume.c - the resume lookup: is a run with this key (study, device
 * model, family, variant and every parameter of gl_param_table) stored with this
 * status. The WHERE clause is written from the same cells that are bound, and
 * the run_key index (store_sql.c) covers the same columns.
 * Must not write anything. */
#include "store_int.h"

int gl_store_has_status(gl_store *s, const struct gl_run_key *k, const char *status)
{
    if (!k || !k->family || !k->variant || !k->p || !status) {
        store_err(s, "run lookup: incomplete key");
        return -1;
    }
    /* The device matches by model (db/views.sql's device_model); every other
     * part of the key with IS, so that NULL (unset) matches only NULL. */
    struct row w;
    row_init(&w);
    row_text(&w, "family", k->family);
    row_text(&w, "variant", k->variant);
    row_text(&w, "study", k->study);
    row_params(&w, k->p);
    row_text(&w, "status", status);

    sqlite3_str *q = sqlite3_str_new(s->db);
    sqlite3_str_appendall(q, "SELECT 1 FROM run WHERE device_id IN (SELECT device_id FROM "
                             "device_model WHERE model_id = (SELECT model_id FROM device_model "
                             "WHERE device_id = ?))");
    for (int i = 0; i < w.n; i++)
        sqlite3_str_appendf(q, " AND \"%w\" IS ?", w.c[i].col);
    sqlite3_str_appendall(q, " LIMIT 1");
    char *sql = sqlite3_str_finish(q);
    if (!sql) {
        store_err(s, "looking up a run: out of memory");
        return -1;
    }
    int rc = store_prepare(s, &s->has_status, sql);
    sqlite3_free(sql);
    if (rc != 0)
        return -1;
    int found = -1;
    rc = sqlite3_bind_int64(s->has_status, 1, k->device_id);
    if (rc != SQLITE_OK)
        store_db_err(s, "looking up a run");
    else if (row_bind(s, s->has_status, &w, 2) == 0) {
        rc = sqlite3_step(s->has_status);
        if (rc == SQLITE_ROW)
            found = 1;
        else if (rc == SQLITE_DONE)
            found = 0;
        else
            store_db_err(s, "looking up a run");
    }
    sqlite3_reset(s->has_status);
    sqlite3_clear_bindings(s->has_status);
    return found;
}

int gl_store_has_ok(gl_store *s, const struct gl_run_key *k)
{
    return gl_store_has_status(s, k, "ok");
}
