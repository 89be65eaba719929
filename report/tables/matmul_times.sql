-- report/tables/matmul_times.sql - S1 (study matmul): the CPU rows against GPU global
-- against GPU shared memory (device memory, blocks BS x BS) for each N: median time
-- with its spread (sample standard deviation as % of the mean), P = 2N^3/T, and two
-- speed-ups: over the seed's CPU baseline (OpenMP i-k-j, omp_ikj) and over the best
-- CPU row at the same N (the fastest of every CPU variant run: OpenBLAS, the blocked
-- OpenMP SGEMM or a seed loop). The seed's loops are marked "(seed)". The fastest
-- row of each N is bold. Newest verified runs only. Numbers: 4 significant digits
-- (whole numbers from 1000).
WITH t AS (
    SELECT * FROM results
    WHERE study = 'matmul' AND family = 'matmul' AND is_latest = 1 AND status = 'ok'
      AND (device_kind = 'cpu'
           OR (variant IN ('global', 'shared') AND mem = 'device' AND coalesce(k, 1) = 1))
),
cpu AS (
    SELECT n, min(CASE WHEN variant = 'omp_ikj' THEN median_ms END) AS seed_ms,
           min(median_ms) AS best_ms
    FROM t WHERE device_kind = 'cpu' GROUP BY n
),
x AS (
    SELECT t.*, cpu.seed_ms, cpu.best_ms,
           rank() OVER (PARTITION BY t.n ORDER BY t.median_ms) AS rk,
           lead(t.median_ms - coalesce(t.stddev_ms, 0)) OVER (PARTITION BY t.n ORDER BY t.median_ms) AS next_lo,
           CASE WHEN t.median_ms >= 1000 THEN printf('%.0f', t.median_ms)
                ELSE printf('%.4g', t.median_ms) END
           || CASE WHEN t.stddev_ms IS NOT NULL AND t.mean_ms > 0
                   THEN printf(' ± %.1f %%', 100.0 * t.stddev_ms / t.mean_ms) ELSE '' END AS ms_txt,
           CASE WHEN t.gflops >= 1000 THEN printf('%.0f', t.gflops)
                WHEN t.gflops IS NOT NULL THEN printf('%.4g', t.gflops) END AS gf_txt
    FROM t LEFT JOIN cpu ON cpu.n = t.n
)
SELECT n AS "N",
       upper(device_kind) || ' ' || variant
           || CASE WHEN device_kind = 'cpu' AND variant IN ('seq_ijk', 'omp_ijk', 'omp_ikj')
                   THEN ' (seed)' ELSE '' END AS "variant",
       coalesce(bs, '') AS "BS",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || ms_txt || '**' ELSE ms_txt END AS "time (ms, median ± sd)",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || gf_txt || '**' ELSE gf_txt END AS "P = 2N³/T (GFLOP/s)",
       CASE WHEN seed_ms IS NOT NULL THEN printf(CASE WHEN seed_ms / median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END, seed_ms / median_ms) END
           AS "speed-up vs seed CPU (omp_ikj)",
       CASE WHEN best_ms IS NOT NULL THEN printf(CASE WHEN best_ms / median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END, best_ms / median_ms) END
           AS "speed-up vs best CPU"
FROM x
ORDER BY n, CASE device_kind WHEN 'cpu' THEN 0 ELSE 1 END,
         CASE variant WHEN 'seq_ijk' THEN 1 WHEN 'omp_ijk' THEN 2 WHEN 'omp_ikj' THEN 3
                      WHEN 'omp_blocked' THEN 4 WHEN 'openblas' THEN 5
                      WHEN 'global' THEN 6 ELSE 7 END, bs;
