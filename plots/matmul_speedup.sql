-- plots/matmul_speedup.sql - S1 (study matmul): speed-up of the GPU kernels over the
-- CPU OpenMP i-k-j baseline at the same N (T_cpu / T_gpu, median times), one line
-- per GPU variant and memory kind, each at its best block size for that N.
-- Long form: panel (one, 'all'), series, x = N, y = speed-up, and bs (the block
-- size that won). Newest verified runs only; an N without a CPU run has no point.
WITH cpu AS (
    SELECT n, median_ms FROM results
    WHERE study = 'matmul' AND device_kind = 'cpu' AND variant = 'omp_ikj'
      AND is_latest = 1 AND status = 'ok'
),
gpu AS (
    SELECT variant, mem, n, bs, median_ms,
           row_number() OVER (PARTITION BY device_id, variant, mem, n ORDER BY median_ms) AS rk
    FROM results
    WHERE study = 'matmul' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
      AND variant IN ('global', 'shared') AND coalesce(k, 1) = 1
)
SELECT 'all' AS panel, 'GPU ' || g.variant || ' (' || g.mem || ' memory)' AS series,
       g.n AS x, c.median_ms / g.median_ms AS y, g.bs AS bs
FROM gpu g JOIN cpu c ON c.n = g.n
WHERE g.rk = 1
ORDER BY CASE g.variant WHEN 'global' THEN 1 ELSE 2 END,
         CASE g.mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END, g.n;
