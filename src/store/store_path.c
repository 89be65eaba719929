/* store_path.c - the database file as a file: what may be opened as one (a
 * regular file, or a path where one can be made; never a directory or a device,
 * which SQLite would answer with "disk I/O error" or, for /dev/null, a journal
 * made beside it in /dev), the words for why SQLite could not open, read or
 * write it (permission denied on the file, on its folder, a read-only file
 * system: found on disk, since SQLite says only "unable to open database file"
 * or "attempt to write a readonly database"), and the tidying after a reading
 * command: the -wal and -shm files its read-only connection made are removed
 * the way SQLite removes them.
 * Must not change a database's content, nor remove a file another connection
 * may be using (SQLite decides that, under its locks), nor print. */
#include "store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"

int store_path_check(gl_store *s, const char *path, int *exists)
{
    struct stat st;
    *exists = 0;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        store_err(s, "%s: %s", path, strerror(errno));   /* ENOTDIR, EACCES, ELOOP... */
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        store_err(s, "%s: is a directory, not a database file", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        store_err(s, "%s: is not a regular file (%s), not a database file", path,
                  gl_file_kind(st.st_mode));
        return -1;
    }
    *exists = 1;
    return 0;
}

/* "PATH-wal" and such into buf. */
static void side_file(const char *path, const char *suffix, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", path, suffix);
}

int store_path_why(gl_store *s, const char *path, int existed, const char *sqlite_words)
{
    char dir[4096], side[4200];
    gl_folder_of(path, dir, sizeof dir);
    if (!existed) {
        if (access(dir, F_OK) != 0) {
            store_err(s, "%s: cannot create the database: its folder %s: %s", path, dir,
                      strerror(errno));
            return 1;
        }
        if (access(dir, W_OK) != 0) {
            store_err(s, "%s: cannot create the database: its folder %s cannot be written: %s",
                      path, dir, strerror(errno));
            return 1;
        }
    } else {
        if (access(path, R_OK) != 0) {
            store_err(s, "%s: cannot read the database: %s", path, strerror(errno));
            return 1;
        }
        if (access(path, W_OK) != 0) {
            store_err(s, "%s: cannot write the database: %s", path, strerror(errno));
            return 1;
        }
        static const char *const sides[] = { "-wal", "-shm", "-journal" };
        for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
            side_file(path, sides[i], side, sizeof side);
            if (access(side, F_OK) == 0 && access(side, W_OK) != 0) {
                store_err(s, "%s: cannot write the database: its file %s cannot be written: %s",
                          path, side, strerror(errno));
                return 1;
            }
        }
        if (access(dir, W_OK) != 0) {
            store_err(s, "%s: cannot write the database: its folder %s cannot be written (%s), "
                         "and SQLite keeps %s-wal and %s-shm beside the database while it writes",
                      path, dir, strerror(errno), path, path);
            return 1;
        }
    }
    if (sqlite_words)
        store_err(s, "%s: %s", path, sqlite_words);
    return 0;
}

int store_path_writable(const char *path)
{
    char dir[4096];
    gl_folder_of(path, dir, sizeof dir);
    return access(path, W_OK) == 0 && access(dir, W_OK) == 0;
}

long long store_path_wal_size(const char *path)
{
    char side[4200];
    struct stat st;
    side_file(path, "-wal", side, sizeof side);
    return stat(side, &st) == 0 ? (long long)st.st_size : -1;
}

int store_path_has_journal(const char *path)
{
    char side[4200];
    side_file(path, "-journal", side, sizeof side);
    return access(side, F_OK) == 0;
}

void store_path_tidy(const char *path)
{
    /* A connection that may write, closing as the last one, checkpoints the log
     * (empty: readers wrote nothing) and deletes it and the -shm; while another
     * connection has the file open it cannot take the lock that needs, and
     * leaves both to that one. Nothing here can change what is stored. */
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
        sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    sqlite3_close(db);
}
