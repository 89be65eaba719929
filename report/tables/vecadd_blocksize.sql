-- report/tables/vecadd_blocksize.sql - S4 (study vecadd): the one-element-per-thread
-- kernel by threads per block at the smallest and the largest N: blocks launched,
-- the launch-guidance flags of the lecture (few blocks: < 2 × SMs; not a warp
-- multiple; < 64 threads while blocks > SMs; outside the recommended 128..256),
-- theoretical occupancy, effective bandwidth. The highest bandwidth per N is bold.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'vecadd' AND variant = 'global' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok'
),
ends AS (SELECT min(n) AS n FROM t UNION SELECT max(n) FROM t),
x AS (
    SELECT t.*, rank() OVER (PARTITION BY t.device_id, t.n ORDER BY t.gbs DESC) AS rk,
           lead(t.median_ms - coalesce(t.stddev_ms, 0)) OVER (PARTITION BY t.device_id, t.n ORDER BY t.gbs DESC) AS next_lo
    FROM t JOIN ends USING (n)
)
SELECT n AS "N", bs AS "threads / block", grid_x AS "blocks",
       CASE WHEN guide_flags IS NULL THEN 'not recorded'
            WHEN guide_flags = 0 THEN 'none'
            ELSE substr(CASE WHEN guide_flags & 1 THEN ', few blocks' ELSE '' END
                        || CASE WHEN guide_flags & 2 THEN ', not a warp multiple' ELSE '' END
                        || CASE WHEN guide_flags & 4 THEN ', < 64 threads' ELSE '' END
                        || CASE WHEN guide_flags & 8 THEN ', outside 128–256' ELSE '' END, 3)
       END AS "guidance flags",
       CASE WHEN theo_occupancy_pct IS NOT NULL THEN printf('%.1f', theo_occupancy_pct) END
           AS "theoretical occupancy (%)",
       printf('%.4g', median_ms) AS "time (ms)",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END || printf('%.1f', gbs)
       || CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END AS "effective BW (GB/s)"
FROM x
ORDER BY n, bs, device_id;
