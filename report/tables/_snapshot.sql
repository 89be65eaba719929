-- report/tables/_snapshot.sql - helper for report/report.mk (not a table of the
-- report): run with `gpulab query --write` on the report's own copy of the database
-- (never on the database itself), it stores the `results` view once as the table
-- results_snapshot, with a key row of what it was taken of (the runs, the metrics and
-- the views' definition: gl_views_hash()). Every read-only open of that copy then
-- reads the table where the view would compute each run's metric columns and newest
-- flag again on every query (src/store/store_open.c, snapshot_results): the report's
-- hundred-odd queries read ~11 000 runs in about the time they took on 450. The rows
-- are the view's, in its order (run_id).
DROP TABLE IF EXISTS results_snapshot;
DROP TABLE IF EXISTS results_snapshot_key;
CREATE TABLE results_snapshot AS SELECT * FROM results ORDER BY run_id;
CREATE TABLE results_snapshot_key AS
SELECT gl_views_hash() AS views, (SELECT max(id) FROM run) AS max_run,
       (SELECT count(*) FROM run) AS runs, (SELECT count(*) FROM metric) AS metrics;
