-- tests/data/schema_v1.sql - the database layout of schema version 1, as it stood
-- before every sample was kept and before launch-guidance flags existed: a run
-- stored only the summary of a fixed number of timed repeats (`samples`), with no
-- stop rule (min_samples, max_samples, max_noise, max_seconds), no rel_se, no
-- guide_flags, and there was no `sample` table. tests/test_store.c builds a v1 file
-- from this and checks that db/migrations/001.sql brings it to version 2 keeping
-- every row. Must not change: it is history (the v1 store set user_version = 1).

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
    cores                 INTEGER,
    l1d_kb                INTEGER,
    l2_kb                 INTEGER,
    l3_kb                 INTEGER,
    cc_major              INTEGER,
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
    driver_version        INTEGER,
    runtime_version       INTEGER,
    theo_bw_gbs           REAL,
    copy_bw_gbs           REAL,
    fp32_peak_gflops      REAL,
    first_seen            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
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
    config_hash  TEXT,
    started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at     TEXT
) STRICT;

CREATE TABLE run (
    id                 INTEGER PRIMARY KEY,
    session_id         INTEGER NOT NULL REFERENCES session (id),
    device_id          INTEGER NOT NULL REFERENCES device (id),
    study              TEXT,
    section            TEXT,
    family             TEXT NOT NULL,
    variant            TEXT NOT NULL,
    n                  INTEGER,
    m                  INTEGER,
    p                  INTEGER,
    bs                 INTEGER,
    k                  INTEGER,
    r                  INTEGER,
    g                  INTEGER,
    threads            INTEGER,
    seed               INTEGER,
    mem                TEXT,
    grid               TEXT,
    cache              TEXT,
    status             TEXT NOT NULL CHECK (status IN ('ok', 'wrong', 'skipped', 'failed')),
    reason             TEXT,
    max_rel_err        REAL,
    warmup             INTEGER,
    samples            INTEGER NOT NULL DEFAULT 0,
    median_ms          REAL,
    mean_ms            REAL,
    min_ms             REAL,
    max_ms             REAL,
    stddev_ms          REAL,
    h2d_ms             REAL,
    d2h_ms             REAL,
    flops              REAL,
    min_bytes          REAL,
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
    passes             INTEGER,
    metrics_reason     TEXT,
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE INDEX run_key ON run (device_id, family, variant, n, m, p, bs, k, r, g, threads, seed,
                             mem, grid, cache, status);
CREATE INDEX run_session ON run (session_id);

CREATE TABLE metric (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    value  REAL NOT NULL,
    unit   TEXT,
    PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;

-- Version 1's query surface (db/views.sql of that time), smaller than today's.
CREATE VIEW results AS
SELECT r.id AS run_id, r.study, r.family, r.variant, d.kind AS device_kind, d.name AS device_name,
       r.n, r.bs, r.k, r.r, r.status, r.samples, r.median_ms,
       CASE WHEN r.status = 'ok' THEN r.flops / r.median_ms / 1e6 END AS gflops
FROM run r JOIN device d ON d.id = r.device_id;
