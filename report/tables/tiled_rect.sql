-- report/tables/tiled_rect.sql - S5 (study tiled): non-square C[M][N] = A[M][P] · B[P][N]
-- per size: the naive and the TILE_WIDTH = BS tiled kernels by block size, the
-- cuBLAS SGEMM reference and the CPU rows (the seed's OpenMP i-k-j loop, omp_rect,
-- marked "(seed)"; the blocked OpenMP SGEMM; OpenBLAS's SGEMM): median time with
-- spread, GFLOP/s = 2MNP / T, the share of cuBLAS's GFLOP/s and two speed-ups: over
-- the seed's CPU loop and over the best CPU row of that size. The fastest of
-- gpulab's own kernels (naive_rect, tiled_rect) per size is bold.
-- Newest verified runs only.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'tiled' AND family = 'matmul' AND is_latest = 1 AND status = 'ok'
),
ref AS (
    SELECT m, n, p,
           min(CASE WHEN variant = 'cublas' THEN median_ms END) AS cublas_ms,
           min(CASE WHEN variant = 'omp_rect' THEN median_ms END) AS seed_ms,
           min(CASE WHEN device_kind = 'cpu' THEN median_ms END) AS cpu_ms
    FROM t GROUP BY m, n, p
),
x AS (
    SELECT t.*, ref.cublas_ms, ref.seed_ms, ref.cpu_ms,
           CASE WHEN t.variant IN ('naive_rect', 'tiled_rect') THEN
               rank() OVER (PARTITION BY t.m, t.n, t.p, t.variant IN ('naive_rect', 'tiled_rect')
                            ORDER BY t.median_ms) END AS rk,
           lead(t.median_ms - coalesce(t.stddev_ms, 0)) OVER (PARTITION BY t.m, t.n, t.p, t.variant IN ('naive_rect', 'tiled_rect')
                            ORDER BY t.median_ms) AS next_lo,
           CASE WHEN t.median_ms >= 1000 THEN printf('%.0f', t.median_ms)
                ELSE printf('%.4g', t.median_ms) END
           || CASE WHEN t.stddev_ms IS NOT NULL AND t.mean_ms > 0
                   THEN printf(' ± %.1f %%', 100.0 * t.stddev_ms / t.mean_ms) ELSE '' END AS ms_txt,
           CASE WHEN t.gflops >= 1000 THEN printf('%.0f', t.gflops)
                ELSE printf('%.4g', t.gflops) END AS gf_txt
    FROM t JOIN ref ON ref.m = t.m AND ref.n = t.n AND ref.p = t.p
)
SELECT m AS "M", n AS "N", p AS "P",
       upper(device_kind) || ' ' || variant
           || CASE WHEN variant = 'omp_rect' THEN ' (seed)' ELSE '' END AS "variant",
       coalesce(bs, '') AS "BS",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || ms_txt || '**' ELSE ms_txt END AS "time (ms, median ± sd)",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || gf_txt || '**' ELSE gf_txt END AS "GFLOP/s",
       CASE WHEN cublas_ms > 0 THEN printf('%.1f', 100.0 * cublas_ms / median_ms) END
           AS "% of cuBLAS",
       CASE WHEN seed_ms > 0 THEN
           printf(CASE WHEN seed_ms / median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END, seed_ms / median_ms)
       END AS "speed-up vs seed CPU (omp_rect)",
       CASE WHEN cpu_ms > 0 THEN
           printf(CASE WHEN cpu_ms / median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END, cpu_ms / median_ms)
       END AS "speed-up vs best CPU"
FROM x
ORDER BY 1.0 * m * n * p, m, n, p,
         CASE variant WHEN 'naive_rect' THEN 1 WHEN 'tiled_rect' THEN 2 WHEN 'cublas' THEN 3
                      WHEN 'omp_rect' THEN 4 WHEN 'omp_blocked_rect' THEN 5 ELSE 6 END, bs;
