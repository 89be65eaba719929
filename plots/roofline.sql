-- plots/roofline.sql - the roofline of every GPU that has verified runs: each
-- newest verified GPU run as a point at its arithmetic intensity (FLOP per DRAM
-- byte, measured: flops / (DRAM read + write + drain bytes); where the counters are
-- missing, analytic: flops / minimum bytes, measured = 0) and its GFLOP/s (timed
-- median). Ceilings per device: peak_gflops (fp32_peak_gflops) and bw_gbs (the
-- measured copy bandwidth copy_bw_gbs), repeated on each row. One panel per device.
-- Long form: panel, series (family and how bytes were counted), x = FLOP/byte, y = GFLOP/s, family, measured,
-- peak_gflops, bw_gbs. Runs with no FLOP (none today) or no time are left out.
SELECT d.name || ' (device ' || d.id || ')' AS panel,
       r.family || CASE WHEN r.measured_flop_per_byte IS NOT NULL THEN ' (measured DRAM bytes)'
                        ELSE ' (analytic bytes)' END AS series,
       coalesce(r.measured_flop_per_byte, r.flops / r.min_bytes) AS x,
       r.gflops AS y,
       r.family AS family,
       CASE WHEN r.measured_flop_per_byte IS NOT NULL THEN 1 ELSE 0 END AS measured,
       d.fp32_peak_gflops AS peak_gflops,
       d.copy_bw_gbs AS bw_gbs
FROM results r JOIN device d ON d.id = r.device_id
WHERE r.device_kind = 'gpu' AND r.is_latest = 1 AND r.status = 'ok'
  AND r.gflops > 0 AND coalesce(r.measured_flop_per_byte, r.flops / r.min_bytes) > 0
ORDER BY d.id, r.family, measured DESC, x;
