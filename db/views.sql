-- db/views.sql - the documented query surface of the results database: `results`
-- (one row per run, metrics as columns), `metrics` (the long form with run context),
-- `params` (the named parameters of users' kernels, long form), `launch_metrics`
-- (a launch sequence's counters per launch), `search_evals` (a search's evaluations)
-- and `devices`. src/store/store_open.c drops and recreates these views on every open that
-- can write, inside the open's transaction, so editing this file (and rebuilding) is
-- all it takes to change them. Must only define views: no tables, no data; and must
-- not spell out a parameter or a metric name: the @params: ...@ and @metrics ...@
-- lists are expanded from gl_param_table (src/core/params.c) and gl_metric_table
-- (src/core/metric_sets.c) by src/store/store_sql.c, which says how they are written.
-- The results_<study> views (`results` plus a column per named parameter of that
-- study) depend on the data, not on a table: src/store/store_sql.c writes them and
-- src/store/store_open.c makes them after this file, on the same opens and at the end
-- of a session.
--
-- results columns (NULL = not measured / does not apply, never 0):
--   run_id, session_id, study, section, family, variant   what ran, from which session
--   device_kind (cpu|gpu), device_name, device_id           where it ran: device_id is the
--                            device model (the first `device` row of that kind, name,
--                            cores/SMs and compute capability), so runs on two H100s of
--                            one model group together; unit_id is the device row of the
--                            very unit it ran on (its UUID in device.ident)
--   status (ok|wrong|skipped|failed), reason                 outcome, why when not ok
--   one column per parameter, in gl_param_table's order     (NULL = not read)
--   samples                                                  timed samples taken
--   median_ms mean_ms min_ms max_ms stddev_ms                one run, milliseconds
--   rel_se                                                   stddev / sqrt(samples) / mean
--   h2d_ms d2h_ms                                            host<->device copies, timed apart
--   max_rel_err                                              against the float64 reference
--   flops min_bytes                                          analytic FLOP and minimum bytes
--   gflops = flops / median_ms / 1e6                         GFLOP/s, ok runs only
--   gbs = min_bytes / median_ms / 1e6                        effective bandwidth GB/s, ok only
--   launches grid_x grid_y grid_z block_x block_y block_z threads_per_block
--   regs_per_thread static_smem dynamic_smem local_bytes    per kernel, bytes per block
--   blocks_per_sm theo_occupancy_pct limiter                 occupancy API and its limit
--   limit_regs limit_smem limit_warps limit_blocks           blocks/SM each resource allows
--   guide_flags                                              launch guidance bits (GL_GUIDE_*)
--   passes metrics_reason                                    profiler passes; why no metrics
--   smem_excess_reason       why smem_excess_ld and smem_excess_st are both NULL (run's
--                            smem_excess_reason, else its metrics_reason); NULL when either
--                            was measured
--   one column per metric of the default set that has one, in gl_metric_table's order
--                            (its `column`; the metric's value in the `metric` table)
--   dram_write_total_bytes   dram_write_bytes + dram_write_drain_bytes (NULL if either is)
--   one column per metric of the full and sass sets that has one, in the table's order
--   measured_flop_per_byte   flops / (dram_read_bytes + dram_write_total_bytes)
--   dram_gbs                 (dram_read_bytes + dram_write_total_bytes) / gpu_time_ns
--   sm_clock_mhz             sm_clock_hz / 1e6: the SM clock of the run's profiled replay
--   hostlink_bytes           32 x (hostlink_read_sectors + hostlink_write_sectors): bytes the
--                            run moved over the host link (zero-copy reads and writes)
--   l1_flop_per_byte l2_flop_per_byte hostlink_flop_per_byte   flops per l1_bytes, per
--                            l2_bytes, per hostlink_bytes (NULL where the bytes are 0)
--   offchip_level            where the run's off-chip traffic went: 'hostlink' when its
--                            host-link bytes exceed its DRAM bytes (zero-copy), else 'dram';
--                            the roofline places it at measured_flop_per_byte (dram) or
--                            hostlink_flop_per_byte (hostlink)
--   is_latest                1 for the newest run (highest run_id) of its study + device
--                            model (kind, name, cores, SMs, compute capability) + family +
--                            variant + parameters + named parameters (uparams), whatever
--                            its status and its kernel's code_hash (an edited kernel's
--                            new run is the latest); else 0
--   created_at               when the run was stored (ISO-8601 UTC)
--   uparams                  a user kernel's named parameters, "BLOCK_ROWS=8 TILE=16"
--                            (NULL: none, built-in variants)
--   code_hash                the user kernel's hash (source, the user headers it
--                            includes, section text, C reference); NULL for built-in variants
--   started_at               when the run's timing began (ISO-8601 UTC; a GPU batch's
--                            start for each run of it); NULL before schema version 4
--   compiler                 a kernel section's compiler: nvrtc | nvcc (NULL: built-in or
--                            plugin variants, and runs before schema version 6)
--   compile_options          the section's `options` as written ('' for none; NULL as
--                            compiler)
--   code_path                what ran beneath the variant: a built-in CPU baseline's
--                            instruction-set level ("x86-64-v3 (AVX2, FMA)"), or the
--                            library it called and its build ("OpenBLAS 0.3.21 ...
--                            Haswell ... (path)"); NULL: not recorded (GPU kernels,
--                            users' variants, runs before schema version 9)
--   energy_j, avg_power_w    joules per launch and the board's average watts while the
--                            run's energy window ran (NVML's total-energy counter); NULL
--                            with energy_reason when not measured (CPU runs, no NVML, a
--                            counter too coarse for the window)
--   gflop_per_j              flops / energy_j (NULL when either is)
--   integrity                the checks the timing was made under, comma-separated
--                            (docs/measurement.md: poison-first, poison-last, ...)
--   contaminated             why the timing may be disturbed (host busy, another gpulab
--                            on the device, a slowed clock); NULL when nothing was seen
--   target                   a user kernel's compiled target (sm_90, sm_90a); NULL for
--                            built-in variants and runs before schema version 14
--   launch_kind              plain, cooperative, cluster XxYxZ or sequence (user kernels)
--   device_values            what the kernel's expressions read of the GPU: "sm_count=132,
--                            occupancy(256,0)=8"; NULL when nothing

