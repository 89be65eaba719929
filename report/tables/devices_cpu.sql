-- report/tables/devices_cpu.sql - the CPUs that ran the baselines (device table,
-- kind cpu) with newest runs in the database: model, logical CPUs, cache sizes.
SELECT d.name AS "CPU", d.cores AS "logical CPUs",
       d.l1d_kb AS "L1d (KiB)", d.l2_kb AS "L2 (KiB)", d.l3_kb AS "L3 (KiB)",
       (SELECT count(*) FROM results r WHERE r.device_id = d.id AND r.is_latest = 1)
           AS "runs in this report"
FROM device d
WHERE d.kind = 'cpu'
  AND d.id IN (SELECT device_id FROM results WHERE is_latest = 1)
ORDER BY d.id;
