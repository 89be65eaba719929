-- db/schema.sql - the gpulab results database, current version (11; the store sets
-- PRAGMA user_version, db/migrations/ bring older files here). Compiled into the
-- binary by db/embed.sh and run by src/store/store_open.c on a new file, inside one
-- transaction, once src/store/store_sql.c has expanded its @params: ...@ list from the C
-- parameter table. Must hold tables and indexes only: the views are db/views.sql,
-- the version number is the store's business, and nothing here may depend on data
-- already present.
--
-- Conventions: STRICT tables; a value that was not measured, does not apply or is
-- unknown is NULL, never 0; times are milliseconds (_ms) unless the name says
-- otherwise; timestamps are ISO-8601 UTC text.
--
-- meta     key/value facts about the file itself (which application wrote it).
-- device   one row per device runs were made on: the CPU of the baselines, or a GPU.
--          ident is the stable identity (GPU UUID; host + CPU model), so the same
--          device seen again by a later session is the same row. The columns are the
--          fields of struct gl_device (src/gpulab.h); max_block/max_grid are split
--          into _x/_y/_z. first_seen: when this row was inserted. A GPU's memory
--          ceilings beyond the copy bandwidth, GB/s, measured once under the
--          device's lock: l1_bw_gbs (global loads that hit L1), smem_bw_gbs
--          (conflict-free shared-memory loads), l2_bw_gbs (loads that miss L1 and
--          hit L2), hostlink_bw_gbs (a kernel reading pinned mapped host memory: the
--          zero-copy path), h2d_bw_gbs (pinned host-to-device cudaMemcpy); the SM
--          clock they ran at (ceilings_clock_mhz), when (ceilings_at; NULL: not
--          measured yet) and why some or all are NULL (ceilings_reason).
-- session  one row per `gpulab run` of one config: tool version, git revision the
--          binary was built from, host, the command line, the study, the config's
--          path, full text and SHA-256 (hex), start and end time (ended_at NULL:
--          the session was killed); what gpulab saw of the machine as it began:
--          load1 (1-minute load average, /proc/loadavg), lock_wait_s (seconds it
--          waited for other sweeps' device locks), gpu_procs (other processes on
--          the GPU; NULL when not checked, gpu_procs_reason says why); the
--          slice of the plan it ran (shard_index I of shard_count N, from
--          `run --shard I/N` or a Slurm job array; both NULL: the whole plan); the
--          GPU clocks: what `run --clocks` asked (clocks_asked none | base), whether
--          gpulab locked them (clocks_locked 1, else 0; NULL: no GPU in the session)
--          and what it did or why not (clocks_reason), and NVML's SM clock as it
--          began in MHz: current (sm_clock_mhz), applications (sm_app_clock_mhz),
--          default applications (sm_app_default_mhz), maximum (sm_max_clock_mhz),
--          with the active clock event reasons (clock_events, '' none); NULL with
--          nvml_reason when NVML could not be asked.
-- run      one row per executed (or check-rejected) job. The key is study + device
--          (by model) + family + variant + every parameter (a column per row of
--          gl_param_table, NULL when the variant does not read it) + the named
--          parameters of a user's kernel (uparams, "BLOCK_ROWS=8 TILE=16" as
--          gl_params_user_format writes them) + the kernel's hash (code_hash); both
--          NULL for built-in variants. A kernel section's run also records its
--          compiler ('nvrtc' | 'nvcc') and its `options` as written ('' for none:
--          compile_options); NULL for built-in and plugin variants. status: ok | wrong | skipped | failed,
--          with reason for the last three. Then the timing policy
--          that was applied (warmup, min_samples, max_samples, max_noise, max_seconds),
--          the summary of the samples (count in `samples`; median, mean, min, max,
--          sample stddev in ms; rel_se = stddev / sqrt(n) / mean), host<->device copy
--          times, the maximum relative error against the float64 reference, the
--          analytic FLOP and minimum byte counts, and for GPU kernels the launch
--          shape and resources: launches per run, grid/block dimensions, registers
--          per thread, static/dynamic shared and local memory per block in bytes,
--          resident blocks per SM, theoretical occupancy (percent), the limiting
--          resource (registers | shared | warps | blocks) and the blocks per SM each
--          resource allows, the launch-guidance bits (GL_GUIDE_*: 1 few blocks,
--          2 block not a warp multiple, 4 small block, 8 outside 128..256 threads).
--          passes: profiler passes (NULL = not profiled; metrics_reason says why);
--          smem_excess_reason: why a profiled run has no exact shared-memory
--          conflicts (gpulab__smem_excess_* metrics), NULL when it measured them;
--          beside values, "shared: ..." says which run of its point measured them.
--          energy_j: joules per launch and avg_power_w: the board's average watts,
--          from NVML's total-energy counter over a window of back-to-back launches
--          (NULL with energy_reason when not measured); integrity: the checks the
--          timing was made under; contaminated: why the timing may be disturbed
--          (NULL: nothing seen). docs/measurement.md says what each means.
--          target: a user kernel's compiled target (sm_90, sm_90a); launch_kind:
--          plain, cooperative, cluster XxYxZ or sequence; device_values: what its
--          expressions read of the GPU (sm_count, occupancy(BLOCK,SMEM)).
-- run_param the named parameters of a run again, one row each (name, integer
--          value; a type parameter's type in text), written with the run: the params
--          and results_<study> views read them.
-- run_scalar the scalar arguments of a user kernel's run, one row each (below).
-- sample   every timed sample of a run, in the order taken (idx from 0).
-- claim    one row per run a live process has claimed and not yet stored: the run
--          key's SHA-256 (src/store/store_claim.c), the claimer's host, boot id, pid and
--          the pid's start time (so a reused pid is not taken for it), and when.
--          Storing the run deletes the row in the same transaction; a row whose
--          process is gone is taken over by the next claimer on that host.
-- metric   hardware counters, long form: one row per (run, metric) under its Nsight
--          Compute name (or gpulab__* for gpulab's own), value and unit. A metric
--          that was not measured has no row.
-- launch   a launch sequence's launches, one row per launch of the run (idx from 0):
--          launch line NAME, kernel, loop value, grid, block, dynamic shared memory.
-- launch_metric  each launch's counters measured alone (run_id, idx, name, value,
--          unit); run.launch_reason says why a profiled sequence has none.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT
) STRICT;

