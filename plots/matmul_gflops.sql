-- plots/matmul_gflops.sql - S1 (study matmul): P = 2N^3/T in GFLOP/s against N, one
-- panel per GPU memory kind (device, zerocopy, managed), one line per GPU variant
-- and block size, and the CPU rows (OpenBLAS, the blocked OpenMP SGEMM, the seed's
-- OpenMP loops) repeated in every panel so that each panel reads on its own (panel
-- 'none' when there are CPU runs only).
-- Long form: panel, series, x = N, y = GFLOP/s, sorted by panel, series, x.
-- Only the newest run of each configuration (is_latest) and only verified runs.
WITH gpu AS (
    SELECT mem AS panel, 'GPU ' || variant || ' BS=' || bs AS series,
           CASE variant WHEN 'global' THEN 1 ELSE 2 END AS s1, bs AS s2, n AS x, gflops AS y
    FROM results
    WHERE study = 'matmul' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
      AND variant IN ('global', 'shared') AND coalesce(k, 1) = 1
),
panels(panel, ord) AS (
    SELECT DISTINCT panel, CASE panel WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END
    FROM gpu
    UNION ALL
    SELECT 'none', 0 WHERE NOT EXISTS (SELECT 1 FROM gpu)
),
cpu AS (
    SELECT p.panel, 'CPU ' || r.variant AS series, 0 AS s1,
           CASE r.variant WHEN 'openblas' THEN 1 WHEN 'omp_blocked' THEN 2 WHEN 'omp_ikj' THEN 3
                          WHEN 'omp_ijk' THEN 4 ELSE 5 END AS s2,
           r.n AS x, r.gflops AS y
    FROM results r CROSS JOIN panels p
    WHERE r.study = 'matmul' AND r.device_kind = 'cpu' AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT u.panel, u.series, u.x, u.y
FROM (SELECT * FROM gpu UNION ALL SELECT * FROM cpu) u
JOIN panels p ON p.panel = u.panel
ORDER BY p.ord, u.s1, u.s2, u.x;
