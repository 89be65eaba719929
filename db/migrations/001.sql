-- db/migrations/001.sql - schema version 1 -> 2: keep every timed sample, the
-- sampling stop rule that was applied and the launch-guidance flags.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: every v1 row survives unchanged, and
-- what v1 never measured (rel_se, guide_flags, the individual samples, the stop
-- rule) stays NULL / absent rather than being made up.
-- Added columns land at the end of `run` (SQLite appends), so a migrated file has
-- the same columns as a new one, in another order: query them by name.

ALTER TABLE run ADD COLUMN min_samples INTEGER;
ALTER TABLE run ADD COLUMN max_samples INTEGER;
ALTER TABLE run ADD COLUMN max_noise REAL;
ALTER TABLE run ADD COLUMN max_seconds REAL;
ALTER TABLE run ADD COLUMN rel_se REAL;
ALTER TABLE run ADD COLUMN guide_flags INTEGER;

CREATE TABLE sample (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    ms     REAL NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;
