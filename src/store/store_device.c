/* store_device.c - writing the rows that runs point at: a device (inserted once
 * per ident, its properties as first seen; its copy bandwidth and memory
 * ceilings recorded once, when first measured) and a session (begun, its shard
 * recorded when it runs one, and ended; the
 * end also remakes the results_<study> views through store_open.c, so a study's
 * first named parameters have their view as soon as its session ends).
 * Values are bound by column name through the row builder (store_bind.c); 0 in
 * a struct gl_device field means "does not apply" and is stored as NULL.
 * On a read-only store the device is only looked up (by ident, else by model).
 * Must not write runs or read anything but the id it returns. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* A read-only store's device: the row of d's ident, else the first row of its
 * model (the columns of db/views.sql's device_model, as gl_store_device would
 * store them), else 0 (no run of it can be stored). */
static long long device_find(gl_store *s, const struct gl_device *d)
{
    struct row by_ident, by_model;
    row_init(&by_ident);
    row_textn(&by_ident, "ident", d->ident, sizeof d->ident);
    row_init(&by_model);
    row_textn(&by_model, "kind", d->kind, sizeof d->kind);
    row_textn(&by_model, "name", d->name, sizeof d->name);
    row_int_nz(&by_model, "cores", d->cores);
    row_int_nz(&by_model, "sm_count", d->sm_count);
    row_int_nz(&by_model, "cc_major", d->cc_major);
    if (d->cc_major > 0)
        row_int(&by_model, "cc_minor", d->cc_minor);
    else
        row_null(&by_model, "cc_minor");
    const struct row *rows[2] = { &by_ident, &by_model };
    for (int k = 0; k < 2; k++) {
        sqlite3_str *q = sqlite3_str_new(s->db);
        sqlite3_str_appendall(q, "SELECT min(id) FROM device WHERE 1");
        for (int i = 0; i < rows[k]->n; i++)
            sqlite3_str_appendf(q, " AND \"%w\" IS ?", rows[k]->c[i].col);
        char *sql = sqlite3_str_finish(q);
        if (!sql) {
            store_err(s, "looking up the device: out of memory");
            return -1;
        }
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
        sqlite3_free(sql);
        if (rc != SQLITE_OK) {
            store_db_err(s, "looking up the device");
            return -1;
        }
        long long id = -1;
        if (row_bind(s, st, rows[k], 1) == 0) {
            rc = sqlite3_step(st);
            if (rc == SQLITE_ROW)
                id = sqlite3_column_int64(st, 0);   /* NULL (none) reads as 0 */
            else
                store_db_err(s, "looking up the device");
        }
        sqlite3_finalize(st);
        if (id != 0)
            return id;
    }
    return 0;
}

int gl_store_device_bandwidth(gl_store *s, long long device_id, double gbs)
{
    sqlite3_stmt *st = NULL;
    if (s->readonly || device_id <= 0 || !(gbs > 0.0))
        return 0;
    int rc = sqlite3_prepare_v2(s->db, "UPDATE device SET copy_bw_gbs = ? WHERE id = ? AND "
                                       "copy_bw_gbs IS NULL", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_double(st, 1, gbs);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 2, device_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "recording the device's copy bandwidth");
        return -1;
    }
    return 0;
}

int gl_store_device_has_ceilings(gl_store *s, long long device_id)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT ceilings_at IS NOT NULL FROM device WHERE id = ?",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, device_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int have = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_db_err(s, "reading the device's ceilings");
        have = -1;
    }
    sqlite3_finalize(st);
    return have;
}

int gl_store_device_ceilings(gl_store *s, long long device_id, const struct gl_ceilings *c)
{
    return gl_store_device_ceilings_at(s, device_id, c, NULL);
}

