-- report/tables/matmul_profile.sql - S1 (study matmul): the profiler table per variant
-- at the profiled N (2048, the seed's, when there are GPU runs at 2048; else the
-- largest N with counters): kernel duration from the counters (gpu__time_duration)
-- and the SM clock it ran at (sm__cycles_elapsed.avg.per_second), GFLOP/s from the
-- timed median, FLOP per DRAM byte (read + write + drain), CGMA
-- (FLOP per byte of global load + store traffic through L1, the seed's measure), SM
-- and memory throughput, L1 and L2 hit rates, DRAM bytes. Blank = not measured (the
-- notes say why). The shortest duration per memory kind is bold. Newest verified
-- runs only.
WITH pn AS (
    SELECT coalesce(
        (SELECT 2048 FROM results WHERE study = 'matmul' AND device_kind = 'gpu' AND n = 2048
           AND is_latest = 1 AND status = 'ok' LIMIT 1),
        (SELECT max(n) FROM results WHERE study = 'matmul' AND device_kind = 'gpu'
           AND passes IS NOT NULL AND is_latest = 1 AND status = 'ok'),
        2048) AS n
),
t AS (
    SELECT r.*,
           rank() OVER (PARTITION BY r.device_id, r.mem ORDER BY r.gpu_time_ns) AS rk
    FROM results r JOIN pn ON pn.n = r.n
    WHERE r.study = 'matmul' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.variant IN ('global', 'shared') AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT n AS "N", variant AS "variant", mem AS "memory", bs AS "BS",
       CASE WHEN gpu_time_ns IS NOT NULL THEN
           CASE WHEN rk = 1 THEN '**' ELSE '' END || printf('%.1f', gpu_time_ns / 1e3)
           || CASE WHEN rk = 1 THEN '**' ELSE '' END END AS "duration (µs)",
       CASE WHEN sm_clock_mhz IS NOT NULL THEN printf('%.0f', sm_clock_mhz) END AS "SM clock (MHz)",
       CASE WHEN gflops IS NOT NULL THEN printf('%.0f', gflops) END AS "GFLOP/s",
       CASE WHEN measured_flop_per_byte IS NOT NULL THEN printf('%.1f', measured_flop_per_byte) END
           AS "FLOP/B (DRAM)",
       CASE WHEN global_ld_bytes + global_st_bytes > 0
            THEN printf('%.2f', flops / (global_ld_bytes + global_st_bytes)) END
           AS "CGMA (FLOP/B global ld+st)",
       CASE WHEN sm_throughput_pct IS NOT NULL THEN printf('%.1f', sm_throughput_pct) END AS "SM (%)",
       CASE WHEN mem_throughput_pct IS NOT NULL THEN printf('%.1f', mem_throughput_pct) END
           AS "memory (%)",
       CASE WHEN l1_hit_pct IS NOT NULL THEN printf('%.1f', l1_hit_pct) END AS "L1 hit (%)",
       CASE WHEN l2_hit_pct IS NOT NULL THEN printf('%.1f', l2_hit_pct) END AS "L2 hit (%)",
       CASE WHEN dram_read_bytes IS NOT NULL THEN printf('%.2f', dram_read_bytes / 1e6) END
           AS "DRAM read (MB)",
       CASE WHEN dram_write_total_bytes IS NOT NULL THEN printf('%.2f', dram_write_total_bytes / 1e6)
            WHEN dram_write_bytes IS NOT NULL THEN printf('%.2f', dram_write_bytes / 1e6) || ' (no drain)'
       END AS "DRAM written incl. drain (MB)"
FROM t
ORDER BY n, CASE mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END, variant, bs;
