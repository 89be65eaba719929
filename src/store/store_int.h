/* store_int.h - what the store_*.c files share and nothing outside them may use:
 * the handle, the one error convention, statement helpers, the row builder that
 * binds values by column name, the SQL generated from gl_param_table and
 * gl_metric_table and the results_<study> views (store_sql.c).
 *
 * The error convention: a function that fails sets s->err (store_err / store_db_err)
 * and returns -1 (or NULL); the public function returns -1 and the caller reads
 * gl_store_errmsg(). Nothing in the store prints. */
#ifndef GL_STORE_INT_H
#define GL_STORE_INT_H

#include <sqlite3.h>

#include "procid.h"
#include "store.h"

struct gl_store {
    sqlite3 *db;
    char err[1024];
    int code;                   /* SQLite's primary error code behind err; 0 when not SQLite's */
    char *path;                 /* the database file, for messages */
    int tidy;                   /* a read-only open that found no -wal, or an empty one
                                 * (a reader's): close removes the -wal and -shm
                                 * (store_path_tidy) */
    int readonly;               /* gl_store_open_readonly: nothing may write */
    const char *denied;         /* what the query authorizer refused, if anything */
    sqlite3_stmt *has_status;   /* prepared on first use, kept until close */
    sqlite3_stmt *ran_since;
    sqlite3_stmt *run_cost;
    sqlite3_stmt *has_ok;
    sqlite3_stmt *run_insert;
    sqlite3_stmt *param_insert;
    sqlite3_stmt *scalar_insert;
    sqlite3_stmt *sample_insert;
    sqlite3_stmt *metric_insert;
    sqlite3_stmt *launch_insert;         /* a launch sequence's launches (store_launch.c) */
    sqlite3_stmt *launch_metric_insert;
    sqlite3_stmt *device_insert;
    sqlite3_stmt *device_select;
    sqlite3_stmt *latest_run;   /* store_resume.c: a search's point (store_search.c) */
    sqlite3_stmt *search_value; /* store_search.c: the objective of a run */
    sqlite3_stmt *search_secs;  /* store_search.c: the seconds a run took the search */
    int claims;                 /* this handle may hold run claims (store_claim.c) */
    int batch;                  /* inside gl_store_batch_begin: results are savepoints */
    long long *own;             /* the sessions this handle began (gl_store_session_begin) */
    int nown;
    int self_known;
    struct gl_procid self;      /* this process, as claims name it */
};

/* ---- errors and statements (store_bind.c) ---- */

