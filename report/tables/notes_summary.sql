-- report/tables/notes_summary.sql - what the database holds, by outcome: the newest
-- run of each configuration per status (only `ok` runs give performance numbers),
-- and the older runs of the same configurations that a later run superseded (kept
-- in the database, never reported).
-- (The superseded runs are every run less the newest ones: counting them in `results`
-- would build every older run's row, metrics and all, only to count it.)
WITH latest AS (
    SELECT status, count(*) AS runs FROM results WHERE is_latest = 1 GROUP BY status
)
SELECT outcome AS "outcome", runs AS "runs"
FROM (
    SELECT status AS outcome, runs,
           CASE status WHEN 'ok' THEN 1 WHEN 'wrong' THEN 2 WHEN 'failed' THEN 3 ELSE 4 END AS ord
    FROM latest
    UNION ALL
    SELECT 'superseded by a newer run',
           (SELECT count(*) FROM run r JOIN device d ON d.id = r.device_id)
           - (SELECT coalesce(sum(runs), 0) FROM latest), 5
)
ORDER BY ord;
