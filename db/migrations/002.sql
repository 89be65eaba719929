-- db/migrations/002.sql - schema version 2 -> 3: users' own kernels. A run of a
-- kernel section carries named parameters (TILE = 16 ...) and its kernel's hash;
-- both are part of its resume key. run.uparams holds the named parameters as one
-- text ("BLOCK_ROWS=8 TILE=16", gl_params_user_format), run.code_hash the kernel's
-- hash, and run_param the same parameters one row each, for SQL.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version and remakes the run_key index itself. Must only add: every
-- older run is a built-in variant's, so NULL (none) is its true value for both
-- columns, and it has no run_param row.

ALTER TABLE run ADD COLUMN uparams TEXT;
ALTER TABLE run ADD COLUMN code_hash TEXT;

CREATE TABLE run_param (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    value  INTEGER NOT NULL,
    PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;
