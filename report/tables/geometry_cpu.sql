-- report/tables/geometry_cpu.sql - S3 (study geometry): the CPU table: the OpenMP i-k-j
-- baseline per N (median with spread, threads, GFLOP/s), the fastest GPU variant of
-- the study at the same N and the speed-up T_cpu / T_gpu. Newest verified runs only.
WITH cpu AS (
    SELECT * FROM results
    WHERE study = 'geometry' AND family = 'matmul' AND device_kind = 'cpu'
      AND is_latest = 1 AND status = 'ok'
),
gpu AS (
    SELECT n, variant, grid, k, bs, median_ms,
           row_number() OVER (PARTITION BY n ORDER BY median_ms) AS rk
    FROM results
    WHERE study = 'geometry' AND family = 'matmul' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok'
)
SELECT c.n AS "N", c.variant AS "CPU variant", c.threads AS "threads",
       CASE WHEN c.median_ms >= 1000 THEN printf('%.0f', c.median_ms)
            ELSE printf('%.4g', c.median_ms) END
       || CASE WHEN c.stddev_ms IS NOT NULL AND c.mean_ms > 0
               THEN printf(' ± %.1f %%', 100.0 * c.stddev_ms / c.mean_ms) ELSE '' END
           AS "CPU time (ms, median ± sd)",
       printf('%.4g', c.gflops) AS "CPU GFLOP/s",
       CASE WHEN g.median_ms IS NOT NULL THEN printf('%.4g', g.median_ms) END AS "best GPU time (ms)",
       g.variant || ' / ' || CASE g.grid WHEN '2d' THEN '2-D grid' WHEN '1d' THEN '1-D grid'
                                         ELSE 'single block' END
           || ' / ' || CASE g.k WHEN 1 THEN 'M×M' WHEN 2 THEN 'M×2M' ELSE 'K=' || g.k END
           || ' (M = ' || g.bs || ')' AS "best GPU variant / grid / block",
       CASE WHEN g.median_ms IS NOT NULL THEN
           printf(CASE WHEN c.median_ms / g.median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END,
                  c.median_ms / g.median_ms) END AS "speed-up GPU vs CPU"
FROM cpu c LEFT JOIN gpu g ON g.n = c.n AND g.rk = 1
ORDER BY c.n, c.variant;
