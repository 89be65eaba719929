-- report/tables/stencil_pairs.sql - S2 (study stencil), not a table of the report:
-- the (N, R) pairs with verified newest runs, one row each, which
-- report/studies/02_stencil.md walks with `@foreach stencil_pairs` to render
-- stencil_nr.sql once per pair (columns n and r become @n@ and @r@ there).
SELECT DISTINCT n, r
FROM results
WHERE study = 'stencil' AND family = 'stencil' AND is_latest = 1 AND status = 'ok'
ORDER BY n, r;
