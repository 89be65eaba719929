-- report/tables/devices_cpu.sql - the CPUs that ran the baselines (device table,
-- kind cpu) with newest runs in the database: model, logical CPUs, cache sizes.
-- (the newest runs per device counted once, not once per device)
WITH n AS MATERIALIZED (
    SELECT device_id, count(*) AS runs FROM results WHERE is_latest = 1 GROUP BY device_id
)
SELECT d.name AS "CPU", d.cores AS "logical CPUs",
       d.l1d_kb AS "L1d (KiB)", d.l2_kb AS "L2 (KiB)", d.l3_kb AS "L3 (KiB)",
       n.runs AS "runs in this report"
FROM device d JOIN n ON n.device_id = d.id
WHERE d.kind = 'cpu'
ORDER BY d.id;
