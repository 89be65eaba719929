-- plots/geometry_time.sql - S3 (study geometry): kernel time against N for the twelve
-- variants of the paper: one panel per memory kind (global, shared), a line per
-- grid geometry (2-D, 1-D, single block) and block shape (M x M: K = 1, M x 2M:
-- K = 2), M = the study's main block side (the most frequent BS). Long form:
-- panel, series, x = N, y = median time (ms), ylo and yhi the lowest and highest of
-- the runs of that point (seeds, repeats: y is their median; one run: all three its
-- time). Newest verified runs only.
WITH m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
p AS (
    SELECT r.device_id, r.variant, r.bs, r.grid, r.k, r.n, r.median_ms,
           row_number() OVER (PARTITION BY r.device_id, r.variant, r.grid, r.k, r.n
                              ORDER BY r.median_ms) AS i,
           count(*) OVER (PARTITION BY r.device_id, r.variant, r.grid, r.k, r.n) AS c
    FROM results r JOIN m ON m.bs = r.bs
    WHERE r.study = 'geometry' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT r.variant || ' memory (M = ' || r.bs || ')' AS panel,
       CASE r.grid WHEN '2d' THEN '2-D grid' WHEN '1d' THEN '1-D grid' ELSE 'single block' END
           || ' / ' || CASE r.k WHEN 1 THEN 'M×M' WHEN 2 THEN 'M×2M' ELSE 'K=' || r.k END AS series,
       r.n AS x,
       avg(CASE WHEN r.i IN ((r.c + 1) / 2, (r.c + 2) / 2) THEN r.median_ms END) AS y,
       min(r.median_ms) AS ylo, max(r.median_ms) AS yhi
FROM p r
GROUP BY r.device_id, r.variant, r.grid, r.k, r.n
ORDER BY CASE r.variant WHEN 'global' THEN 1 ELSE 2 END,
         CASE r.grid WHEN '2d' THEN 1 WHEN '1d' THEN 2 ELSE 3 END, r.k, r.n, r.device_id;
