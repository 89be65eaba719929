# bench/report_db.awk - the SQL of bench/report_speed.sh's synthetic results database:
# reads `gpulab plan` of the real configs (every configuration of every study, with
# its section, variant and parameters, the GPU ones marked no-gpu on a machine
# without one) and writes INSERTs into the store's own tables (device, session,
# run, run_param, sample, metric) until RUNS runs exist: CPU configurations on
# the CPU, GPU ones on an H100 (and an H200 with GPUS=2), as `gpulab device`
# records them, every configuration again in later sessions (older runs, not the newest),
# a few wrong, failed and skipped runs, and counters for most GPU runs. The
# numbers follow a simple roofline model with deterministic noise, so that the
# tables and figures of every study have rows shaped like a real sweep's. Must not
# write anything but SQL to stdout; knows the parameter columns of `run` only by
# the names `gpulab list` prints (lower-cased), the rest are named parameters.
# Variables: RUNS (how many runs in all), GPUS (1: the H100 only, as the real
# databases have; 2: the H200 too), SEEDS (1: every repetition runs with a seed
# of its own, seed + rep - 1, so that every run is a newest one: the studies
# copied over seeds; 0, the default: repetitions are later sessions of the same
# keys), BASE (about BASE configurations in each repetition: every k-th
# one of the plan, k = ceil(configurations / BASE), so that every study keeps
# rows; 0 = all of them), BUILTIN (the built-in parameter names,
# space-separated, as `gpulab list` prints them).
function rnd() { SEED = (SEED * 1103515245 + 12345) % 2147483648; return SEED / 2147483648 }
function q(s) { gsub(/'/, "''", s); return "'" s "'" }
function num(v) { return v == "" ? "NULL" : v }
BEGIN {
    SEED = 7
    nb = split(BUILTIN, b, " ")
    for (i = 1; i <= nb; i++) builtin[b[i]] = 1
    njobs = 0
}
/^configs\/[^ ]*\.conf \(study / {
    conf = $1; study = $3; sub(/:$/, "", study); sub(/\)$/, "", study)
    nconf++; confs[nconf] = conf; cstudy[nconf] = study
    next
}
/^  \[[^]]*\] family / { section = $1; gsub(/[][]/, "", section); next }
$1 == "run" || $1 == "no-gpu" || $1 == "skip" {
    njobs++
    J_state[njobs] = $1; J_conf[njobs] = nconf; J_study[njobs] = study; J_section[njobs] = section
    split($2, fv, "/"); J_family[njobs] = fv[1]; J_variant[njobs] = fv[2]
    J_params[njobs] = ""; J_u[njobs] = ""; J_reason[njobs] = ""
    for (i = 3; i <= NF; i++) {
        if ($i == "--") { r = ""; for (j = i + 1; j <= NF; j++) r = r (r == "" ? "" : " ") $j; J_reason[njobs] = r; break }
        split($i, kv, "=")
        if (kv[1] in builtin) J_params[njobs] = J_params[njobs] " " tolower(kv[1]) "=" kv[2]
        else J_u[njobs] = J_u[njobs] (J_u[njobs] == "" ? "" : " ") kv[1] "=" kv[2]
    }
    next
}
function param(j, name,    n, i, kv, p) {
    n = split(J_params[j], p, " ")
    for (i = 1; i <= n; i++) { split(p[i], kv, "="); if (kv[1] == name) return kv[2] }
    return ""
}
function uparam(j, name,    n, i, kv, p) {
    n = split(J_u[j], p, " ")
    for (i = 1; i <= n; i++) { split(p[i], kv, "="); if (kv[1] == name) return kv[2] }
    return ""
}
# one run of job j on device dev in session sess
function emit(j, dev, sess,    n, m, p, bs, k, r, fam, flops, bytes, gpu, peak, bw, ms, st, reason,
              cols, vals, np, pp, kv, i, sd, gx, gy, bx, by, occ, nu, up, uv, smp, dr, dw, noise) {
    id++
    fam = J_family[j]; gpu = dev > 1
    n = param(j, "n") + 0; m = param(j, "m"); p = param(j, "p"); bs = param(j, "bs") + 0
    k = param(j, "k"); r = param(j, "r") + 0
    if (m == "") m = n; if (p == "") p = n
    if (k == "") k = 1
    if (n == 0) n = uparam(j, "N") + 0
    if (fam == "matmul") { flops = 2 * m * n * p; bytes = 4 * (m * p + p * n + m * n) }
    else if (fam == "stencil") { flops = 2 * (4 * r + 1) * n * n; bytes = 8 * n * n }
    else if (fam == "vecadd") { flops = n; bytes = 12 * n }
    else if (fam == "reduction") { flops = n; bytes = 4 * n }
    else { flops = ""; bytes = 8 * n * n }
    peak = dev == 3 ? 66000 : (dev == 2 ? 60000 : 200); bw = dev == 3 ? 4000 : (dev == 2 ? 2900 : 40)
    eff = J_variant[j] ~ /shared|tiled|cublas|padded|shuffle|copy/ ? 0.4 : 0.12
    ms = (flops == "" ? 0 : flops / (peak * eff * 1e6))
    if (bytes / (bw * 0.8 * 1e6) > ms) ms = bytes / (bw * 0.8 * 1e6)
    ms = (ms + (gpu ? 0.004 : 0.02)) * (1 + 0.5 * rnd()) * (1 + 0.02 * sess)
    st = "ok"; reason = ""
    if (J_state[j] == "skip") { st = "skipped"; reason = J_reason[j] }
    else { noise = rnd(); if (noise < 0.01) { st = "wrong"; reason = "max relative error 3.1e-02 > 1e-03" }
                          else if (noise < 0.015) { st = "failed"; reason = "CUDA error: too many resources requested for launch" } }
    cols = "id, session_id, device_id, study, section, family, variant"
    vals = id ", " sess ", " dev ", " q(J_study[j]) ", " q(J_section[j]) ", " q(fam) ", " q(J_variant[j])
    np = split(J_params[j], pp, " ")
    for (i = 1; i <= np; i++) {
        split(pp[i], kv, "=")
        cols = cols ", " kv[1]
        if (SEEDS > 0 && kv[1] == "seed") kv[2] = kv[2] + rep - 1   # copy rep: its own seed
        vals = vals ", " (kv[2] ~ /^-?[0-9]+$/ ? kv[2] : q(kv[2]))
    }
    if (J_u[j] != "") { cols = cols ", uparams, code_hash"; vals = vals ", " q(J_u[j]) ", " q(sprintf("%08x%08x", j * 2654435761 % 4294967296, 12345 + j)) }
    cols = cols ", status, reason, warmup, min_samples, max_samples, max_noise, max_seconds, flops, min_bytes"
    vals = vals ", " q(st) ", " (reason == "" ? "NULL" : q(reason)) ", 1, 3, 20, 0.05, 2.0, " num(flops) ", " bytes
    if (st == "ok" || st == "wrong") {
        sd = ms * (0.005 + 0.03 * rnd()); smp = 3 + int(rnd() * 8)
        cols = cols ", samples, median_ms, mean_ms, min_ms, max_ms, stddev_ms, rel_se, max_rel_err"
        vals = vals ", " smp ", " ms ", " ms * 1.003 ", " ms * 0.98 ", " ms * 1.04 ", " sd ", " sd / sqrt(smp) / ms ", " (st == "ok" ? 1e-7 * (1 + rnd()) : 0.031)
        if (gpu) {
            cols = cols ", h2d_ms, d2h_ms"
            vals = vals ", " bytes / 25e6 ", " bytes / 3 / 25e6
        }
        for (i = 0; i < smp; i++) SAMPLES = SAMPLES sprintf("(%d,%d,%.9g),", id, i, ms * (0.98 + 0.06 * rnd()))
    }
    if (gpu && st != "skipped") {
        if (bs == 0) bs = uparam(j, "TILE") + 0; if (bs == 0) bs = 256
        bx = (fam == "vecadd" || fam == "reduction") ? bs : (bs > 32 ? 32 : bs)
        by = (fam == "vecadd" || fam == "reduction") ? 1 : (bs > 32 ? 1 : (fam == "transpose" ? 8 : bs))
        gx = int((n + bx * k - 1) / (bx * k)); if (gx < 1) gx = 1
        gy = by == 1 ? 1 : int((m + by - 1) / by)
        if (fam == "vecadd" && param(j, "g") != "") { gx = param(j, "g") + 0; if (gx == 0) gx = 528 }
        occ = (bx * by >= 64) ? 100 : 50
        cols = cols ", launches, grid_x, grid_y, grid_z, block_x, block_y, block_z, regs_per_thread, static_smem, dynamic_smem, local_bytes, blocks_per_sm, theo_occupancy_pct, limiter, limit_regs, limit_smem, limit_warps, limit_blocks, guide_flags"
        vals = vals ", " (param(j, "grid") == "block" ? gx * gy : (param(j, "grid") == "1d" ? gy : 1)) ", " gx ", " gy ", 1, " bx ", " by ", 1, 32, " (J_variant[j] ~ /shared|tiled/ ? 4 * 2 * bx * by : 0) ", 0, 0, " int(2048 * occ / 100 / (bx * by)) ", " occ ", " q(occ == 100 ? "registers" : "blocks") ", 2, 16, " int(2048 / (bx * by)) ", 32, " (bx * by < 64 ? 4 : 0) + (bx * by < 128 || bx * by > 256 ? 8 : 0) + (gx * gy < 264 ? 1 : 0)
        if (st == "ok" && rnd() < 0.95) {
            cols = cols ", passes"; vals = vals ", 3"
            dr = bytes * (0.7 + 0.5 * rnd()); dw = bytes * 0.3 * (0.9 + 0.2 * rnd())
            METRICS = METRICS sprintf("(%d,'gpu__time_duration.sum',%.9g,'ns'),(%d,'dram__bytes_read.sum',%.9g,'byte'),(%d,'dram__bytes_write.sum',%.9g,'byte'),(%d,'gpulab__dram__bytes_write_drain.sum',%.9g,'byte'),(%d,'l1tex__t_sector_hit_rate.pct',%.4g,'%%'),(%d,'lts__t_sector_hit_rate.pct',%.4g,'%%'),(%d,'sm__warps_active.avg.pct_of_peak_sustained_active',%.4g,'%%'),(%d,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum',%d,NULL),(%d,'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum',%d,NULL),",
                id, ms * 1e6 * 0.97, id, dr, id, dw, id, dw * 0.02, id, 100 * rnd(), id, 40 + 60 * rnd(), id, occ * (0.6 + 0.35 * rnd()),
                id, (J_variant[j] ~ /shared|tiled/ ? int(1e5 * rnd()) : 0), id, (J_variant[j] ~ /shared|tiled/ ? int(1e4 * rnd()) : 0))
        } else if (st == "ok") {
            cols = cols ", metrics_reason"; vals = vals ", 'counters off for this section'"
        }
    }
    printf "INSERT INTO run (%s) VALUES (%s);\n", cols, vals
    nu = split(J_u[j], up, " ")
    for (i = 1; i <= nu; i++) { split(up[i], uv, "="); printf "INSERT INTO run_param (run_id, name, value) VALUES (%d, %s, %d);\n", id, q(uv[1]), uv[2] }
    if (length(SAMPLES) > 4000) flush()
    if (length(METRICS) > 4000) flush()
}
function flush() {
    if (SAMPLES != "") { sub(/,$/, "", SAMPLES); print "INSERT INTO sample VALUES " SAMPLES ";"; SAMPLES = "" }
    if (METRICS != "") { sub(/,$/, "", METRICS); print "INSERT INTO metric VALUES " METRICS ";"; METRICS = "" }
}
END {
    print "BEGIN;"
    print "INSERT INTO device (id, kind, name, ident, cores, l1d_kb, l2_kb, l3_kb) VALUES (1, 'cpu', 'Intel(R) Xeon(R) Processor', 'bench/Intel(R) Xeon(R) Processor', 16, 48, 2048, 307200);"
    print "INSERT INTO device (id, kind, name, ident, cc_major, cc_minor, sm_count, cores_per_sm, clock_khz, mem_clock_khz, mem_bus_bits, mem_bytes, l2_bytes, smem_per_block, smem_per_block_optin, smem_per_sm, regs_per_block, regs_per_sm, warp_size, max_threads_per_block, max_threads_per_sm, max_blocks_per_sm, max_block_x, max_block_y, max_block_z, max_grid_x, max_grid_y, max_grid_z, driver_version, runtime_version, theo_bw_gbs, copy_bw_gbs, fp32_peak_gflops) VALUES"
    print "  (2, 'gpu', 'NVIDIA H100 80GB HBM3', 'GPU-bench-h100', 9, 0, 132, 128, 1980000, 2619000, 5120, 85017493504, 52428800, 49152, 232448, 233472, 65536, 65536, 32, 1024, 2048, 32, 1024, 1024, 64, 2147483647, 65535, 65535, 13000, 13000, 3352.32, 2955.30, 66908.16)" (GPUS > 1 ? "," : ";")
    if (GPUS > 1) print "  (3, 'gpu', 'NVIDIA H200', 'GPU-bench-h200', 9, 0, 132, 128, 1980000, 3201000, 6144, 150754820096, 52428800, 49152, 232448, 233472, 65536, 65536, 32, 1024, 2048, 32, 1024, 1024, 64, 2147483647, 65535, 65535, 13000, 13000, 4917.50, 4211.80, 66908.16);"
    id = 0; sess = 0; rep = 0
    STRIDE = BASE > 0 ? int((njobs + BASE - 1) / BASE) : 1   # every STRIDE-th configuration
    while (id < RUNS && njobs > 0) {
        rep++
        for (c = 1; c <= nconf && id < RUNS; c++) {
            sess++
            printf "INSERT INTO session (id, tool_version, git_revision, host, argv, study, config_path, config_text, config_hash, started_at, ended_at) VALUES (%d, 'gpulab 0.9 (bench)', 'bench%04d', 'bench-host', %s, %s, %s, '# synthetic', '%064d', '2026-11-%02dT%02d:%02d:00.000Z', '2026-11-%02dT%02d:%02d:30.000Z');\n",
                sess, rep, q("gpulab run " confs[c]), q(cstudy[c]), q(confs[c]), sess, 1 + rep % 28, c % 24, sess % 60, 1 + rep % 28, c % 24, sess % 60
            for (j = 1; j <= njobs && id < RUNS; j++) {
                if (J_conf[j] != c) continue
                if (STRIDE > 1 && j % STRIDE != 0) continue
                if (J_state[j] == "run") emit(j, 1, sess)
                else { emit(j, 2, sess); if (GPUS > 1 && id < RUNS) emit(j, 3, sess) }
            }
        }
    }
    flush()
    print "COMMIT;"
}
