-- report/tables/_gpus.sql - helper for report/build.sh (not a table of the report):
-- the GPU models that have newest runs in the database, one id per row (results.device_id
-- is the model: several units of one model are one device here).
SELECT id, name
FROM device
WHERE kind = 'gpu'
  AND id IN (SELECT device_id FROM results WHERE is_latest = 1)
ORDER BY id;
