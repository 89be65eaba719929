-- report/tables/vecadd_gridstride.sql - S4 (study vecadd): the grid-stride kernel at the
-- largest N of its runs, by block size and grid size G (0 = 4 × SMs; the blocks
-- actually launched are shown): effective bandwidth and the share of the GPU's
-- measured copy bandwidth. The best launch is bold. Newest verified runs only.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'vecadd' AND variant = 'gridstride' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok'
),
x AS (
    SELECT t.*, d.copy_bw_gbs, rank() OVER (PARTITION BY t.device_id ORDER BY t.gbs DESC) AS rk,
           lead(t.median_ms - coalesce(t.stddev_ms, 0)) OVER (PARTITION BY t.device_id ORDER BY t.gbs DESC) AS next_lo
    FROM t JOIN device d ON d.id = t.device_id
    WHERE t.n = (SELECT max(n) FROM t)
)
SELECT n AS "N", bs AS "threads / block", g AS "G", grid_x AS "blocks launched",
       printf('%.4g', median_ms) AS "time (ms)",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END || printf('%.1f', gbs)
       || CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END AS "effective BW (GB/s)",
       CASE WHEN copy_bw_gbs > 0 THEN printf('%.1f', 100.0 * gbs / copy_bw_gbs) END
           AS "% of measured copy"
FROM x
ORDER BY bs, g, device_id;
