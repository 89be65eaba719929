-- db/migrations/003.sql - schema version 3 -> 4: several writers on one database.
-- A run is claimed (table claim) before it starts, so two processes running one
-- plan split it instead of repeating it; a run records when it started, so the
-- times of two sweeps can be compared; a session records what gpulab could see
-- of the machine when it began (the 1-minute load, the time it waited for other
-- sweeps' device locks, other processes on the GPU when that can be checked).
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: what older files never recorded
-- (started_at, load1, lock_wait_s, gpu_procs) stays NULL, with gpu_procs_reason
-- saying so, rather than being made up.

ALTER TABLE run ADD COLUMN started_at TEXT;

ALTER TABLE session ADD COLUMN load1 REAL;
ALTER TABLE session ADD COLUMN lock_wait_s REAL;
ALTER TABLE session ADD COLUMN gpu_procs INTEGER;
ALTER TABLE session ADD COLUMN gpu_procs_reason TEXT;
UPDATE session SET gpu_procs_reason = 'not recorded (a gpulab before schema version 4)';

CREATE TABLE claim (
    key        TEXT PRIMARY KEY,
    host       TEXT NOT NULL,
    boot_id    TEXT,
    pid        INTEGER NOT NULL,
    pid_start  INTEGER,
    claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