DROP VIEW IF EXISTS results;
DROP VIEW IF EXISTS device_model;
DROP VIEW IF EXISTS metrics;
DROP VIEW IF EXISTS devices;
DROP VIEW IF EXISTS params;
DROP VIEW IF EXISTS launch_metrics;
DROP VIEW IF EXISTS scalars;
DROP VIEW IF EXISTS search_evals;

-- The device model of every device row: the first row of the same kind, name,
-- cores, SM count and compute capability. Two H100s of one kind are one model;
-- resume (src/store/store_resume.c) and is_latest both match devices through this view.
CREATE VIEW device_model AS
SELECT d.id AS device_id,
       (SELECT min(m.id) FROM device m WHERE m.kind = d.kind AND m.name IS d.name
            AND m.cores IS d.cores AND m.sm_count IS d.sm_count AND m.cc_major IS d.cc_major
            AND m.cc_minor IS d.cc_minor) AS model_id
FROM device d;

CREATE VIEW results AS
WITH x AS (
    SELECT r.*, d.kind AS device_kind, d.name AS device_name, dm.model_id,
        @metrics: (SELECT value FROM metric WHERE run_id = r.id AND name = $name) AS $column@,
        -- The newest run of its key: no run with a higher id has the same study, device
        -- model, family, variant, parameters and uparams. IS compares NULLs as equal, which is
        -- what "same parameters" means here; the device model is device_model's (same kind,
        -- name, cores, SMs and compute capability), spelled out so that SQLite looks each run
        -- up in the store's run_key index instead of sorting every run (a window function
        -- would, on every query of this view, however few rows the query wants).
        NOT EXISTS (SELECT 1 FROM run o
                    WHERE o.device_id IN (SELECT od.id FROM device od WHERE od.kind = d.kind
                              AND od.name IS d.name AND od.cores IS d.cores
                              AND od.sm_count IS d.sm_count AND od.cc_major IS d.cc_major
                              AND od.cc_minor IS d.cc_minor)
                      AND (o.study, o.family, o.variant, @params: o.$column@, o.uparams)
                          IS (r.study, r.family, r.variant, @params: r.$column@, r.uparams)
                      AND o.id > r.id) AS newest
    FROM run r JOIN device d ON d.id = r.device_id JOIN device_model dm ON dm.device_id = d.id
)
SELECT
    id AS run_id, session_id, study, section, family, variant,
    device_kind, device_name, model_id AS device_id, device_id AS unit_id,
    status, reason,
    @params: $column@,
    samples, median_ms, mean_ms, min_ms, max_ms, stddev_ms, rel_se, h2d_ms, d2h_ms,
    max_rel_err, flops, min_bytes,
    CASE WHEN status = 'ok' AND median_ms > 0 THEN flops / median_ms / 1e6 END AS gflops,
    CASE WHEN status = 'ok' AND median_ms > 0 THEN min_bytes / median_ms / 1e6 END AS gbs,
    launches, grid_x, grid_y, grid_z, block_x, block_y, block_z,
    block_x * block_y * block_z AS threads_per_block,
    regs_per_thread, static_smem, dynamic_smem, local_bytes,
    blocks_per_sm, theo_occupancy_pct, limiter,
    limit_regs, limit_smem, limit_warps, limit_blocks,
    guide_flags, passes, metrics_reason,
    CASE WHEN smem_excess_ld IS NULL AND smem_excess_st IS NULL
         THEN coalesce(smem_excess_reason, metrics_reason) END AS smem_excess_reason,
    @metrics default: $column@,
    dram_write_bytes + dram_write_drain_bytes AS dram_write_total_bytes,
    @metrics full sass: $column@,
    flops / (dram_read_bytes + dram_write_bytes + dram_write_drain_bytes) AS measured_flop_per_byte,
    (dram_read_bytes + dram_write_bytes + dram_write_drain_bytes) / gpu_time_ns AS dram_gbs,
    sm_clock_hz / 1e6 AS sm_clock_mhz,
    32 * (hostlink_read_sectors + hostlink_write_sectors) AS hostlink_bytes,
    flops / l1_bytes AS l1_flop_per_byte,
    flops / l2_bytes AS l2_flop_per_byte,
    flops / (32 * (hostlink_read_sectors + hostlink_write_sectors)) AS hostlink_flop_per_byte,
    CASE WHEN 32 * (hostlink_read_sectors + hostlink_write_sectors)
              > dram_read_bytes + dram_write_bytes + coalesce(dram_write_drain_bytes, 0)
         THEN 'hostlink'
         WHEN dram_read_bytes + dram_write_bytes IS NOT NULL THEN 'dram' END AS offchip_level,
    CASE WHEN newest THEN 1 ELSE 0 END AS is_latest,
    created_at, uparams, code_hash, started_at, compiler, compile_options, code_path,
    energy_j, avg_power_w, energy_reason,
    CASE WHEN energy_j > 0 THEN flops / energy_j / 1e9 END AS gflop_per_j,
    integrity, contaminated, target, launch_kind, device_values
