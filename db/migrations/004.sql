-- db/migrations/004.sql - schema version 4 -> 5: what "verified" meant for a run.
-- run.check_method says how its output was checked ('full': every element
-- against the float64 reference; 'sampled': every element written and finite,
-- check_points elements against the reference; 'written': no reference, every
-- element written) and run.check_points how many elements were compared.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: older runs were checked in full
-- against a float64 reference when they have a max_rel_err, which is what the
-- update below records; the others stay NULL (not checked, or not known).

ALTER TABLE run ADD COLUMN check_method TEXT;
ALTER TABLE run ADD COLUMN check_points INTEGER;
UPDATE run SET check_method = 'full' WHERE max_rel_err IS NOT NULL AND family IN ('matmul', 'stencil', 'vecadd');