/* s->err, an echoed input in it shortened to fit (gl_text_fit); s->code = 0. */
void store_err(gl_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "what: sqlite's message", s->code set; when SQLite found the file damaged or
 * not a database, "database PATH is damaged (what: ...)" / "PATH: not a SQLite
 * database (what: ...)", so that whoever prints it names the file. */
void store_db_err(gl_store *s, const char *what);
int store_exec(gl_store *s, const char *sql, const char *what);
int store_query_int(gl_store *s, const char *sql, long long *v);   /* first column, first row */
/* Prepare sql into *st, persistent, unless *st already holds exactly that text
 * (a statement built from a row is cached this way). */
int store_prepare(gl_store *s, sqlite3_stmt **st, const char *sql);

/* ---- the row builder (store_bind.c) ----
 * A row is a list of (column name, value) cells. The INSERT or WHERE clause is
 * written from the cells' names, and the values bound from the same cells, so a
 * column is named in one place only (where its value is given) and no code
 * counts positions. Not measured / does not apply is a NULL cell, never 0. */
enum { CELL_NULL, CELL_INT, CELL_REAL, CELL_TEXT };

struct cell {
    const char *col;
    int type;
    long long i;
    double d;
    const char *t;   /* not owned: must outlive the statement's step */
    int tlen;
};

#define ROW_MAX 96

struct row {
    int n;
    int overflow;   /* more than ROW_MAX cells: the row is refused */
    struct cell c[ROW_MAX];
};

void row_init(struct row *r);
void row_null(struct row *r, const char *col);
void row_int(struct row *r, const char *col, long long v);
void row_int_nz(struct row *r, const char *col, long long v);     /* 0 -> NULL */
void row_real(struct row *r, const char *col, double v);         /* NaN, inf -> NULL */
void row_real_nonneg(struct row *r, const char *col, double v);  /* < 0 -> NULL */
void row_real_nz(struct row *r, const char *col, double v);      /* 0 -> NULL */
void row_textn(struct row *r, const char *col, const char *t, size_t cap);   /* "" -> NULL */
void row_text(struct row *r, const char *col, const char *t);
void row_text_empty(struct row *r, const char *col, const char *t); /* "" stays "", NULL -> NULL */
/* One cell per gl_param_table row, under its column; unset -> NULL. */
void row_params(struct row *r, const struct gl_params *p);
/* Every cell from index `from` on becomes NULL (a group that does not apply). */
void row_null_from(struct row *r, int from);
/* Bind the cells, in order, to parameters first, first + 1 ... of st. */
int row_bind(gl_store *s, sqlite3_stmt *st, const struct row *r, int first);
/* INSERT INTO table (cells' columns) VALUES (...)suffix, through the cached *st;
 * one step, then reset. 0, or -1 with the error under `what`. */
int row_insert(gl_store *s, sqlite3_stmt **st, const char *table, const struct row *r,
               const char *suffix, const char *what);

/* ---- the key's named parameters (store_resume.c) ---- */

/* Room for gl_params_user_format's text of GL_MAX_UPARAMS parameters. */
#define STORE_UPARAMS_MAX (GL_MAX_UPARAMS * (GL_UPARAM_NAME + 24))

/* The run.uparams text of key k: k->uparams, or made from k->p->user when that
 * is NULL or "" (in buf, of len bytes); *text is NULL when there are none. -1
 * with s->err set when k->uparams is not the text of k->p->user. */
int store_key_uparams(gl_store *s, const struct gl_run_key *k, char *buf, size_t len,
                      const char **text);

/* ---- run claims (store_claim.c) ---- */

/* The claim key of k (hex SHA-256 of its parts, the device by model). 0 or -1. */
int store_claim_key(gl_store *s, const struct gl_run_key *k, char out[65]);
/* 1 when a run of k (any status) with an id above `after` is stored by a session
 * this handle did not begin (store_resume.c). */
/* The latest run of key k, an ok one first (any status else): its id and
 * status. 1, 0 none, -1. */
int store_latest_run(gl_store *s, const struct gl_run_key *k, long long *id, char *status,
                     size_t len);
int store_ran_since(gl_store *s, const struct gl_run_key *k, long long after);
/* Delete this process's claim of key, if any (inside the caller's transaction). */
int store_claim_drop(gl_store *s, const char *key);

/* ---- a launch sequence's launches and their counters (store_launch.c) ---- */

/* r's launch rows and per-launch counter rows for run run_id (none for a run
 * that is not a launch sequence), inside the caller's transaction. 0, or -1. */
int store_launches(gl_store *s, long long run_id, const struct gl_result *r);

/* ---- SQL generated from the C tables and the data (store_sql.c) ---- */

/* The SQL text of db/ with its @params...@ and @metrics...@ lists expanded from
 * gl_param_table and gl_metric_table; sqlite3_malloc'd, or NULL with s->err set. */
char *store_sql_expand(gl_store *s, const char *tmpl, const char *what);
/* CREATE INDEX run_key ...: the resume key (device, family, variant, study and
 * every parameter) and status. sqlite3_malloc'd, or NULL (out of memory). */
char *store_sql_run_key(void);
/* DROP VIEW for every results_* view of the file, then CREATE VIEW
 * results_<study> for every study with named parameters (run_param): `results`
 * of that study plus a column per name. On a read-only store (s->readonly) no
 * DROP, and CREATE TEMP VIEW: the TEMP views hide the file's of the same name.
 * sqlite3_malloc'd, or NULL + s->err. */
char *store_sql_study_views(gl_store *s);

/* ---- the database file as a file (store_path.c) ---- */

/* Before SQLite opens path: 0 with *exists 1 for a regular file, 0 with
 * *exists 0 when there is nothing there; -1 with s->err for a directory ("PATH:
 * is a directory, not a database file"), a device, pipe or socket ("PATH: is
 * not a regular file (a character device)...") or a path stat refuses. */
int store_path_check(gl_store *s, const char *path, int *exists);
/* After SQLite could not open, read or write path (existed: it was there before
 * the open): the cause found on disk in s->err, "PATH: cannot create the
 * database: its folder DIR cannot be written: Permission denied", "PATH: cannot
 * write the database: ..." (the file, its -wal/-shm/-journal, its folder), and
 * 1; else 0, and s->err "PATH: sqlite_words" when those are given. */
int store_path_why(gl_store *s, const char *path, int existed, const char *sqlite_words);
/* 1 when this user may write path and its folder (SQLite makes files there). */
int store_path_writable(const char *path);
/* The size of PATH-wal, -1 when there is none; 1 when PATH-journal exists. */
long long store_path_wal_size(const char *path);
int store_path_has_journal(const char *path);
/* Remove the -wal and -shm of path the way SQLite does, if no other connection
 * has the file open (then that one does, when it closes); see store_path.c. */
void store_path_tidy(const char *path);

/* ---- views made from the data (store_open.c) ---- */

/* Run store_sql_study_views(); the caller holds the write transaction (or, on a
 * read-only store, the views go to TEMP). 0 or -1. */
int store_study_views(gl_store *s);

#endif