FROM x
ORDER BY run_id;

CREATE VIEW metrics AS
SELECT m.run_id, r.study, r.family, r.variant, m.name, m.value, m.unit
FROM metric m JOIN run r ON r.id = m.run_id;

-- The named parameters of users' kernels, one row per run and name: an integer, or
-- a type parameter's type ('float').
CREATE VIEW params AS
SELECT p.run_id, r.study, r.family, r.variant, p.name, coalesce(p.text, p.value) AS value
FROM run_param p JOIN run r ON r.id = p.run_id;

-- Launch sequences (kernel sections with launch.NAME lines): each launch's counters,
-- one row per launch and metric, beside the whole run's value of the same metric
-- (run_value: the sequence measured as one range, so it includes the gaps between
-- launches and weighs ratios by the hardware's own counts).
CREATE VIEW launch_metrics AS
SELECT l.run_id, r.study, r.family, r.variant, l.idx AS launch, l.name AS launch_name,
       l.kernel, l.iter, l.grid_x, l.block_x, m.name, m.value, m.unit,
       (SELECT w.value FROM metric w WHERE w.run_id = l.run_id AND w.name = m.name) AS run_value
FROM launch l
JOIN launch_metric m ON m.run_id = l.run_id AND m.idx = l.idx
JOIN run r ON r.id = l.run_id;

-- The scalar arguments of users' kernels, one row per run and argument: its position
-- in args (from 1), the kernel's parameter name (NULL when the source does not say
-- it), its type, the expression as written and its value at the run's point, rounded
-- to its type.
CREATE VIEW scalars AS
SELECT s.run_id, r.study, r.family, r.variant, s.idx, s.name, s.type, s.expr, s.value
FROM run_scalar s JOIN run r ON r.id = s.run_id;

