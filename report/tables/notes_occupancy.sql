-- report/tables/notes_occupancy.sql - the GPU kernels whose theoretical occupancy is
-- below 50 % in some newest verified run, and what limits them: per study, variant
-- and launch resources (block shape, registers, shared memory), the resident blocks
-- per SM, theoretical and achieved occupancy, the limiting resource and the blocks
-- per SM each resource allows (registers / shared memory / warps / the block limit).
SELECT coalesce(study, '') AS "study", family || ' ' || variant AS "variant",
       block_x || ' × ' || block_y || ' × ' || block_z AS "block",
       regs_per_thread AS "registers / thread",
       static_smem + coalesce(dynamic_smem, 0) AS "shared (B / block)",
       blocks_per_sm AS "blocks / SM",
       printf('%.1f', theo_occupancy_pct) AS "theoretical occupancy (%)",
       CASE WHEN count(achieved_occupancy_pct) = 0 THEN 'not measured'
            WHEN min(achieved_occupancy_pct) = max(achieved_occupancy_pct)
                THEN printf('%.1f', min(achieved_occupancy_pct))
            ELSE printf('%.1f–%.1f', min(achieved_occupancy_pct), max(achieved_occupancy_pct)) END
           AS "achieved occupancy (%)",
       coalesce(limiter, 'not recorded') AS "limited by",
       limit_regs || ' / ' || limit_smem || ' / ' || limit_warps || ' / ' || limit_blocks
           AS "blocks/SM by regs / smem / warps / limit",
       count(*) AS "runs"
FROM results
WHERE device_kind = 'gpu' AND is_latest = 1 AND status = 'ok' AND theo_occupancy_pct < 50
GROUP BY study, family, variant, block_x, block_y, block_z, regs_per_thread, static_smem,
         dynamic_smem, blocks_per_sm, theo_occupancy_pct, limiter, limit_regs, limit_smem,
         limit_warps, limit_blocks
ORDER BY study, family, variant, theo_occupancy_pct, block_x * block_y * block_z;
