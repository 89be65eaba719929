-- plots/geometry_blocksize.sql - S3 (study geometry): the block-size sweep of the
-- single-block geometry (one launch per tile) with M x 2M blocks (K = 2): kernel
-- time against N, one panel per memory kind, a line per block M x 2M. Only the N of
-- the sweep (those with a block side other than the study's main one). Long form:
-- panel, series, x = N, y = median ms, bs. Newest verified runs only.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'geometry' AND family = 'matmul' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok' AND grid = 'block' AND k = 2
),
m AS (
    SELECT bs FROM results
    WHERE study = 'geometry' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
    GROUP BY bs ORDER BY count(*) DESC, bs DESC LIMIT 1
),
sweep AS (SELECT DISTINCT n FROM t WHERE bs <> (SELECT bs FROM m))
SELECT t.variant || ' memory' AS panel,
       'block ' || t.bs || '×' || (2 * t.bs) AS series, t.n AS x, t.median_ms AS y, t.bs
FROM t JOIN sweep USING (n)
ORDER BY CASE t.variant WHEN 'global' THEN 1 ELSE 2 END, t.bs, t.n;
