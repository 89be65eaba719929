-- report/tables/roofline_ceilings.sql - the ceilings of the roofline per GPU with
-- verified newest runs: FP32 peak (SMs × cores per SM × 2 × clock), the measured
-- copy bandwidth (the bandwidth roof), the theoretical bandwidth for comparison, the
-- ridge point (peak / copy bandwidth, FLOP per byte) and how many runs are plotted
-- with measured DRAM bytes and with the analytic minimum bytes.
SELECT d.name AS "GPU", d.id AS "device",
       CASE WHEN d.fp32_peak_gflops IS NOT NULL THEN printf('%.0f', d.fp32_peak_gflops) END
           AS "FP32 peak (GFLOP/s)",
       CASE WHEN d.copy_bw_gbs IS NOT NULL THEN printf('%.1f', d.copy_bw_gbs) END
           AS "measured copy BW (GB/s)",
       CASE WHEN d.theo_bw_gbs IS NOT NULL THEN printf('%.1f', d.theo_bw_gbs) END
           AS "theoretical BW (GB/s)",
       CASE WHEN d.copy_bw_gbs > 0 AND d.fp32_peak_gflops > 0
            THEN printf('%.1f', d.fp32_peak_gflops / d.copy_bw_gbs) END AS "ridge point (FLOP/B)",
       (SELECT count(*) FROM results r WHERE r.device_id = d.id AND r.is_latest = 1
          AND r.status = 'ok' AND r.gflops > 0 AND r.measured_flop_per_byte > 0)
           AS "runs, measured bytes",
       (SELECT count(*) FROM results r WHERE r.device_id = d.id AND r.is_latest = 1
          AND r.status = 'ok' AND r.gflops > 0 AND r.measured_flop_per_byte IS NULL
          AND r.flops / r.min_bytes > 0) AS "runs, analytic bytes"
FROM device d
WHERE d.kind = 'gpu'
  AND d.id IN (SELECT device_id FROM results WHERE is_latest = 1 AND status = 'ok')
ORDER BY d.id;
