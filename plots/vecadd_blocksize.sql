-- plots/vecadd_blocksize.sql - S4 (study vecadd): effective bandwidth of the
-- one-element-per-thread kernel against threads per block, a line per vector length
-- N (at most four: the smallest, the largest and two in between). Long form: panel
-- ('all'), series, x = threads per block, y = GB/s, guide_flags. Newest verified runs.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'vecadd' AND variant = 'global' AND device_kind = 'gpu'
      AND is_latest = 1 AND status = 'ok'
),
ns AS (
    SELECT n, row_number() OVER (ORDER BY n) AS i, count(*) OVER () AS c
    FROM (SELECT DISTINCT n FROM t)
),
pick AS (
    SELECT n FROM ns
    WHERE i IN (1, c, 1 + (c - 1) / 3, 1 + 2 * (c - 1) / 3)
)
SELECT 'all' AS panel, 'N = ' || t.n AS series, t.bs AS x, t.gbs AS y, t.guide_flags
FROM t JOIN pick USING (n)
ORDER BY t.n, t.bs;