-- One row per evaluation of a search (a section with `strategy =` other than
-- exhaustive, docs/configs.md#searches): its run, study, section, strategy and
-- search_seed (read from the config each session stored: the section's own
-- lines, else those before the first section), its median time when ok (ms) and
-- the seconds it took the search (secs: from the previous stored run of its
-- section in its session, or from its own start; what a budget in seconds
-- counts, src/store/store_search.c). Skipped runs are no evaluation. The report's
-- Searches section and plots/search_progress read it.
CREATE VIEW search_evals AS
WITH s AS (
    SELECT DISTINCT r.session_id, r.section,
           char(10) || replace(se.config_text, char(13), '') || char(10) AS t
    FROM run r JOIN session se ON se.id = r.session_id
),
b AS (
    SELECT session_id, section, t, instr(t, char(10) || '[' || section || ']') AS at FROM s
),
parts AS (   -- the lines before the first section, and the section's own lines
    SELECT session_id, section, substr(t, 1, instr(t, char(10) || '[')) AS top,
           substr(t, at + 1,
                  CASE WHEN instr(substr(t, at + 2), char(10) || '[') > 0
                       THEN instr(substr(t, at + 2), char(10) || '[') ELSE length(t) END) AS own
    FROM b WHERE at > 0
),
keyline AS (   -- the first line of each part that sets each key: its value, comment cut
    SELECT session_id, section, part, key,
           CASE WHEN pos > 0 THEN trim(substr(line, instr(line, '=') + 1)) END AS val
    FROM (SELECT session_id, section, part, key, pos,
                 CASE WHEN instr(l0, '#') > 0 THEN substr(l0, 1, instr(l0, '#') - 1) ELSE l0 END AS line
          FROM (SELECT session_id, section, part, key, pos,
                       substr(x, pos + 1, instr(substr(x, pos + 1), char(10)) - 1) AS l0
                FROM (SELECT p.session_id, p.section, w.part, k.key,
                             CASE w.part WHEN 'own' THEN p.own ELSE p.top END AS x,
                             instr(CASE w.part WHEN 'own' THEN p.own ELSE p.top END,
                                   char(10) || k.key) AS pos
                      FROM parts p,
                           (SELECT 'own' AS part UNION ALL SELECT 'top') w,
                           (SELECT 'strategy' AS key UNION ALL SELECT 'search_seed') k)))
    WHERE pos > 0 AND trim(substr(line, 1, instr(line, '=') - 1)) = key
),
searched AS (
    SELECT p.session_id, p.section,
           coalesce((SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'strategy' AND k.part = 'own'),
                    (SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'strategy' AND k.part = 'top'),
                    'exhaustive') AS strategy,
           coalesce((SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'search_seed' AND k.part = 'own'),
                    (SELECT val FROM keyline k WHERE k.session_id = p.session_id
                         AND k.section = p.section AND k.key = 'search_seed' AND k.part = 'top'),
                    '1') AS seed
    FROM parts p
),
ev AS (
    SELECT r.id, r.study, r.section, sr.strategy, sr.seed,
           CASE WHEN r.status = 'ok' THEN r.median_ms END AS ms,
           86400.0 * (julianday(r.created_at) - julianday(coalesce(
               lag(r.created_at) OVER (PARTITION BY r.session_id, r.study, r.section ORDER BY r.id),
               r.started_at, r.created_at))) AS secs
    FROM run r JOIN searched sr ON sr.session_id = r.session_id AND sr.section = r.section
    WHERE sr.strategy <> 'exhaustive' AND r.status <> 'skipped'
)
SELECT id AS run_id, study, section, strategy, seed, ms, secs FROM ev;

CREATE VIEW devices AS
SELECT d.id AS device_id, d.kind, d.name, d.ident,
       CASE WHEN d.cc_major IS NOT NULL THEN d.cc_major || '.' || d.cc_minor END AS cc,
       d.cores, d.l1d_kb, d.l2_kb, d.l3_kb,
       d.cc_major, d.cc_minor, d.sm_count, d.cores_per_sm,
       d.sm_count * d.cores_per_sm AS total_cores,
       d.clock_khz, d.mem_clock_khz, d.mem_bus_bits, d.mem_bytes, d.l2_bytes,
       d.smem_per_block, d.smem_per_block_optin, d.smem_per_sm,
       d.regs_per_block, d.regs_per_sm, d.warp_size,
       d.max_threads_per_block, d.max_threads_per_sm, d.max_blocks_per_sm,
       d.max_block_x, d.max_block_y, d.max_block_z, d.max_grid_x, d.max_grid_y, d.max_grid_z,
       d.driver_version, d.runtime_version,
       d.theo_bw_gbs, d.copy_bw_gbs, d.fp32_peak_gflops,
       (SELECT count(*) FROM run WHERE run.device_id = d.id) AS runs,
       d.first_seen,
       d.l1_bw_gbs, d.smem_bw_gbs, d.l2_bw_gbs, d.hostlink_bw_gbs, d.h2d_bw_gbs,
       d.ceilings_clock_mhz, d.ceilings_at, d.ceilings_reason
FROM device d;
