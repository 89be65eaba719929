-- report/tables/matmul_occupancy.sql - S1 (study matmul): launch shape and resources per
-- variant at the profiled N (as matmul_profile.sql): grid and block, registers per
-- thread, static shared memory per block, theoretical occupancy (occupancy API) and
-- achieved occupancy (counter), the limiting resource and the blocks per SM each
-- resource allows (registers / shared memory / warps / the block limit). The highest
-- achieved occupancy per memory kind is bold. Blank = not measured.
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
           rank() OVER (PARTITION BY r.device_id, r.mem ORDER BY r.achieved_occupancy_pct DESC) AS rk
    FROM results r JOIN pn ON pn.n = r.n
    WHERE r.study = 'matmul' AND r.family = 'matmul' AND r.device_kind = 'gpu'
      AND r.variant IN ('global', 'shared') AND r.is_latest = 1 AND r.status = 'ok'
)
SELECT n AS "N", variant AS "variant", mem AS "memory", bs AS "BS",
       grid_x || ' × ' || grid_y || ' × ' || grid_z AS "grid",
       block_x || ' × ' || block_y || ' × ' || block_z AS "block",
       regs_per_thread AS "registers / thread",
       static_smem AS "static shared (B / block)",
       CASE WHEN theo_occupancy_pct IS NOT NULL THEN printf('%.1f', theo_occupancy_pct) END
           AS "theoretical occupancy (%)",
       CASE WHEN achieved_occupancy_pct IS NOT NULL THEN
           CASE WHEN rk = 1 THEN '**' ELSE '' END || printf('%.1f', achieved_occupancy_pct)
           || CASE WHEN rk = 1 THEN '**' ELSE '' END END AS "achieved occupancy (%)",
       limiter AS "limited by",
       limit_regs || ' / ' || limit_smem || ' / ' || limit_warps || ' / ' || limit_blocks
           AS "blocks/SM by regs / smem / warps / limit"
FROM t
ORDER BY n, CASE mem WHEN 'device' THEN 1 WHEN 'zerocopy' THEN 2 ELSE 3 END, variant, bs;
