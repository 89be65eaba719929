-- plots/matmul_speedup.sql - S1 (study matmul): speed-ups against N over two CPU
-- references measured at the same N (T_ref / T, median times), one panel each:
--   'seed'  over the seed's CPU baseline, OpenMP i-k-j (omp_ikj): every GPU kernel and
--           memory kind (best block size per N), and the other CPU rows (the blocked
--           OpenMP SGEMM, OpenBLAS), so the panel shows what the choice of baseline does;
--   'best'  over the best CPU row at that N (the fastest CPU variant run there): the
--           GPU kernels only.
-- Long form: panel, series, x = N, y = speed-up, and bs (the block size that won; empty
-- for CPU rows). Newest verified runs only; an N without the reference has no point.
WITH cpu AS (
    SELECT n, variant, median_ms FROM results
    WHERE study = 'matmul' AND device_kind = 'cpu' AND is_latest = 1 AND status = 'ok'
),
ref AS (
    SELECT n, min(CASE WHEN variant = 'omp_ikj' THEN median_ms END) AS seed_ms,
           min(median_ms) AS best_ms
    FROM cpu GROUP BY n
),
gpu AS (
    SELECT variant, mem, n, bs, median_ms,
           row_number() OVER (PARTITION BY device_id, variant, mem, n ORDER BY median_ms) AS rk
    FROM results
    WHERE study = 'matmul' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
      AND variant IN ('global', 'shared') AND coalesce(k, 1) = 1
),
rows AS (
    SELECT 1 AS p, 'over the seed CPU baseline (omp_ikj)' AS panel,
           'GPU ' || g.variant || ' (' || g.mem || ' memory)' AS series,
           CASE g.variant WHEN 'global' THEN 1 ELSE 2 END AS s1,
           CASE g.mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END AS s2,
           g.n AS x, r.seed_ms / g.median_ms AS y, g.bs AS bs
    FROM gpu g JOIN ref r ON r.n = g.n
    WHERE g.rk = 1 AND r.seed_ms IS NOT NULL
    UNION ALL
    SELECT 1, 'over the seed CPU baseline (omp_ikj)', 'CPU ' || c.variant, 0,
           CASE c.variant WHEN 'omp_blocked' THEN 1 ELSE 2 END,
           c.n, r.seed_ms / c.median_ms, NULL
    FROM cpu c JOIN ref r ON r.n = c.n
    WHERE c.variant IN ('omp_blocked', 'openblas') AND r.seed_ms IS NOT NULL
    UNION ALL
    SELECT 2, 'over the best CPU row', 'GPU ' || g.variant || ' (' || g.mem || ' memory)',
           CASE g.variant WHEN 'global' THEN 1 ELSE 2 END,
           CASE g.mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END,
           g.n, r.best_ms / g.median_ms, g.bs
    FROM gpu g JOIN ref r ON r.n = g.n
    WHERE g.rk = 1
)
SELECT panel, series, x, y, bs FROM rows ORDER BY p, s1, s2, x;
