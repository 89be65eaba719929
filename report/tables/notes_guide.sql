-- report/tables/notes_guide.sql - the launch guidance of the optimisation lecture
-- (seed 001) checked on every newest verified GPU run (guide_flags, set by the
-- driver per kernel launch): one row per rule broken, study and variant, with the
-- number of runs and the threads per block and blocks per launch they had.
-- Bits: 1 fewer blocks than 2 × SMs; 2 threads per block not a multiple of 32;
-- 4 fewer than 64 threads per block while there are more blocks than SMs;
-- 8 threads per block outside the recommended 128..256.
WITH bits(bit, rule) AS (
    VALUES (1, 'fewer blocks than 2 × SMs'),
           (2, 'threads per block not a multiple of 32'),
           (4, '< 64 threads per block while blocks > SMs'),
           (8, 'threads per block outside 128–256')
),
t AS (
    SELECT r.*, bits.bit, bits.rule
    FROM results r JOIN bits ON (r.guide_flags & bits.bit) <> 0
    WHERE r.device_kind = 'gpu' AND r.is_latest = 1 AND r.status = 'ok'
),
shapes AS (
    SELECT bit, study, family, variant, group_concat(tpb, ', ') AS tpbs
    FROM (SELECT DISTINCT bit, study, family, variant, threads_per_block AS tpb FROM t
          ORDER BY bit, study, family, variant, tpb)
    GROUP BY bit, study, family, variant
)
SELECT t.rule AS "guidance not met", coalesce(t.study, '') AS "study",
       t.family || ' ' || t.variant AS "variant", count(*) AS "runs",
       s.tpbs AS "threads / block seen",
       min(t.grid_x * t.grid_y * t.grid_z) || '–' || max(t.grid_x * t.grid_y * t.grid_z)
           AS "blocks per launch (min–max)"
FROM t JOIN shapes s ON s.bit = t.bit AND s.study IS t.study AND s.family = t.family
                     AND s.variant = t.variant
GROUP BY t.bit, t.study, t.family, t.variant
ORDER BY t.bit, t.study, t.family, t.variant;
