-- plots/tiled_gflops.sql - S5 (study tiled): non-square C[M][N] = A[M][P] . B[P][N]:
-- GFLOP/s (2MNP / T) for each size, a line per variant and block size (cuBLAS and
-- the CPU rows have no block size). Sizes on x as categories in the order of
-- their FLOP count. The CPU rows: the seed's OpenMP i-k-j loop (omp_rect), the
-- blocked OpenMP SGEMM and OpenBLAS. Long form: panel ('all'), series, x = size index, y = GFLOP/s,
-- label ('M×N×P'). Newest verified runs only.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'tiled' AND family = 'matmul' AND is_latest = 1 AND status = 'ok'
),
sizes AS (
    SELECT m, n, p, row_number() OVER (ORDER BY 1.0 * m * n * p, m, n, p) AS idx
    FROM (SELECT DISTINCT m, n, p FROM t)
)
SELECT 'all' AS panel,
       upper(t.device_kind) || ' ' || t.variant || coalesce(' BS=' || t.bs, '') AS series,
       s.idx AS x, t.gflops AS y, t.m || '×' || t.n || '×' || t.p AS label
FROM t JOIN sizes s ON s.m = t.m AND s.n = t.n AND s.p = t.p
ORDER BY CASE t.variant WHEN 'naive_rect' THEN 1 WHEN 'tiled_rect' THEN 2 WHEN 'cublas' THEN 3
                        WHEN 'omp_rect' THEN 4 WHEN 'omp_blocked_rect' THEN 5 ELSE 6 END,
         t.bs, s.idx;
