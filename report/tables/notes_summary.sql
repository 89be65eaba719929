-- report/tables/notes_summary.sql - what the database holds, by outcome: the newest
-- run of each configuration per status (only `ok` runs give performance numbers),
-- and the older runs of the same configurations that a later run superseded (kept
-- in the database, never reported).
SELECT outcome AS "outcome", runs AS "runs"
FROM (
    SELECT status AS outcome, count(*) AS runs,
           CASE status WHEN 'ok' THEN 1 WHEN 'wrong' THEN 2 WHEN 'failed' THEN 3 ELSE 4 END AS ord
    FROM results WHERE is_latest = 1
    GROUP BY status
    UNION ALL
    SELECT 'superseded by a newer run', count(*), 5 FROM results WHERE is_latest = 0
)
ORDER BY ord;
