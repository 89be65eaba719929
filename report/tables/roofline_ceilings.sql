-- report/tables/roofline_ceilings.sql - the ceilings of the hierarchical roofline per
-- GPU model with verified newest runs: FP32 peak (SMs × cores per SM × 2 × clock) and
-- the measured bandwidth of each memory level (the mean over the model's units that
-- measured it) - L1 (global loads that hit L1), shared memory, L2, DRAM (the
-- device-to-device copy; the theoretical bandwidth beside it), the host link (a kernel
-- reading pinned mapped host memory: the zero-copy path, the roof of zero-copy runs;
-- the pinned host-to-device copy beside it) - with each level's ridge point (peak /
-- bandwidth, FLOP per byte), the SM clock the ceilings were measured at, why some are
-- missing, and how many runs the roofline places with counters and with the analytic
-- minimum bytes only. "not measured" where a ceiling is NULL.
-- (the newest verified runs per device counted in one pass, not once per device and column)
WITH n AS MATERIALIZED (
    SELECT device_id,
           count(CASE WHEN gflops > 0 AND (l1_flop_per_byte > 0 OR measured_flop_per_byte > 0
                                           OR hostlink_flop_per_byte > 0) THEN 1 END) AS measured,
           count(CASE WHEN gflops > 0 AND l1_flop_per_byte IS NULL AND measured_flop_per_byte IS NULL
                       AND hostlink_flop_per_byte IS NULL AND flops / min_bytes > 0 THEN 1 END)
               AS analytic,
           count(CASE WHEN gflops > 0 AND offchip_level = 'hostlink' THEN 1 END) AS hostlink
    FROM results WHERE is_latest = 1 AND status = 'ok' AND device_kind = 'gpu'
    GROUP BY device_id
),
c AS MATERIALIZED (
    SELECT m.model_id AS did, avg(u.l1_bw_gbs) AS l1, avg(u.smem_bw_gbs) AS smem,
           avg(u.l2_bw_gbs) AS l2, avg(u.copy_bw_gbs) AS dram, avg(u.hostlink_bw_gbs) AS hl,
           avg(u.h2d_bw_gbs) AS h2d, avg(u.ceilings_clock_mhz) AS clk,
           group_concat(DISTINCT u.ceilings_reason) AS why
    FROM device_model m JOIN device u ON u.id = m.device_id
    GROUP BY m.model_id
)
SELECT d.name AS "GPU", d.id AS "device",
       CASE WHEN d.fp32_peak_gflops IS NOT NULL THEN printf('%.0f', d.fp32_peak_gflops) END
           AS "FP32 peak (GFLOP/s)",
       CASE WHEN c.l1 IS NULL THEN 'not measured'
            ELSE printf('%.0f (ridge %.2f)', c.l1, d.fp32_peak_gflops / c.l1) END
           AS "L1 GB/s (ridge FLOP/B)",
       CASE WHEN c.smem IS NULL THEN 'not measured' ELSE printf('%.0f', c.smem) END
           AS "shared memory GB/s",
       CASE WHEN c.l2 IS NULL THEN 'not measured'
            ELSE printf('%.0f (ridge %.2f)', c.l2, d.fp32_peak_gflops / c.l2) END
           AS "L2 GB/s (ridge FLOP/B)",
       CASE WHEN c.dram IS NULL THEN 'not measured'
            ELSE printf('%.0f (ridge %.1f)', c.dram, d.fp32_peak_gflops / c.dram) END
           || CASE WHEN d.theo_bw_gbs IS NOT NULL THEN printf('; theoretical %.0f', d.theo_bw_gbs)
                   ELSE '' END AS "DRAM copy GB/s (ridge FLOP/B)",
       CASE WHEN c.hl IS NULL THEN 'not measured'
            ELSE printf('%.1f (ridge %.0f)', c.hl, d.fp32_peak_gflops / c.hl) END
           || CASE WHEN c.h2d IS NOT NULL THEN printf('; pinned copy %.1f', c.h2d) ELSE '' END
           AS "host link, zero-copy read GB/s (ridge FLOP/B)",
       CASE WHEN c.clk IS NOT NULL THEN printf('%.0f', c.clk) ELSE '' END
           AS "measured at (MHz SM clock)",
       coalesce(c.why, '') AS "not measured because",
       n.measured AS "runs with counters",
       n.hostlink AS "of them zero-copy (host-link roof)",
       n.analytic AS "runs with analytic bytes only"
FROM device d JOIN n ON n.device_id = d.id JOIN c ON c.did = d.id
WHERE d.kind = 'gpu'
ORDER BY d.id;
