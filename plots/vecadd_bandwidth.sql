-- plots/vecadd_bandwidth.sql - S4 (study vecadd): effective bandwidth BE = 12 N bytes / T
-- (GB/s) against N: the one-element-per-thread kernel and the grid-stride kernel,
-- each at its best block size (and grid) for that N, and the CPU OpenMP row; the
-- GPU's theoretical bandwidth (memory clock x bus width x 2) and measured copy
-- bandwidth as reference levels (columns theo_gbs, copy_gbs, same on every row of
-- a device). Long form: panel ('all'), series, x = N, y = GB/s, bs, g, theo_gbs,
-- copy_gbs. Newest verified runs only.
WITH best AS (
    SELECT r.*, row_number() OVER (PARTITION BY r.device_id, r.variant, r.n ORDER BY r.median_ms) AS rk
    FROM results r
    WHERE r.study = 'vecadd' AND r.family = 'vecadd' AND r.is_latest = 1 AND r.status = 'ok'
),
gpu AS (
    SELECT max(d.theo_bw_gbs) AS theo, max(d.copy_bw_gbs) AS copy
    FROM device d
    WHERE d.id IN (SELECT device_id FROM results WHERE study = 'vecadd' AND device_kind = 'gpu'
                   AND is_latest = 1 AND status = 'ok')
)
SELECT 'all' AS panel,
       upper(b.device_kind) || ' ' || b.variant
           || CASE WHEN b.device_kind = 'gpu' THEN ' (best BS' ||
                   CASE WHEN b.variant = 'gridstride' THEN ' and G)' ELSE ')' END ELSE '' END AS series,
       b.n AS x, b.gbs AS y, b.bs, b.g, gpu.theo AS theo_gbs, gpu.copy AS copy_gbs
FROM best b CROSS JOIN gpu
WHERE b.rk = 1
ORDER BY CASE b.device_kind WHEN 'gpu' THEN 1 ELSE 2 END, b.variant, b.n;
