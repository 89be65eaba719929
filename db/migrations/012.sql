-- db/migrations/012.sql - schema version 12 -> 13: energy, the checks made and
-- contamination. A run gets the energy of its launches from the GPU's total-energy
-- counter (energy_j: joules per launch; avg_power_w: the board's average watts
-- while they ran; NULL with energy_reason when not measured: a CPU run, no NVML,
-- a counter too coarse for the window gpulab could afford), the checks its timing
-- was made under (integrity: comma-separated, docs/measurement.md) and why its
-- timing may be disturbed (contaminated: the host busy, another gpulab on the
-- device, a slowed clock; NULL when nothing was seen).
-- Run by src/store/store_open.c inside the one transaction that upgrades a file,
-- after the migrations before it and before db/views.sql recreates the views; the
-- store sets PRAGMA user_version itself. Must only add: what older files never
-- measured stays NULL with a reason saying so, never made up.

ALTER TABLE run ADD COLUMN energy_j REAL;
ALTER TABLE run ADD COLUMN avg_power_w REAL;
ALTER TABLE run ADD COLUMN energy_reason TEXT;
ALTER TABLE run ADD COLUMN integrity TEXT;
ALTER TABLE run ADD COLUMN contaminated TEXT;
UPDATE run SET energy_reason = 'not recorded (a gpulab without energy records)';
