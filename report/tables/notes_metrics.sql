-- report/tables/notes_metrics.sql - newest verified GPU runs without hardware
-- counters, and why (metrics_reason as stored by the driver: not asked for by the
-- config, no permission, no profiler, ...), per study. Their metric columns are
-- empty in the tables above, never 0.
SELECT coalesce(study, '') AS "study", coalesce(metrics_reason, '(no reason stored)') AS "why no counters",
       count(*) AS "runs"
FROM results
WHERE device_kind = 'gpu' AND is_latest = 1 AND status = 'ok' AND passes IS NULL
GROUP BY study, metrics_reason
ORDER BY study, metrics_reason;
