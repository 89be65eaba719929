-- plots/roofline.sql - the hierarchical roofline of every GPU that has verified runs:
-- each newest verified GPU run at its GFLOP/s (timed median) and its arithmetic
-- intensity at each memory level it has counters for, one row per (run, level), as
-- Nsight Compute's hierarchical roofline places them: FLOP per L1 byte (l1_bytes),
-- per L2 byte (l2_bytes), and per off-chip byte - DRAM (read + write + drain) for a
-- run whose off-chip traffic went to device memory, the host link (hostlink_bytes)
-- for one whose traffic crossed it (offchip_level = 'hostlink': zero-copy memory).
-- A run without counters gets one point at its analytic intensity (FLOP per
-- minimum byte), level 'analytic'. The ceilings of its device model (the mean over
-- the model's units that measured them) on every row: peak_gflops (FP32 peak),
-- l1_roof, l2_roof, dram_roof (the copy bandwidth) and hostlink_roof (a kernel
-- reading pinned mapped host memory), GB/s, NULL where not measured. One panel per
-- device model.
-- Long form: panel, series (the level), x = FLOP/byte, y = GFLOP/s, family, level
-- (its order: 1 L1, 2 L2, 3 DRAM, 4 host link, 5 analytic), then the ceilings.
WITH c AS MATERIALIZED (
    SELECT m.model_id AS did, avg(u.copy_bw_gbs) AS dram_roof, avg(u.l1_bw_gbs) AS l1_roof,
           avg(u.l2_bw_gbs) AS l2_roof, avg(u.hostlink_bw_gbs) AS hostlink_roof
    FROM device_model m JOIN device u ON u.id = m.device_id
    GROUP BY m.model_id
),
r AS MATERIALIZED (
    SELECT r.*, d.name || ' (device ' || d.id || ')' AS panel, d.fp32_peak_gflops AS peak_gflops,
           c.l1_roof, c.l2_roof, c.dram_roof, c.hostlink_roof
    FROM results r JOIN device d ON d.id = r.device_id JOIN c ON c.did = r.device_id
    WHERE r.device_kind = 'gpu' AND r.is_latest = 1 AND r.status = 'ok' AND r.gflops > 0
),
p(panel, series, x, y, family, level, peak_gflops, l1_roof, l2_roof, dram_roof, hostlink_roof) AS (
    SELECT panel, 'L1', l1_flop_per_byte, gflops, family, 1, peak_gflops, l1_roof, l2_roof,
           dram_roof, hostlink_roof
    FROM r WHERE l1_flop_per_byte > 0
    UNION ALL
    SELECT panel, 'L2', l2_flop_per_byte, gflops, family, 2, peak_gflops, l1_roof, l2_roof,
           dram_roof, hostlink_roof
    FROM r WHERE l2_flop_per_byte > 0
    UNION ALL
    SELECT panel, 'DRAM', measured_flop_per_byte, gflops, family, 3, peak_gflops, l1_roof, l2_roof,
           dram_roof, hostlink_roof
    FROM r WHERE coalesce(offchip_level, 'dram') = 'dram' AND measured_flop_per_byte > 0
    UNION ALL
    SELECT panel, 'host link', hostlink_flop_per_byte, gflops, family, 4, peak_gflops, l1_roof,
           l2_roof, dram_roof, hostlink_roof
    FROM r WHERE offchip_level = 'hostlink' AND hostlink_flop_per_byte > 0
    UNION ALL
    SELECT panel, 'analytic', flops / min_bytes, gflops, family, 5, peak_gflops, l1_roof, l2_roof,
           dram_roof, hostlink_roof
    FROM r WHERE measured_flop_per_byte IS NULL AND l1_flop_per_byte IS NULL
      AND hostlink_flop_per_byte IS NULL AND flops / min_bytes > 0
)
SELECT * FROM p ORDER BY panel, level, family, x;
