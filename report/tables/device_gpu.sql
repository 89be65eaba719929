-- report/tables/device_gpu.sql - the description of one GPU (what the seeds copied
-- from deviceQuery by hand), read from the device table: one row per property.
-- report/build.sh replaces @DEV@ with the device id (from _gpus.sql). A value not
-- recorded (NULL) is shown as such, never as 0: printf() would turn NULL into 0, so
-- every printf is guarded.
WITH d AS (SELECT * FROM device WHERE id = @DEV@),
-- (the device's newest runs read once for both rows that need them)
latest AS MATERIALIZED (SELECT unit_id FROM results WHERE device_id = @DEV@ AND is_latest = 1),
rows(ord, property, value) AS (
    SELECT 1, 'Name', name FROM d
    UNION ALL SELECT 2, 'Compute capability', cc_major || '.' || cc_minor FROM d
    UNION ALL SELECT 3, 'Multiprocessors (SMs)', sm_count FROM d
    UNION ALL SELECT 4, 'FP32 cores',
                     cores_per_sm || ' per SM, ' || (sm_count * cores_per_sm) || ' in all' FROM d
    UNION ALL SELECT 5, 'GPU clock (MHz)',
                     CASE WHEN clock_khz IS NOT NULL THEN printf('%.0f', clock_khz / 1e3) END FROM d
    UNION ALL SELECT 6, 'Memory clock (MHz)',
                     CASE WHEN mem_clock_khz IS NOT NULL THEN printf('%.0f', mem_clock_khz / 1e3) END
              FROM d
    UNION ALL SELECT 7, 'Memory bus width (bits)', mem_bus_bits FROM d
    UNION ALL SELECT 8, 'Global memory (GiB)',
                     CASE WHEN mem_bytes IS NOT NULL THEN printf('%.1f', mem_bytes / 1073741824.0) END
              FROM d
    UNION ALL SELECT 9, 'L2 cache (MiB)',
                     CASE WHEN l2_bytes IS NOT NULL THEN printf('%.1f', l2_bytes / 1048576.0) END FROM d
    UNION ALL SELECT 10, 'Shared memory per block (KiB)',
                     (smem_per_block / 1024) || ' (opt-in ' || (smem_per_block_optin / 1024) || ')' FROM d
    UNION ALL SELECT 11, 'Shared memory per SM (KiB)', smem_per_sm / 1024 FROM d
    UNION ALL SELECT 12, 'Registers per block / per SM', regs_per_block || ' / ' || regs_per_sm FROM d
    UNION ALL SELECT 13, 'Warp size', warp_size FROM d
    UNION ALL SELECT 14, 'Max threads per block / per SM',
                     max_threads_per_block || ' / ' || max_threads_per_sm FROM d
    UNION ALL SELECT 15, 'Max resident blocks per SM', max_blocks_per_sm FROM d
    UNION ALL SELECT 16, 'Max block dimensions',
                     max_block_x || ' × ' || max_block_y || ' × ' || max_block_z FROM d
    UNION ALL SELECT 17, 'Max grid dimensions',
                     max_grid_x || ' × ' || max_grid_y || ' × ' || max_grid_z FROM d
    UNION ALL SELECT 18, 'CUDA driver / runtime',
                     (driver_version / 1000) || '.' || (driver_version % 1000 / 10) || ' / '
                     || (runtime_version / 1000) || '.' || (runtime_version % 1000 / 10) FROM d
    UNION ALL SELECT 19, 'Theoretical bandwidth (GB/s): memory clock × bus width / 8 × 2',
                     CASE WHEN theo_bw_gbs IS NOT NULL THEN printf('%.1f', theo_bw_gbs) END FROM d
    UNION ALL SELECT 20, 'Measured device-to-device copy bandwidth (GB/s, read + written)',
                     CASE WHEN copy_bw_gbs IS NOT NULL THEN printf('%.1f', copy_bw_gbs) END FROM d
    UNION ALL SELECT 21, 'FP32 peak (GFLOP/s): SMs × cores per SM × 2 × clock',
                     CASE WHEN fp32_peak_gflops IS NOT NULL THEN printf('%.0f', fp32_peak_gflops) END
              FROM d
    UNION ALL SELECT 22, 'L1 cache size', NULL FROM d
    UNION ALL SELECT 23, 'Units (UUID) that ran the reported runs',
                     (SELECT group_concat(ident, ', ') FROM (SELECT DISTINCT u.ident FROM latest r
                         JOIN device u ON u.id = r.unit_id ORDER BY u.ident))
    UNION ALL SELECT 24, 'Runs in this report (newest per configuration)',
                     (SELECT count(*) FROM latest)
)
SELECT property AS "property", coalesce(value, 'not recorded') AS "value"
FROM rows
ORDER BY ord;
