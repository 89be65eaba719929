-- report/tables/geometry_time.sql - S3 (study geometry): kernel time against N for one
-- memory kind (report/studies/03_geometry.md renders it with VARIANT=global and
-- VARIANT=shared; report/build.sh replaces @VARIANT@): one column
-- per grid geometry (2-D: one launch; 1-D: one launch per block-row; single block:
-- one launch per tile) and block shape (M×M, K = 1; M×2M, K = 2, two outputs per
-- thread), M = the study's main block side (its most frequent BS). Median ms; the
-- fastest of each row is bold. Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
t AS (
    SELECT r.*, rank() OVER (PARTITION BY r.device_id, r.n ORDER BY r.median_ms) AS rk,
           lead(r.median_ms - coalesce(r.stddev_ms, 0)) OVER (PARTITION BY r.device_id, r.n ORDER BY r.median_ms) AS next_lo
    FROM results r JOIN m ON m.bs = r.bs
    WHERE r.study = 'geometry' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.variant = '@VARIANT@' AND r.k IN (1, 2) AND r.is_latest = 1 AND r.status = 'ok'
),
f AS (
    SELECT device_id, n, bs, grid, k,
           CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END
           || CASE WHEN median_ms >= 1000 THEN printf('%.0f', median_ms)
                   ELSE printf('%.4g', median_ms) END
           || CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END AS cell
    FROM t
)
SELECT n AS "N", bs AS "M",
       max(CASE WHEN grid = '2d' AND k = 1 THEN cell END) AS "2-D grid, M×M (ms)",
       max(CASE WHEN grid = '2d' AND k = 2 THEN cell END) AS "2-D grid, M×2M (ms)",
       max(CASE WHEN grid = '1d' AND k = 1 THEN cell END) AS "1-D grid, M×M (ms)",
       max(CASE WHEN grid = '1d' AND k = 2 THEN cell END) AS "1-D grid, M×2M (ms)",
       max(CASE WHEN grid = 'block' AND k = 1 THEN cell END) AS "single block, M×M (ms)",
       max(CASE WHEN grid = 'block' AND k = 2 THEN cell END) AS "single block, M×2M (ms)"
FROM f
GROUP BY device_id, n, bs
ORDER BY n, device_id;
