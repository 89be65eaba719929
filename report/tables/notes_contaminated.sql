-- report/tables/notes_contaminated.sql - every newest verified run whose timing may
-- be disturbed (run.contaminated: the host busy while it ran, another gpulab on its
-- GPU, the GPU's clock slowed; docs/measurement.md), grouped by study, variant and
-- kind of disturbance, with the number of runs and the first one's full reason.
-- Such runs are marked ‡ in the generated tables and never set in bold.
WITH t AS (
    SELECT study, family, device_kind, variant, run_id, contaminated,
           CASE WHEN instr(contaminated, ':') > 0 AND instr(contaminated, ':') < 40
                THEN substr(contaminated, 1, instr(contaminated, ':') - 1)
                WHEN instr(contaminated, ' (') > 0
                THEN substr(contaminated, 1, instr(contaminated, ' (') - 1)
                ELSE contaminated END AS kind
    FROM results
    WHERE is_latest = 1 AND status = 'ok' AND contaminated IS NOT NULL
),
x AS (
    SELECT t.*, row_number() OVER (PARTITION BY study, family, variant, kind ORDER BY run_id) AS i
    FROM t
)
SELECT coalesce(study, '') AS "study", upper(device_kind) || ' ' || family || '/' || variant AS "variant",
       kind AS "disturbance", count(*) AS "runs",
       max(CASE WHEN i = 1 THEN contaminated END) AS "first run's reason"
FROM x
GROUP BY study, family, device_kind, variant, kind
ORDER BY study, family, variant, kind;
