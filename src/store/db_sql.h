/* db_sql.h - the SQL of db/ compiled into the binary (build/gen/db_sql.c, written
 * by db/embed.sh), so that the store needs no files at run time.
 * Must not be implemented by hand: edit the .sql files of db/ and rebuild. */
#ifndef GL_DB_SQL_H
#define GL_DB_SQL_H

/* db/schema.sql and db/views.sql are templates: their @params: ...@ and
 * @metrics ...: ...@ lists are expanded from the parameter and metric tables by
 * src/store/store_sql.c when the store opens a database. */
extern const char gl_sql_schema[];   /* db/schema.sql: tables + indexes of the current version */
extern const char gl_sql_views[];    /* db/views.sql: drops and recreates the views */
/* gl_sql_migrations[i] (db/migrations/00{i+1}.sql) upgrades user_version i+1 to i+2;
 * gl_nmigrations entries, then a null pointer. */
extern const char *const gl_sql_migrations[];
extern const int gl_nmigrations;
extern const int gl_schema_version;  /* 1 + gl_nmigrations */

#endif
