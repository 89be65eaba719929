-- plots/stencil_vs_r.sql - S2 (study stencil): GFLOP/s against the radius R at the largest
-- N of the study: a line per GPU variant and K (each point at its best BS) and the
-- CPU rows. Long form: panel ('all'), series, x = R, y = GFLOP/s, bs. Newest
-- verified runs only.
WITH big AS (
    SELECT max(n) AS n FROM results
    WHERE study = 'stencil' AND is_latest = 1 AND status = 'ok'
      AND device_kind = (SELECT CASE WHEN count(*) > 0 THEN 'gpu' ELSE 'cpu' END FROM results
                         WHERE study = 'stencil' AND device_kind = 'gpu' AND is_latest = 1
                           AND status = 'ok')
),
gpu AS (
    SELECT r.variant, r.k, r.r, r.bs, r.gflops,
           row_number() OVER (PARTITION BY r.device_id, r.variant, r.k, r.r ORDER BY r.median_ms) AS rk
    FROM results r JOIN big ON big.n = r.n
    WHERE r.study = 'stencil' AND r.family = 'stencil' AND r.device_kind = 'gpu'
      AND r.is_latest = 1 AND r.status = 'ok'
),
u AS (
    SELECT 1 AS s1, variant AS s2, k AS s3, 'GPU ' || variant || ' K=' || k || ' (best BS)' AS series,
           r, gflops, bs
    FROM gpu WHERE rk = 1
    UNION ALL
    SELECT 0, c.variant, 0, 'CPU ' || c.variant, c.r, c.gflops, NULL
    FROM results c JOIN big ON big.n = c.n
    WHERE c.study = 'stencil' AND c.family = 'stencil' AND c.device_kind = 'cpu'
      AND c.is_latest = 1 AND c.status = 'ok'
)
SELECT 'N = ' || (SELECT n FROM big) AS panel, series, r AS x, gflops AS y, bs
FROM u
ORDER BY s1, s2, s3, r;
