-- plots/stencil_vs_k.sql - S2 (study stencil): GPU GFLOP/s against K (outputs per thread)
-- at the largest N of the study, one panel per radius R, a line per variant and
-- block size. Long form: panel, series, x = K, y = GFLOP/s, n. Newest verified runs.
WITH big AS (
    SELECT max(n) AS n FROM results
    WHERE study = 'stencil' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
)
SELECT 'R = ' || r || ' (N = ' || r.n || ')' AS panel,
       'GPU ' || variant || ' BS=' || bs AS series, k AS x, gflops AS y, r.n AS n
FROM results r JOIN big ON big.n = r.n
WHERE study = 'stencil' AND family = 'stencil' AND device_kind = 'gpu'
  AND is_latest = 1 AND status = 'ok'
ORDER BY r, variant, bs, k;
