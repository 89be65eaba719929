-- db/migrations/010.sql - schema version 10 -> 11: launch sequences. A run of a
-- kernel section's launch.NAME lines (several launches timed and verified as one
-- run) records each of its launches (table launch: order, launch line, kernel as
-- compiled, the value of the line's loop variable, grid, block and dynamic shared
-- memory) and, when profiled, each launch's counters (table launch_metric, the
-- long form of metric per launch; the run's own metric rows stay the whole run's,
-- measured as one range); run.launch_reason says why a profiled sequence has no
-- per-launch counters. Older files never ran sequences: the tables start empty and
-- the column NULL.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add.

CREATE TABLE launch (
    run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    name         TEXT NOT NULL,
    kernel       TEXT NOT NULL,
    iter         INTEGER NOT NULL,
    grid_x       INTEGER NOT NULL,
    grid_y       INTEGER NOT NULL,
    grid_z       INTEGER NOT NULL,
    block_x      INTEGER NOT NULL,
    block_y      INTEGER NOT NULL,
    block_z      INTEGER NOT NULL,
    dynamic_smem INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE launch_metric (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    name   TEXT NOT NULL,
    value  REAL NOT NULL,
    unit   TEXT,
    PRIMARY KEY (run_id, idx, name)
) STRICT, WITHOUT ROWID;

ALTER TABLE run ADD COLUMN launch_reason TEXT;
