-- db/migrations/009.sql - schema version 9 -> 10: clocks and the hierarchical roofline. A GPU's device row
-- gets the bandwidth ceilings of its memory levels beyond the DRAM copy bandwidth
-- (l1_bw_gbs: global loads that hit L1; smem_bw_gbs: shared-memory loads; l2_bw_gbs:
-- loads that hit L2; hostlink_bw_gbs: kernel reads of pinned mapped host memory, the
-- zero-copy path; h2d_bw_gbs: the pinned host-to-device copy), the SM clock they
-- were measured at (ceilings_clock_mhz), when (ceilings_at) and why some or all are
-- NULL (ceilings_reason). A session records the GPU clocks it asked for
-- (clocks_asked: none | base, `gpulab run --clocks`), whether gpulab locked them
-- (clocks_locked) and why not or what it did (clocks_reason), and what NVML said
-- of the SM clock as it began: current, applications (target), default
-- applications and maximum clock in MHz and the active clock event reasons
-- (NULL with nvml_reason when NVML could not be asked).
-- Run by src/store_open.c inside the one transaction that upgrades a file, after the
-- migrations before it (whichever number they have) and before db/views.sql
-- recreates the views; the store sets PRAGMA user_version itself. Must only add:
-- what older files never measured stays NULL with a reason saying so, never made up.

ALTER TABLE device ADD COLUMN l1_bw_gbs REAL;
ALTER TABLE device ADD COLUMN smem_bw_gbs REAL;
ALTER TABLE device ADD COLUMN l2_bw_gbs REAL;
ALTER TABLE device ADD COLUMN hostlink_bw_gbs REAL;
ALTER TABLE device ADD COLUMN h2d_bw_gbs REAL;
ALTER TABLE device ADD COLUMN ceilings_clock_mhz REAL;
ALTER TABLE device ADD COLUMN ceilings_at TEXT;
ALTER TABLE device ADD COLUMN ceilings_reason TEXT;
UPDATE device SET ceilings_reason = 'not measured yet (recorded by a gpulab without the memory ceilings)'
WHERE kind = 'gpu';

ALTER TABLE session ADD COLUMN clocks_asked TEXT;
ALTER TABLE session ADD COLUMN clocks_locked INTEGER;
ALTER TABLE session ADD COLUMN clocks_reason TEXT;
ALTER TABLE session ADD COLUMN sm_clock_mhz INTEGER;
ALTER TABLE session ADD COLUMN sm_app_clock_mhz INTEGER;
ALTER TABLE session ADD COLUMN sm_app_default_mhz INTEGER;
ALTER TABLE session ADD COLUMN sm_max_clock_mhz INTEGER;
ALTER TABLE session ADD COLUMN clock_events TEXT;
ALTER TABLE session ADD COLUMN nvml_reason TEXT;
UPDATE session SET clocks_reason = 'not recorded (a gpulab without clock records)',
                   nvml_reason = 'not recorded (a gpulab without clock records)';
