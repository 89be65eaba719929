-- report/tables/_studies.sql - helper for report/build.sh (not a table of the
-- report): how many newest runs each study has, and how many of them are verified.
SELECT coalesce(study, '') AS study, count(*) AS runs, sum(status = 'ok') AS ok,
       sum(status = 'ok' AND device_kind = 'gpu') AS gpu_ok
FROM results
WHERE is_latest = 1
GROUP BY study
ORDER BY study;
