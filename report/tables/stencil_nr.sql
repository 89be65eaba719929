-- report/tables/stencil_nr.sql - S2 (study stencil): one of the seed's nine tables,
-- for one (N, R): report/studies/02_stencil.md renders it once per row of
-- stencil_pairs.sql (`@foreach`), and report/build.sh replaces @N@ and @R@. Rows: the
-- CPU rows (sequential first, as in the seed, then OpenMP), then each GPU variant by
-- (BS, K). Columns: median time with spread (sd as % of the mean), GFLOP/s with
-- FLOP = (N-2R)^2 (2R+1)^2, speed-up over the sequential row, FLOP per DRAM byte
-- (measured: read + write + drain; blank when not measured) and the analytic
-- minimum-bytes intensity. The fastest row is bold. Newest verified runs only.
WITH t AS (
    SELECT * FROM results
    WHERE study = 'stencil' AND family = 'stencil' AND n = @N@ AND r = @R@
      AND is_latest = 1 AND status = 'ok'
),
seq AS (SELECT min(median_ms) AS ms FROM t WHERE variant = 'seq' AND device_kind = 'cpu'),
x AS (
    SELECT t.*, seq.ms AS seq_ms, rank() OVER (ORDER BY t.median_ms) AS rk,
           lead(t.median_ms - coalesce(t.stddev_ms, 0)) OVER (ORDER BY t.median_ms) AS next_lo,
           CASE WHEN t.median_ms >= 1000 THEN printf('%.0f', t.median_ms)
                ELSE printf('%.4g', t.median_ms) END
           || CASE WHEN t.stddev_ms IS NOT NULL AND t.mean_ms > 0
                   THEN printf(' ± %.1f %%', 100.0 * t.stddev_ms / t.mean_ms) ELSE '' END AS ms_txt,
           CASE WHEN t.gflops >= 1000 THEN printf('%.0f', t.gflops)
                WHEN t.gflops IS NOT NULL THEN printf('%.4g', t.gflops) END AS gf_txt
    FROM t CROSS JOIN seq
)
SELECT upper(device_kind) || ' ' || variant AS "variant",
       coalesce(bs, '') AS "BS", coalesce(k, '') AS "K",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || ms_txt || '**' ELSE ms_txt END AS "time (ms, median ± sd)",
       CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' || gf_txt || '**' ELSE gf_txt END AS "GFLOP/s",
       CASE WHEN seq_ms IS NOT NULL THEN printf(CASE WHEN seq_ms / median_ms >= 100 THEN '%.0f×' ELSE '%.3g×' END, seq_ms / median_ms) END
           AS "speed-up vs sequential",
       CASE WHEN measured_flop_per_byte IS NOT NULL THEN printf('%.3g', measured_flop_per_byte) END
           AS "FLOP/B (DRAM, measured)",
       CASE WHEN min_bytes > 0 THEN printf('%.3g', flops / min_bytes) END AS "FLOP/B (analytic)"
FROM x
ORDER BY CASE device_kind WHEN 'cpu' THEN 0 ELSE 1 END,
         CASE variant WHEN 'seq' THEN 0 WHEN 'omp' THEN 1 WHEN 'global' THEN 2 ELSE 3 END, bs, k;
