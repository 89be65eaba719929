-- db/migrations/008.sql - schema version 8 -> 9: what ran beneath a variant.
-- run.code_path says, for a built-in CPU baseline, the instruction-set level its
-- dispatched loops ran at ("x86-64-v3 (AVX2, FMA)"), and for a row that calls a
-- library, the library and its build ("OpenBLAS 0.3.21 ... Haswell ... (path)").
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: older runs never recorded it, so it
-- stays NULL for them rather than being guessed (their CPU loops were built for the
-- compiler's default target, but the binary that ran them is not known here).

ALTER TABLE run ADD COLUMN code_path TEXT;
