-- report/tables/notes_smem.sql - newest verified GPU runs that have hardware counters
-- but no exact shared-memory bank conflicts (smem_excess_ld / _st), and why
-- (smem_excess_reason as stored: the kernel uses no shared memory, a library call,
-- left out of the metrics list, too long to instrument, measured before gpulab did
-- ...), per study. Their exact-conflict cells show the hardware counter alone,
-- marked "hw", or nothing.
SELECT coalesce(study, '') AS "study",
       coalesce(smem_excess_reason, '(no reason stored)') AS "why no exact bank conflicts",
       count(*) AS "runs"
FROM results
WHERE device_kind = 'gpu' AND is_latest = 1 AND status = 'ok' AND passes IS NOT NULL
  AND smem_excess_ld IS NULL AND smem_excess_st IS NULL
GROUP BY study, smem_excess_reason
ORDER BY study, smem_excess_reason;