int gl_store_device_ceilings_at(gl_store *s, long long device_id, const struct gl_ceilings *c,
                                const char *measured_at)
{
    if (s->readonly || device_id <= 0)
        return 0;
    struct row r;
    row_init(&r);
    int measured = c->l1_gbs > 0 || c->smem_gbs > 0 || c->l2_gbs > 0 || c->hostlink_gbs > 0 ||
                   c->h2d_gbs > 0;
    if (measured) {
        row_real_nz(&r, "l1_bw_gbs", c->l1_gbs > 0 ? c->l1_gbs : 0);
        row_real_nz(&r, "smem_bw_gbs", c->smem_gbs > 0 ? c->smem_gbs : 0);
        row_real_nz(&r, "l2_bw_gbs", c->l2_gbs > 0 ? c->l2_gbs : 0);
        row_real_nz(&r, "hostlink_bw_gbs", c->hostlink_gbs > 0 ? c->hostlink_gbs : 0);
        row_real_nz(&r, "h2d_bw_gbs", c->h2d_gbs > 0 ? c->h2d_gbs : 0);
        row_real_nz(&r, "ceilings_clock_mhz", c->clock_mhz > 0 ? c->clock_mhz : 0);
    }
    /* none measured: only the reason, and a later sweep tries again */
    char why[GL_REASON_MAX + 32];
    if (!measured)
        snprintf(why, sizeof why, "not measured: %s", c->why[0] ? c->why : "no reason given");
    row_textn(&r, "ceilings_reason", measured ? c->why : why, measured ? sizeof c->why : sizeof why);
    sqlite3_str *q = sqlite3_str_new(s->db);
    sqlite3_str_appendall(q, "UPDATE device SET ");
    for (int i = 0; i < r.n; i++)
        sqlite3_str_appendf(q, "%s\"%w\" = ?", i ? ", " : "", r.c[i].col);
    if (measured && measured_at)
        sqlite3_str_appendf(q, ", ceilings_at = %Q", measured_at);
    else if (measured)
        sqlite3_str_appendall(q, ", ceilings_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
    sqlite3_str_appendf(q, " WHERE id = %lld AND ceilings_at IS NULL", device_id);
    char *sql = sqlite3_str_finish(q);
    if (!sql) {
        store_err(s, "recording the device's ceilings: out of memory");
        return -1;
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (rc == SQLITE_OK && row_bind(s, st, &r, 1) != 0) {
        sqlite3_finalize(st);
        return -1;
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "recording the device's ceilings");
        return -1;
    }
    return 0;
}

long long gl_store_device(gl_store *s, const struct gl_device *d)
{
    static const char *const block_cols[3] = { "max_block_x", "max_block_y", "max_block_z" };
    static const char *const grid_cols[3] = { "max_grid_x", "max_grid_y", "max_grid_z" };
    size_t identlen = strnlen(d->ident, sizeof d->ident);
    if (identlen == 0) {
        store_err(s, "device '%.*s' has no identity (ident)", (int)strnlen(d->name, sizeof d->name),
                  d->name);
        return -1;
    }
    struct row r;
    row_init(&r);
    row_textn(&r, "kind", d->kind, sizeof d->kind);
    row_textn(&r, "name", d->name, sizeof d->name);
    row_textn(&r, "ident", d->ident, sizeof d->ident);
    row_int_nz(&r, "cores", d->cores);
    row_int_nz(&r, "l1d_kb", d->l1d_kb);
    row_int_nz(&r, "l2_kb", d->l2_kb);
    row_int_nz(&r, "l3_kb", d->l3_kb);
    row_int_nz(&r, "cc_major", d->cc_major);
    if (d->cc_major > 0)   /* 9.0: a minor version of 0 is real */
        row_int(&r, "cc_minor", d->cc_minor);
    else
        row_null(&r, "cc_minor");
    row_int_nz(&r, "sm_count", d->sm_count);
    row_int_nz(&r, "cores_per_sm", d->cores_per_sm);
    row_int_nz(&r, "clock_khz", d->clock_khz);
    row_int_nz(&r, "mem_clock_khz", d->mem_clock_khz);
    row_int_nz(&r, "mem_bus_bits", d->mem_bus_bits);
    row_int_nz(&r, "mem_bytes", d->mem_bytes);
    row_int_nz(&r, "l2_bytes", d->l2_bytes);
    row_int_nz(&r, "smem_per_block", d->smem_per_block);
    row_int_nz(&r, "smem_per_block_optin", d->smem_per_block_optin);
    row_int_nz(&r, "smem_per_sm", d->smem_per_sm);
    row_int_nz(&r, "regs_per_block", d->regs_per_block);
    row_int_nz(&r, "regs_per_sm", d->regs_per_sm);
    row_int_nz(&r, "warp_size", d->warp_size);
    row_int_nz(&r, "max_threads_per_block", d->max_threads_per_block);
    row_int_nz(&r, "max_threads_per_sm", d->max_threads_per_sm);
    row_int_nz(&r, "max_blocks_per_sm", d->max_blocks_per_sm);
    for (int i = 0; i < 3; i++)
        row_int_nz(&r, block_cols[i], d->max_block[i]);
    for (int i = 0; i < 3; i++)
        row_int_nz(&r, grid_cols[i], d->max_grid[i]);
    row_int_nz(&r, "driver_version", d->driver_version);
    row_int_nz(&r, "runtime_version", d->runtime_version);
    row_real_nz(&r, "theo_bw_gbs", d->theo_bw_gbs);
    row_real_nz(&r, "copy_bw_gbs", d->copy_bw_gbs);
    row_real_nz(&r, "fp32_peak_gflops", d->fp32_peak_gflops);
    if (strcmp(d->kind, "gpu") == 0)   /* until gl_store_device_ceilings */
        row_text(&r, "ceilings_reason", "not measured yet");

    if (s->readonly)
        return device_find(s, d);
    if (row_insert(s, &s->device_insert, "device", &r, " ON CONFLICT (ident) DO NOTHING",
                   "storing the device") != 0)
        return -1;
    if (store_prepare(s, &s->device_select, "SELECT id FROM device WHERE ident = ?") != 0)
        return -1;
    long long id = -1;
    int rc = sqlite3_bind_text(s->device_select, 1, d->ident, (int)identlen, SQLITE_TRANSIENT);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s->device_select);
    if (rc == SQLITE_ROW)
        id = sqlite3_column_int64(s->device_select, 0);
    else
        store_db_err(s, "looking up the device");
    sqlite3_reset(s->device_select);
    return id;
}

