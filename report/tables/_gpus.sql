-- report/tables/_gpus.sql - helper for report/build.sh (not a table of the report):
-- the GPU devices that have newest runs in the database, one id per row.
SELECT id, name
FROM device
WHERE kind = 'gpu'
  AND id IN (SELECT device_id FROM results WHERE is_latest = 1)
ORDER BY id;
