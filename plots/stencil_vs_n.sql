-- plots/stencil_vs_n.sql - S2 (study stencil): GFLOP/s against N, one panel per radius R,
-- a line per GPU variant at its best (BS, K) for that point, and the CPU rows
-- (sequential, OpenMP). FLOP = (N-2R)^2 (2R+1)^2. Long form: panel, series, x = N,
-- y = GFLOP/s, plus bs and k of the GPU point. Newest verified runs only.
WITH gpu AS (
    SELECT r, variant, n, bs, k, gflops,
           row_number() OVER (PARTITION BY device_id, variant, n, r ORDER BY median_ms) AS rk
    FROM results
    WHERE study = 'stencil' AND family = 'stencil' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok'
),
u AS (
    SELECT r, 1 AS s1, variant AS s2, 'GPU ' || variant || ' (best BS and K)' AS series,
           n, gflops, bs, k
    FROM gpu WHERE rk = 1
    UNION ALL
    SELECT r, 0, variant, 'CPU ' || variant, n, gflops, NULL, NULL
    FROM results
    WHERE study = 'stencil' AND family = 'stencil' AND device_kind = 'cpu'
      AND is_latest = 1 AND status = 'ok'
)
SELECT 'R = ' || r AS panel, series, n AS x, gflops AS y, bs, k
FROM u
ORDER BY r, s1, s2, n;
