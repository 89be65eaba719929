-- db/migrations/013.sql - schema version 13 -> 14: kernels for today's GPUs. A user
-- kernel's run records the target it was compiled for (target: sm_90, or the arch-specific sm_90a), how it was
-- launched (launch_kind: plain, cooperative, cluster 2x1x1, sequence) and the
-- values of the GPU its expressions read (device_values: "sm_count=132,
-- occupancy(256,0)=8"). Older runs were compiled for their GPU's own compute
-- capability and launched plainly, but that was never recorded: NULL.
-- Run by src/store/store_open.c inside the one transaction that upgrades a file,
-- after the migrations before it and before db/views.sql recreates the views; the
-- store sets PRAGMA user_version itself. Must only add.

ALTER TABLE run ADD COLUMN target TEXT;
ALTER TABLE run ADD COLUMN launch_kind TEXT;
ALTER TABLE run ADD COLUMN device_values TEXT;
