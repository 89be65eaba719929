-- db/migrations/005.sql - schema version 5 -> 6: how a user's kernel was compiled.
-- run.compiler is the compiler of a kernel section's run ('nvrtc', the default, or
-- 'nvcc' for `compiler = nvcc`), run.compile_options the section's `options` as
-- written ('' for none); both NULL for built-in and plugin variants. The options
-- are also in the run's code_hash (a line of the section), so a run compiled
-- with other options is another run.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: older runs did not record either, and
-- a kernel section's run cannot be told from a plugin's by its row, so both stay
-- NULL (not recorded) rather than being guessed.

ALTER TABLE run ADD COLUMN compiler TEXT;
ALTER TABLE run ADD COLUMN compile_options TEXT;
