-- report/tables/roofline_ceilings.sql - the ceilings of the roofline per GPU with
-- verified newest runs: FP32 peak (SMs × cores per SM × 2 × clock), the measured
-- copy bandwidth (the bandwidth roof), the theoretical bandwidth for comparison, the
-- ridge point (peak / copy bandwidth, FLOP per byte) and how many runs are plotted
-- with measured DRAM bytes and with the analytic minimum bytes.
-- (the newest verified runs per device counted in one pass, not once per device and column)
WITH n AS MATERIALIZED (
    SELECT device_id,
           count(CASE WHEN gflops > 0 AND measured_flop_per_byte > 0 THEN 1 END) AS measured,
           count(CASE WHEN gflops > 0 AND measured_flop_per_byte IS NULL
                       AND flops / min_bytes > 0 THEN 1 END) AS analytic
    FROM results WHERE is_latest = 1 AND status = 'ok'
    GROUP BY device_id
)
SELECT d.name AS "GPU", d.id AS "device",
       CASE WHEN d.fp32_peak_gflops IS NOT NULL THEN printf('%.0f', d.fp32_peak_gflops) END
           AS "FP32 peak (GFLOP/s)",
       CASE WHEN d.copy_bw_gbs IS NOT NULL THEN printf('%.1f', d.copy_bw_gbs) END
           AS "measured copy BW (GB/s)",
       CASE WHEN d.theo_bw_gbs IS NOT NULL THEN printf('%.1f', d.theo_bw_gbs) END
           AS "theoretical BW (GB/s)",
       CASE WHEN d.copy_bw_gbs > 0 AND d.fp32_peak_gflops > 0
            THEN printf('%.1f', d.fp32_peak_gflops / d.copy_bw_gbs) END AS "ridge point (FLOP/B)",
       n.measured AS "runs, measured bytes",
       n.analytic AS "runs, analytic bytes"
FROM device d JOIN n ON n.device_id = d.id
WHERE d.kind = 'gpu'
ORDER BY d.id;
