-- report/tables/_s2_pairs.sql - helper for report/build.sh (not a table of the
-- report): the (N, R) pairs of study stencil with verified newest runs; build.sh
-- renders s2_nr.sql once per pair.
SELECT DISTINCT n, r
FROM results
WHERE study = 'stencil' AND family = 'stencil' AND is_latest = 1 AND status = 'ok'
ORDER BY n, r;
