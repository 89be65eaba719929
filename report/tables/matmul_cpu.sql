-- report/tables/matmul_cpu.sql - S1 (study matmul): what ran on the CPU. One row per
-- CPU variant (newest verified runs): its role (the seed's loop, the blocked OpenMP
-- SGEMM written for this study, or the library), the threads it used, what ran
-- beneath it (run.code_path: the instruction-set level the dispatch picked for the
-- OpenMP loops, or the library and its build for OpenBLAS) and its best P = 2N^3/T
-- with the N it was reached at. Several code paths (runs from several builds or
-- machines) are listed together.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'matmul' AND family = 'matmul' AND device_kind = 'cpu' AND is_latest = 1
      AND status = 'ok'
),
best AS (
    SELECT variant, n, gflops,
           row_number() OVER (PARTITION BY variant ORDER BY gflops DESC, n) AS rk
    FROM t
)
SELECT t.variant AS "CPU variant",
       CASE WHEN t.variant IN ('seq_ijk', 'omp_ijk', 'omp_ikj') THEN 'seed baseline'
            WHEN t.variant = 'openblas' THEN 'library'
            ELSE 'blocked, vectorised' END AS "role",
       coalesce(group_concat(DISTINCT t.threads), '1') AS "threads",
       coalesce(group_concat(DISTINCT t.code_path), 'not recorded') AS "what ran",
       printf(CASE WHEN b.gflops >= 1000 THEN '%.0f' ELSE '%.4g' END, b.gflops)
           || ' (N = ' || b.n || ')' AS "best GFLOP/s"
FROM t JOIN best b ON b.variant = t.variant AND b.rk = 1
GROUP BY t.variant
ORDER BY CASE t.variant WHEN 'seq_ijk' THEN 1 WHEN 'omp_ijk' THEN 2 WHEN 'omp_ikj' THEN 3
                        WHEN 'omp_blocked' THEN 4 ELSE 5 END;
