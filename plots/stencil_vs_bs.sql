-- plots/stencil_vs_bs.sql - S2 (study stencil): GPU GFLOP/s against the block side BS
-- (blocks of BS x BS threads) at the largest N of the study, one panel per radius R,
-- a line per variant and K. Long form: panel, series, x = BS, y = GFLOP/s, n.
-- Newest verified runs only.
WITH big AS (
    SELECT max(n) AS n FROM results
    WHERE study = 'stencil' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
)
SELECT 'R = ' || r || ' (N = ' || r.n || ')' AS panel,
       'GPU ' || variant || ' K=' || k AS series, bs AS x, gflops AS y, r.n AS n
FROM results r JOIN big ON big.n = r.n
WHERE study = 'stencil' AND family = 'stencil' AND device_kind = 'gpu'
  AND is_latest = 1 AND status = 'ok'
ORDER BY r, variant, k, bs;
