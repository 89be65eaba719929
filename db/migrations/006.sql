-- db/migrations/006.sql - schema version 6 -> 7: sharded sweeps (`gpulab run
-- --shard I/N`, a task of a Slurm job array). A session records which slice of
-- its configs' plan it ran: shard_index I (from 0) of shard_count N; both NULL
-- for a session that ran the whole plan. `gpulab merge` reads them to say which
-- shards of a config a merged database holds and which are missing.
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: every older session ran its whole
-- plan, so NULL is the true value for both columns.

ALTER TABLE session ADD COLUMN shard_index INTEGER;
ALTER TABLE session ADD COLUMN shard_count INTEGER;
