-- db/migrations/011.sql - schema version 11 -> 12: the scalars and type parameters of users'
-- kernels (step 14). A run of a kernel section stores each scalar argument it passed
-- (run_scalar: its position in `args`, the kernel's name for that parameter when the
-- source says it, its type, the expression as the config wrote it and its value at the
-- run's point, rounded to its type: REAL for float, double, half and bfloat16, INTEGER
-- for the integer types). A type parameter (`T = float, double`) is a named parameter
-- whose run_param row holds the type's name in the new column text (value holds the
-- type's number, ktype.h's order); integer parameters leave text NULL.
-- Run by src/store/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: older runs have no run_scalar rows (their
-- scalars were integers, in their config's text).

ALTER TABLE run_param ADD COLUMN text TEXT;

CREATE TABLE run_scalar (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    name   TEXT,
    type   TEXT NOT NULL,
    expr   TEXT NOT NULL,
    value  ANY NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;
