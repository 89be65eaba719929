-- report/tables/geometry_blocksizes.sql - S3 (study geometry): the block-size sweep of the
-- single-block geometry (one launch per tile) with M×2M blocks (K = 2): kernel time
-- (median ms) per N and memory kind for M = 1, 2, 4, 8, 16 (blocks 1×2 ... 16×32).
-- Only the N of the sweep (those with a block side other than the study's main one).
-- The fastest of each row is bold. Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
b AS (
    SELECT * FROM results
    WHERE study = 'geometry' AND family = 'matmul' AND device_kind = 'gpu'
      AND grid = 'block' AND k = 2 AND is_latest = 1 AND status = 'ok'
),
sweep AS (SELECT DISTINCT n FROM b WHERE bs <> (SELECT bs FROM m)),
t AS (
    SELECT b.*, rank() OVER (PARTITION BY b.device_id, b.variant, b.n ORDER BY b.median_ms) AS rk,
           lead(b.median_ms - coalesce(b.stddev_ms, 0)) OVER (PARTITION BY b.device_id, b.variant, b.n ORDER BY b.median_ms) AS next_lo
    FROM b JOIN sweep USING (n)
),
f AS (
    SELECT device_id, variant, n, bs,
           CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END
           || CASE WHEN median_ms >= 1000 THEN printf('%.0f', median_ms)
                   ELSE printf('%.4g', median_ms) END
           || CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END AS cell
    FROM t
)
SELECT variant AS "memory", n AS "N",
       max(CASE WHEN bs = 1 THEN cell END) AS "1×2 (ms)",
       max(CASE WHEN bs = 2 THEN cell END) AS "2×4 (ms)",
       max(CASE WHEN bs = 4 THEN cell END) AS "4×8 (ms)",
       max(CASE WHEN bs = 8 THEN cell END) AS "8×16 (ms)",
       max(CASE WHEN bs = 16 THEN cell END) AS "16×32 (ms)"
FROM f
GROUP BY device_id, variant, n
ORDER BY CASE variant WHEN 'global' THEN 1 ELSE 2 END, n, device_id;
