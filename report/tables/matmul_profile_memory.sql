-- report/tables/matmul_profile_memory.sql - S1 (study matmul): the memory-access side of
-- the profiler table at the profiled N (as matmul_profile.sql): global load and store
-- bytes through L1, shared-memory wavefronts (requests as served) and bank conflicts
-- for loads and stores, instructions executed. A bank-conflict cell is the exact count
-- (smem_excess_*: wavefronts beyond the ideal, from CUPTI's instrumented SASS counts)
-- with the hardware counter (smem_conflicts_*) in parentheses where the two differ, or
-- the hardware counter alone, marked "hw", where the exact count was not measured.
-- Blank = neither measured. The fewest load bank conflicts among the shared-memory
-- kernels of each memory kind are bold.
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
           rank() OVER (PARTITION BY r.device_id, r.mem, r.variant
                        ORDER BY coalesce(r.smem_excess_ld, r.smem_conflicts_ld)) AS rk,
           CASE WHEN r.smem_excess_ld IS NOT NULL THEN printf('%.0f', r.smem_excess_ld)
                    || CASE WHEN r.smem_conflicts_ld IS NOT NULL
                             AND printf('%.0f', r.smem_conflicts_ld) <> printf('%.0f', r.smem_excess_ld)
                            THEN printf(' (hw %.0f)', r.smem_conflicts_ld) ELSE '' END
                WHEN r.smem_conflicts_ld IS NOT NULL THEN printf('hw %.0f', r.smem_conflicts_ld)
           END AS conf_ld,
           CASE WHEN r.smem_excess_st IS NOT NULL THEN printf('%.0f', r.smem_excess_st)
                    || CASE WHEN r.smem_conflicts_st IS NOT NULL
                             AND printf('%.0f', r.smem_conflicts_st) <> printf('%.0f', r.smem_excess_st)
                            THEN printf(' (hw %.0f)', r.smem_conflicts_st) ELSE '' END
                WHEN r.smem_conflicts_st IS NOT NULL THEN printf('hw %.0f', r.smem_conflicts_st)
           END AS conf_st
    FROM results r JOIN pn ON pn.n = r.n
    WHERE r.study = 'matmul' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.variant IN ('global', 'shared') AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT n AS "N", variant AS "variant", mem AS "memory", bs AS "BS",
       CASE WHEN global_ld_bytes IS NOT NULL THEN printf('%.1f', global_ld_bytes / 1e6) END
           AS "global load (MB)",
       CASE WHEN global_st_bytes IS NOT NULL THEN printf('%.1f', global_st_bytes / 1e6) END
           AS "global store (MB)",
       CASE WHEN smem_wavefronts_ld IS NOT NULL THEN printf('%.3f', smem_wavefronts_ld / 1e6) END
           AS "shared load wavefronts (M)",
       CASE WHEN smem_wavefronts_st IS NOT NULL THEN printf('%.3f', smem_wavefronts_st / 1e6) END
           AS "shared store wavefronts (M)",
       CASE WHEN conf_ld IS NOT NULL THEN
           CASE WHEN rk = 1 AND variant = 'shared' THEN '**' ELSE '' END
           || conf_ld
           || CASE WHEN rk = 1 AND variant = 'shared' THEN '**' ELSE '' END END
           AS "bank conflicts, loads",
       conf_st AS "bank conflicts, stores",
       CASE WHEN inst_executed IS NOT NULL THEN printf('%.1f', inst_executed / 1e6) END
           AS "instructions (M)"
FROM t
ORDER BY n, CASE mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END, variant, bs;