long long gl_store_session_begin(gl_store *s, const struct gl_session_info *si)
{
    struct row r;
    row_init(&r);
    row_text(&r, "tool_version", si->tool_version);
    row_text(&r, "git_revision", si->git_revision);
    row_text(&r, "host", si->host);
    row_text(&r, "argv", si->argv);
    row_text(&r, "study", si->study);
    row_text(&r, "config_path", si->config_path);
    row_text(&r, "config_text", si->config_text);
    row_text(&r, "config_hash", si->config_hash);
    int mark = r.n;
    row_real_nonneg(&r, "load1", si->load1);
    row_real_nonneg(&r, "lock_wait_s", si->lock_wait_s);
    if (si->gpu_procs >= 0)
        row_int(&r, "gpu_procs", si->gpu_procs);
    else
        row_null(&r, "gpu_procs");
    row_text(&r, "gpu_procs_reason", si->gpu_procs_reason);
    if (!si->have_facts)
        row_null_from(&r, mark);
    /* the clocks: asked, done, and NVML's readings (NULL with nvml_reason) */
    mark = r.n;
    row_text(&r, "clocks_asked", si->clocks_asked);
    if (si->clocks_locked >= 0)
        row_int(&r, "clocks_locked", si->clocks_locked);
    else
        row_null(&r, "clocks_locked");
    row_text(&r, "clocks_reason", si->clocks_reason);
    row_int_nz(&r, "sm_clock_mhz", si->sm_clock_mhz > 0 ? si->sm_clock_mhz : 0);
    row_int_nz(&r, "sm_app_clock_mhz", si->sm_app_clock_mhz > 0 ? si->sm_app_clock_mhz : 0);
    row_int_nz(&r, "sm_app_default_mhz", si->sm_app_default_mhz > 0 ? si->sm_app_default_mhz : 0);
    row_int_nz(&r, "sm_max_clock_mhz", si->sm_max_clock_mhz > 0 ? si->sm_max_clock_mhz : 0);
    if (si->clock_events)
        row_text(&r, "clock_events", si->clock_events);
    else
        row_null(&r, "clock_events");
    row_text(&r, "nvml_reason", si->nvml_reason);
    if (!si->have_clocks)
        row_null_from(&r, mark);
    long long *own = realloc(s->own, (size_t)(s->nown + 1) * sizeof *own);
    if (!own) {
        store_err(s, "recording the session: out of memory");
        return -1;
    }
    s->own = own;
    sqlite3_stmt *st = NULL;   /* once per session: not kept */
    int rc = row_insert(s, &st, "session", &r, "", "recording the session");
    sqlite3_finalize(st);
    if (rc != 0)
        return -1;
    /* ours: runs of it are not "stored by another process" (store_claim.c) */
    s->own[s->nown++] = sqlite3_last_insert_rowid(s->db);
    return s->own[s->nown - 1];
}

int gl_store_session_shard(gl_store *s, long long session_id, int index, int count)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "UPDATE session SET shard_index = ?, shard_count = ? "
                                       "WHERE id = ?", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 1, index);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 2, count);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 3, session_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "recording the session's shard");
        return -1;
    }
    return 0;
}

/* The end time, then the results_<study> views remade (a study may have got
 * its first named parameters, or new names), in one transaction. */
static int end_session(gl_store *s, long long session_id)
{
    sqlite3_stmt *st = NULL;
    const char *sql = "UPDATE session SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?";
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, session_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        store_db_err(s, "ending the session");
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    if (sqlite3_changes(s->db) != 1) {
        store_err(s, "ending the session: no session %lld", session_id);
        return -1;
    }
    return store_study_views(s);
}

int gl_store_session_end(gl_store *s, long long session_id)
{
    if (store_exec(s, "BEGIN IMMEDIATE", "ending the session") != 0)
        return -1;
    if (end_session(s, session_id) != 0 || store_exec(s, "COMMIT", "ending the session") != 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
