-- report/tables/smoke.sql - the smoke sweep (study smoke: every variant of every
-- family at tiny sizes; too small for the numbers to mean much, but it shows that
-- everything ran and verified): one row per newest run, whatever its status, with
-- its parameters, status, median time, GFLOP/s, effective GB/s and the largest
-- relative error against the float64 reference.
SELECT family AS "family", upper(device_kind) || ' ' || variant AS "variant",
       trim(coalesce('M=' || m || ' ', '') || coalesce('N=' || n || ' ', '')
            || coalesce('P=' || p || ' ', '') || coalesce('BS=' || bs || ' ', '')
            || coalesce('K=' || k || ' ', '') || coalesce('R=' || r || ' ', '')
            || coalesce('G=' || g || ' ', '') || coalesce('threads=' || threads || ' ', '')
            || coalesce('mem=' || mem || ' ', '') || coalesce('grid=' || grid || ' ', '')
            || coalesce('cache=' || cache, '')) AS "parameters",
       status AS "status",
       CASE WHEN status = 'ok' THEN printf('%.4g', median_ms) END AS "time (ms)",
       CASE WHEN gflops IS NOT NULL THEN printf('%.4g', gflops) END AS "GFLOP/s",
       CASE WHEN gbs IS NOT NULL THEN printf('%.4g', gbs) END AS "GB/s",
       CASE WHEN max_rel_err IS NOT NULL THEN printf('%.2e', max_rel_err) END AS "max rel. error"
FROM results
WHERE study = 'smoke' AND is_latest = 1
ORDER BY family, CASE device_kind WHEN 'cpu' THEN 0 ELSE 1 END, variant, n, m, p, bs, k, r, g,
         mem, grid;