INSERT INTO meta (key, value) VALUES ('application', 'gpulab');

CREATE TABLE device (
    id                    INTEGER PRIMARY KEY,
    kind                  TEXT NOT NULL CHECK (kind IN ('cpu', 'gpu')),
    name                  TEXT,
    ident                 TEXT NOT NULL UNIQUE,
    cores                 INTEGER,   -- CPU: logical CPUs
    l1d_kb                INTEGER,
    l2_kb                 INTEGER,
    l3_kb                 INTEGER,
    cc_major              INTEGER,   -- GPU from here on
    cc_minor              INTEGER,
    sm_count              INTEGER,
    cores_per_sm          INTEGER,
    clock_khz             INTEGER,
    mem_clock_khz         INTEGER,
    mem_bus_bits          INTEGER,
    mem_bytes             INTEGER,
    l2_bytes              INTEGER,
    smem_per_block        INTEGER,
    smem_per_block_optin  INTEGER,
    smem_per_sm           INTEGER,
    regs_per_block        INTEGER,
    regs_per_sm           INTEGER,
    warp_size             INTEGER,
    max_threads_per_block INTEGER,
    max_threads_per_sm    INTEGER,
    max_blocks_per_sm     INTEGER,
    max_block_x           INTEGER,
    max_block_y           INTEGER,
    max_block_z           INTEGER,
    max_grid_x            INTEGER,
    max_grid_y            INTEGER,
    max_grid_z            INTEGER,
    driver_version        INTEGER,   -- CUDA driver API version, e.g. 13000
    runtime_version       INTEGER,
    theo_bw_gbs           REAL,      -- memory clock * bus width / 8 * 2
    copy_bw_gbs           REAL,      -- measured device-to-device copy, read + written
    fp32_peak_gflops      REAL,      -- SMs * cores per SM * 2 * clock
    first_seen            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    l1_bw_gbs             REAL,
    smem_bw_gbs           REAL,
    l2_bw_gbs             REAL,
    hostlink_bw_gbs       REAL,
    h2d_bw_gbs            REAL,
    ceilings_clock_mhz    REAL,
    ceilings_at           TEXT,
    ceilings_reason       TEXT
) STRICT;

