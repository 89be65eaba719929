-- report/tables/vecadd_bandwidth.sql - S4 (study vecadd): effective bandwidth BE =
-- 12N bytes / T against the GPU's theoretical bandwidth (memory clock × bus width /
-- 8 × 2) and its measured copy bandwidth, per N and variant at the variant's best
-- launch for that N (block size, and grid G for the grid-stride kernel; G = 0 means
-- 4 × SMs, the blocks launched are shown). The CPU row has no GPU reference. The
-- highest bandwidth per N is bold. Newest verified runs only.
WITH best AS (
    SELECT r.*, row_number() OVER (PARTITION BY r.device_id, r.variant, r.n ORDER BY r.median_ms) AS rb
    FROM results r
    WHERE r.study = 'vecadd' AND r.family = 'vecadd' AND r.is_latest = 1 AND r.status = 'ok'
),
gpu AS (
    SELECT max(theo_bw_gbs) AS theo, max(copy_bw_gbs) AS copy
    FROM device
    WHERE id IN (SELECT device_id FROM results WHERE study = 'vecadd' AND device_kind = 'gpu'
                 AND is_latest = 1 AND status = 'ok')
),
t AS (
    SELECT b.*, rank() OVER (PARTITION BY b.n ORDER BY b.gbs DESC) AS rk,
           lead(b.median_ms - coalesce(b.stddev_ms, 0)) OVER (PARTITION BY b.n ORDER BY b.gbs DESC) AS next_lo
    FROM best b WHERE b.rb = 1
)
SELECT t.n AS "N", upper(t.device_kind) || ' ' || t.variant AS "variant",
       coalesce(t.bs, '') AS "best BS",
       CASE WHEN t.variant = 'gridstride' THEN t.g || ' (' || t.grid_x || ' blocks)' ELSE '' END
           AS "G",
       CASE WHEN t.median_ms >= 1000 THEN printf('%.0f', t.median_ms)
            ELSE printf('%.4g', t.median_ms) END
       || CASE WHEN t.stddev_ms IS NOT NULL AND t.mean_ms > 0
               THEN printf(' ± %.1f %%', 100.0 * t.stddev_ms / t.mean_ms) ELSE '' END
           AS "time (ms, median ± sd)",
       CASE WHEN t.rk = 1 AND t.contaminated IS NULL AND t.median_ms + coalesce(t.stddev_ms, 0) < coalesce(t.next_lo, 1e300) THEN '**' ELSE '' END || printf('%.1f', t.gbs)
       || CASE WHEN t.rk = 1 AND t.contaminated IS NULL AND t.median_ms + coalesce(t.stddev_ms, 0) < coalesce(t.next_lo, 1e300) THEN '**' ELSE '' END AS "effective BW (GB/s)",
       CASE WHEN t.device_kind = 'gpu' AND gpu.theo > 0 THEN printf('%.1f', 100.0 * t.gbs / gpu.theo) END
           AS "% of theoretical",
       CASE WHEN t.device_kind = 'gpu' AND gpu.copy > 0 THEN printf('%.1f', 100.0 * t.gbs / gpu.copy) END
           AS "% of measured copy"
FROM t CROSS JOIN gpu
ORDER BY t.n, CASE t.device_kind WHEN 'gpu' THEN 0 ELSE 1 END, t.variant;
