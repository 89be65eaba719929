-- report/tables/notes_status.sql - every newest run that gives no performance number
-- (status wrong, failed or skipped), grouped by study, variant, status and reason,
-- with the number of runs and up to three of their parameter sets.
WITH t AS (
    SELECT study, family, device_kind, variant, status, coalesce(reason, '(no reason stored)') AS reason,
           trim(coalesce('M=' || m || ' ', '') || coalesce('N=' || n || ' ', '')
                || coalesce('P=' || p || ' ', '') || coalesce('BS=' || bs || ' ', '')
                || coalesce('K=' || k || ' ', '') || coalesce('R=' || r || ' ', '')
                || coalesce('G=' || g || ' ', '') || coalesce('mem=' || mem || ' ', '')
                || coalesce('grid=' || grid, '')) AS params,
           run_id
    FROM results
    WHERE is_latest = 1 AND status <> 'ok'
),
x AS (
    SELECT t.*, row_number() OVER (PARTITION BY study, family, variant, status, reason
                                   ORDER BY run_id) AS i
    FROM t
)
SELECT coalesce(study, '') AS "study", family AS "family",
       upper(device_kind) || ' ' || variant AS "variant", status AS "status", reason AS "reason",
       count(*) AS "runs",
       group_concat(CASE WHEN i <= 3 THEN params END, '; ')
           || CASE WHEN count(*) > 3 THEN '; …' ELSE '' END AS "parameters (first 3)"
FROM x
GROUP BY study, family, device_kind, variant, status, reason
ORDER BY CASE status WHEN 'wrong' THEN 1 WHEN 'failed' THEN 2 ELSE 3 END, study, family, variant, reason;
