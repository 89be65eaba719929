-- db/migrations/007.sql - schema version 7 -> 8: why a run's exact shared-memory
-- bank conflicts are absent. The exact conflicts are two metrics of gpulab's own
-- (src/core/metric_sets.c; results columns smem_excess_ld / smem_excess_st);
-- run.smem_excess_reason says why a run
-- that was profiled has none (its kernel uses no shared memory, a library call,
-- left out of the metrics list, too long to instrument, CUPTI could not ...).
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it and before db/views.sql recreates the views; the store sets
-- PRAGMA user_version itself. Must only add: older profiled runs were never
-- instrumented, which the update below records instead of leaving them unexplained.

ALTER TABLE run ADD COLUMN smem_excess_reason TEXT;
UPDATE run SET smem_excess_reason = 'not measured: stored before gpulab measured exact conflicts'
WHERE passes IS NOT NULL;