CREATE TABLE session (
    id           INTEGER PRIMARY KEY,
    tool_version TEXT,
    git_revision TEXT,
    host         TEXT,
    argv         TEXT,
    study        TEXT,
    config_path  TEXT,
    config_text  TEXT,
    config_hash  TEXT,   -- hex SHA-256 of config_text
    started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at     TEXT,
    load1        REAL,   -- 1-minute load average as the session began
    lock_wait_s  REAL,   -- seconds waited for other sweeps' device locks
    gpu_procs    INTEGER,   -- other processes on the GPU at the start; NULL: not checked
    gpu_procs_reason TEXT,  -- why gpu_procs is NULL
    shard_index  INTEGER,   -- --shard I/N: I (from 0); NULL: the whole plan
    shard_count  INTEGER,   -- N; NULL: the whole plan
    clocks_asked  TEXT,
    clocks_locked INTEGER,
    clocks_reason TEXT,
    sm_clock_mhz       INTEGER,
    sm_app_clock_mhz   INTEGER,
    sm_app_default_mhz INTEGER,
    sm_max_clock_mhz   INTEGER,
    clock_events  TEXT,
    nvml_reason   TEXT
) STRICT;

CREATE TABLE run (
    id                 INTEGER PRIMARY KEY,
    session_id         INTEGER NOT NULL REFERENCES session (id),
    device_id          INTEGER NOT NULL REFERENCES device (id),
    study              TEXT,
    section            TEXT,
    family             TEXT NOT NULL,
    variant            TEXT NOT NULL,
    -- parameters: one column per row of gl_param_table (src/core/params.c), INTEGER
    -- or TEXT; NULL = not read by the variant. The list is expanded by the store
    -- (src/store_sql.c); a parameter added later also needs a migration adding it.
    @params: $column $type@,
    -- a user's kernel (NULL for built-in variants): named parameters, kernel hash
    uparams            TEXT,
    code_hash          TEXT,
    compiler           TEXT,    -- 'nvrtc' | 'nvcc' (a kernel section's run)
    compile_options    TEXT,    -- the section's `options` as written ('' for none)
    -- outcome
    status             TEXT NOT NULL CHECK (status IN ('ok', 'wrong', 'skipped', 'failed')),
    reason             TEXT,
    max_rel_err        REAL,
    -- how the output was checked: 'full' | 'sampled' | 'written', and the
    -- elements compared with the reference (docs/measurement.md, what "verified" means)
    check_method       TEXT,
    check_points       INTEGER,
    -- timing policy applied
    warmup             INTEGER,
    min_samples        INTEGER,
    max_samples        INTEGER,
    max_noise          REAL,
    max_seconds        REAL,
    -- timing summary (ms)
    samples            INTEGER NOT NULL DEFAULT 0,
    median_ms          REAL,
    mean_ms            REAL,
    min_ms             REAL,
    max_ms             REAL,
    stddev_ms          REAL,
    rel_se             REAL,
    h2d_ms             REAL,
    d2h_ms             REAL,
    -- analytic counts
    flops              REAL,
    min_bytes          REAL,
    -- launch shape and resources (GPU kernels)
    launches           INTEGER,
    grid_x             INTEGER,
    grid_y             INTEGER,
    grid_z             INTEGER,
    block_x            INTEGER,
    block_y            INTEGER,
    block_z            INTEGER,
    regs_per_thread    INTEGER,
    static_smem        INTEGER,
    dynamic_smem       INTEGER,
    local_bytes        INTEGER,
    blocks_per_sm      INTEGER,
    theo_occupancy_pct REAL,
    limiter            TEXT,
    limit_regs         INTEGER,
    limit_smem         INTEGER,
    limit_warps        INTEGER,
    limit_blocks       INTEGER,
    guide_flags        INTEGER,
    -- counters
    passes             INTEGER,
    metrics_reason     TEXT,
    smem_excess_reason TEXT,
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    started_at         TEXT,  -- when its timing began (the batch's start for GPU batches)
    -- what ran beneath the variant: a built-in CPU baseline's instruction-set
    -- level, or the library it called and its build; NULL: not recorded
    code_path          TEXT,
    -- why a profiled launch sequence has no counters per launch (NULL when it has them
    -- or when the run is no launch sequence)
    launch_reason      TEXT,
    -- energy_j: joules per launch and avg_power_w: average watts of the board from
    -- the NVML total-energy counter (NULL with energy_reason when not measured);
    -- integrity: the checks the timing was made under; contaminated: why the
    -- timing may be disturbed (NULL: nothing seen). See docs/measurement.md.
    -- (No comma in these lines: SQLite looks back for one when a column is dropped.)
    energy_j           REAL,
    avg_power_w        REAL,
    energy_reason      TEXT,
    integrity          TEXT,
    contaminated       TEXT,
    -- a user kernel's target (sm_90 or sm_90a) and how it was launched (plain or
    -- cooperative or cluster 2x1x1 or sequence) and the device values its
    -- expressions read (sm_count=132 and occupancy(256 0)=8); NULL for built-in
    -- variants (no comma in these lines either)
    target             TEXT,
    launch_kind        TEXT,
    device_values      TEXT
) STRICT;

-- The run_key index (the resume key: device, family, variant, study, every
-- parameter, uparams and code_hash, then status) is not here: the store makes it
-- from gl_param_table and remakes it when that table changes (src/store/store_sql.c,
-- src/store/store_open.c).
CREATE INDEX run_session ON run (session_id);

CREATE TABLE run_param (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    value  INTEGER NOT NULL,
    text   TEXT,            -- a type parameter's type (T = float, double): 'float'; else NULL
    PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;

-- The scalar arguments a run of a user's kernel passed (`args = ..., float 1/sqrt(N)`):
-- position in args (from 1), the kernel's parameter name (NULL when the source does not
-- say it), type, the expression as written, and its value at the point rounded to its
-- type (REAL for floating types, INTEGER for integer ones).
CREATE TABLE run_scalar (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    name   TEXT,
    type   TEXT NOT NULL,
    expr   TEXT NOT NULL,
    value  ANY NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE sample (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    ms     REAL NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE claim (
    key        TEXT PRIMARY KEY,   -- SHA-256 of the run key
    host       TEXT NOT NULL,
    boot_id    TEXT,               -- /proc/sys/kernel/random/boot_id
    pid        INTEGER NOT NULL,
    pid_start  INTEGER,            -- /proc/PID/stat starttime, clock ticks since boot
    claimed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- A launch sequence's launches (a kernel section's launch.NAME lines): one row per
-- launch of the run, in order (idx from 0): its launch line's NAME, the kernel as
-- compiled, the value of the line's loop variable (0 without one), its grid, block
-- and dynamic shared memory.
CREATE TABLE launch (
    run_id       INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    name         TEXT NOT NULL,
    kernel       TEXT NOT NULL,
    iter         INTEGER NOT NULL,
    grid_x       INTEGER NOT NULL,
    grid_y       INTEGER NOT NULL,
    grid_z       INTEGER NOT NULL,
    block_x      INTEGER NOT NULL,
    block_y      INTEGER NOT NULL,
    block_z      INTEGER NOT NULL,
    dynamic_smem INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;

-- The counters of each launch of a sequence measured alone (long form, as metric;
-- the run's metric rows are the whole sequence's).
CREATE TABLE launch_metric (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    name   TEXT NOT NULL,
    value  REAL NOT NULL,
    unit   TEXT,
    PRIMARY KEY (run_id, idx, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE metric (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    value  REAL NOT NULL,
    unit   TEXT,
    PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;
