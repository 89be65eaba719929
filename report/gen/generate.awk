# report/gen/generate.awk - writes the generated section of each study that has none
# (called by report/gen/generate.sh, which says what comes in and where it goes):
#   studies/NN_<study>.md        the section: heading, a line saying it is generated,
#                                 @table and @figure lines (report/build.sh expands them)
#   tables/<study>_gen_runs.sql  every newest verified run: the parameters that vary
#                                 (built-in and named; constant ones go in the caption),
#                                 the variant, median ± sd, the SM clock of its profiled
#                                 replay (when runs have one), GB/s or GFLOP/s, the default
#                                 counters the runs have (bank conflicts: the exact count,
#                                 the hardware counter beside it where they differ); the
#                                 fastest of each group (same parameters but the variant)
#                                 in bold
#   plots/<study>_gen_by_<P>.*   the main measure against each parameter P that takes
#                                 more than one value: a line per variant (and per value of
#                                 other parameters of at most 3 values while the lines stay
#                                 at most 12), the remaining parameters at their largest value
#                                 on each line; drawn by report/gen/figure.gp
#   plots/<study>_gen_roofline.* the study's GPU runs on the hierarchical roofline of their
#                                 GPU (GFLOP/s against FLOP per byte at each memory level, as
#                                 plots/roofline.sql), or, when the runs have no
#                                 FLOP count, on the bandwidth roof (GB/s against the bytes
#                                 moved, under the measured copy bandwidth); report/gen/roofline.gp
# The main measure is GB/s when most runs have no FLOP count or fewer FLOPs than
# minimum bytes, GFLOP/s when most have more, the median time when neither count is
# known. Input: studies.txt (study, number, config, description, the study's own
# files as kind:name:caption, tab separated), then runs.csv (gpulab query --csv: the
# newest verified runs, parameter columns as -v pcols lists them). Must not know any
# one study or parameter: everything follows from the data. mawk-compatible.

BEGIN {
    NMAXSERIES = 12
    NMAXSPLIT = 3
    npc = split(pcols, PC, " ")
}

# ---- input ------------------------------------------------------------------------
FILENAME ~ /studies\.txt$/ {
    n = split($0, f, "\t")
    s = f[1]
    nst++; ST[nst] = s
    NUM[s] = f[2]; CONF[s] = f[3]; DESC[s] = f[4]; OWN[s] = f[5]
    next
}
FNR == 1 {
    FS = ","
    $0 = $0
    for (i = 1; i <= NF; i++) C[$i] = i
    next
}
{
    s = $C["study"]
    k = ++NR_[s]
    for (name in C) R[s, k, name] = $C[name]
    # named parameters: "BLOCK_ROWS=8 TILE=16"
    nu = split($C["uparams"], u, " ")
    for (i = 1; i <= nu; i++) {
        e = index(u[i], "=")
        if (e == 0) continue
        nm = substr(u[i], 1, e - 1)
        if (!((s, nm) in UNAMED)) { UNAMED[s, nm] = 1; NU[s]++; UN[s, NU[s]] = nm }
        R[s, k, "u:" nm] = substr(u[i], e + 1)
    }
}

# ---- helpers ------------------------------------------------------------------------
function disp(c) { return length(c) <= 2 ? toupper(c) : c }
function sq(t) { gsub(/'/, "''", t); return t }
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
function flop_run(s, k,    fl, mb) {
    fl = R[s, k, "flops"]; mb = R[s, k, "min_bytes"]
    return fl != "" && fl + 0 > 0 && (mb == "" || fl + 0 >= mb + 0)
}
function byte_run(s, k) {
    return !flop_run(s, k) && R[s, k, "min_bytes"] != "" && R[s, k, "min_bytes"] + 0 > 0
}
function val(s, k, d) { return R[s, k, DK[d]] }
# a bank-conflict cell: the exact count, the hardware counter beside it where the
# two differ, or the hardware counter alone (marked hw) where no exact one was measured
function conflicts(ex, hw) {
    return "CASE WHEN " ex " IS NOT NULL THEN printf('%.0f', " ex ") || CASE WHEN " hw \
        " IS NOT NULL AND printf('%.0f', " hw ") <> printf('%.0f', " ex ") THEN printf(' (hw %.0f)', " hw \
        ") ELSE '' END WHEN " hw " IS NOT NULL THEN printf('hw %.0f', " hw ") ELSE '' END"
}
function any(s, col,    k) {
    for (k = 1; k <= NR_[s]; k++) if (R[s, k, col] != "") return 1
    return 0
}
function nvals(s, col,    k, m, t) {
    m = 0; delete T
    for (k = 1; k <= NR_[s]; k++) if (!((R[s, k, col]) in T)) { T[R[s, k, col]] = 1; m++ }
    return m
}
function fmt_num(expr, w) {
    return "CASE WHEN " expr " IS NULL THEN '' WHEN abs(" expr ") >= 1000 THEN printf('%.0f', " expr \
           ") ELSE printf('%." w "g', " expr ") END"
}
function bold(cond, txt) {
    return "CASE WHEN " cond " THEN '**' || " txt " || '**' ELSE " txt " END"
}
# the rows of the series of the figure of dimension x with the split dimensions
# in SPLIT[1..nsplit]: how many lines
function count_series(s, x,    k, key, j, m) {
    m = 0; delete T
    for (k = 1; k <= NR_[s]; k++) {
        if (val(s, k, x) == "") continue
        key = BASEKEY[s, k]
        for (j = 1; j <= nsplit; j++) key = key SUBSEP val(s, k, SPLIT[j])
        if (!(key in T)) { T[key] = 1; m++ }
    }
    return m
}
function put(file, text) { print text > (gen "/" file) }
function done(file) { close(gen "/" file) }

# ---- one study ------------------------------------------------------------------------
function study(s,    k, d, i, j, c, hd, nfig, mfile, tfile, x, sql, cols, ord, part, fixed,
                     cap, what, consts, head, kinds, vname, rname, devs, fams, yexpr, ylabel, mname,
                     second, nflop, nbyte, fig, ownn, own, o, e, ngpu, mode, base, tmp, ceil, clk, best) {
    # dimensions: the built-in parameter columns, then the named parameters by name
    nd = 0
    for (i = 1; i <= npc; i++) { nd++; DK[nd] = PC[i]; DN[nd] = disp(PC[i]); DS[nd] = PC[i] }
    for (i = 1; i <= NU[s]; i++) {
        for (j = i + 1; j <= NU[s]; j++)
            if (UN[s, j] < UN[s, i]) { tmp = UN[s, i]; UN[s, i] = UN[s, j]; UN[s, j] = tmp }
    }
    for (i = 1; i <= NU[s]; i++) {
        nd++; DK[nd] = "u:" UN[s, i]; DN[nd] = UN[s, i]; DS[nd] = "\"u_" UN[s, i] "\""
    }
    consts = ""
    for (d = 1; d <= nd; d++) {
        delete T
        NDIST[d] = 0; NNN[d] = 0; NUM_[d] = 1
        for (k = 1; k <= NR_[s]; k++) {
            v = val(s, k, d)
            if (!(("v" v) in T)) {
                T["v" v] = 1; NDIST[d]++
                if (v != "") { NNN[d]++; if (!isnum(v)) NUM_[d] = 0; ONEVAL[d] = v }
            }
        }
        if (NDIST[d] == 1 && NNN[d] == 1)
            consts = consts (consts == "" ? "" : ", ") DN[d] " = " ONEVAL[d]
    }
    kinds = nvals(s, "device_kind"); devs = nvals(s, "device_id"); fams = nvals(s, "family")
    base = "r.variant"
    if (fams > 1) base = "r.family || '/' || " base
    if (kinds > 1) base = "upper(r.device_kind) || ' ' || " base
    vname = base
    rname = fams > 1 ? "r.family || '/' || r.variant" : "r.variant"
    if (devs > 1) base = base " || ' (device ' || r.device_id || ')'"
    for (k = 1; k <= NR_[s]; k++)
        BASEKEY[s, k] = R[s, k, "variant"] SUBSEP R[s, k, "family"] SUBSEP R[s, k, "device_kind"] \
                        SUBSEP R[s, k, "device_id"]
    nflop = 0; nbyte = 0; ngpu = 0; mode = ""
    for (k = 1; k <= NR_[s]; k++) {
        if (flop_run(s, k)) nflop++; else if (byte_run(s, k)) nbyte++
        if (R[s, k, "device_kind"] == "gpu") {
            ngpu++
            if (flop_run(s, k)) mode = "flop"
            else if (mode == "" && (R[s, k, "min_bytes"] + 0 > 0)) mode = "bw"
        }
    }
    if (nflop > nbyte) {
        mname = "GFLOP/s"; yexpr = "gflops"; ylabel = "GFLOP/s = FLOP / median time"
        second = nbyte > 0 ? "gbs" : ""
    } else if (nbyte > 0) {
        mname = "GB/s"; yexpr = "gbs"; ylabel = "GB/s = minimum bytes moved / median time"
        second = nflop > 0 ? "gflops" : ""
    } else {
        mname = "time"; yexpr = "median_ms"; ylabel = "median time (ms)"; second = ""
    }

    # the common head of every query: the runs, their named parameters as columns
    head = "WITH r AS (\n    SELECT * FROM results\n    WHERE study = '" s "' AND is_latest = 1 AND status = 'ok' AND median_ms > 0\n)"
    if (NU[s] > 0) {
        head = head ",\nu AS (\n    SELECT run_id"
        for (i = 1; i <= NU[s]; i++)
            head = head ",\n           max(CASE WHEN name = '" UN[s, i] "' THEN value END) AS \"u_" UN[s, i] "\""
        head = head "\n    FROM params WHERE study = '" s "' GROUP BY run_id\n)"
    }
    head = head ",\nx AS (\n    SELECT r.*"
    for (i = 1; i <= NU[s]; i++) head = head ", u.\"u_" UN[s, i] "\""
    head = head ",\n           " base " AS base, " vname " AS vname, " rname " AS rname,\n           min(r.run_id) OVER (PARTITION BY r.family, r.variant) AS vord\n    FROM r"
    if (NU[s] > 0) head = head " LEFT JOIN u ON u.run_id = r.run_id"
    head = head "\n)"

    # ---- the table -------------------------------------------------------------------
    part = "device_id"
    for (d = 1; d <= nd; d++) part = part ", " DS[d]
    ord = "device_id"
    for (d = 1; d <= nd; d++) if (NDIST[d] > 1) ord = ord ", " DS[d]
    tfile = "tables/" s "_gen_runs.sql"
    put(tfile, "-- " tfile " - generated by report/gen/generate.sh: every newest verified run of")
    put(tfile, "-- study " s ", the fastest of each group (same parameters but the variant) in bold.")
    put(tfile, head ",\ny AS (\n    SELECT x.*,\n           count(*) OVER (PARTITION BY " part ") AS gsize,")
    put(tfile, "           rank() OVER (PARTITION BY " part " ORDER BY median_ms) AS rk,")
    # the runner-up's interval (median - sd): the best is set in bold only when
    # its own (median + sd) ends below it, and it was not measured on a busy host
    put(tfile, "           lead(median_ms - coalesce(stddev_ms, 0)) OVER (PARTITION BY " part " ORDER BY median_ms) AS next_lo\n    FROM x\n)")
    cols = ""
    if (devs > 1) cols = cols ",\n       device_name || ' (' || device_id || ')' AS \"device\""
    for (d = 1; d <= nd; d++)
        if (NDIST[d] > 1) cols = cols ",\n       coalesce(" DS[d] ", '') AS \"" DN[d] "\""
    cols = cols ",\n       vname AS \"variant\""
    best = "rk = 1 AND gsize > 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < next_lo"
    cols = cols ",\n       " bold(best, \
        "(CASE WHEN median_ms >= 1000 THEN printf('%.0f', median_ms) ELSE printf('%.4g', median_ms) END" \
        " || CASE WHEN stddev_ms IS NOT NULL AND mean_ms > 0 THEN printf(' ± %.1f %%', 100.0 * stddev_ms / mean_ms) ELSE '' END)") \
        " || CASE WHEN contaminated IS NOT NULL THEN ' ‡' ELSE '' END AS \"time (ms, median ± sd)\""
    # the durations' clock: the SM clock of each run's profiled replay
    clk = any(s, "sm_clock_mhz")
    if (clk)
        cols = cols ",\n       CASE WHEN sm_clock_mhz IS NULL THEN '' ELSE printf('%.0f', sm_clock_mhz) END AS \"SM clock (MHz)\""
    if (yexpr != "median_ms")
        cols = cols ",\n       " bold(best " AND " yexpr " IS NOT NULL", "(" fmt_num(yexpr, 4) ")") \
               " AS \"" mname "\""
    if (second == "gbs") cols = cols ",\n       " fmt_num("gbs", 4) " AS \"GB/s\""
    if (second == "gflops") cols = cols ",\n       " fmt_num("gflops", 4) " AS \"GFLOP/s\""
    what = ""; smem = 0
    if (any(s, "achieved_occupancy_pct")) {
        cols = cols ",\n       CASE WHEN achieved_occupancy_pct IS NULL THEN '' ELSE printf('%.1f', achieved_occupancy_pct) END AS \"occupancy (%)\""
        what = what ", achieved occupancy"
    }
    if (any(s, "l1_hit_pct")) {
        cols = cols ",\n       CASE WHEN l1_hit_pct IS NULL THEN '' ELSE printf('%.1f', l1_hit_pct) END AS \"L1 hit (%)\""
        what = what ", L1 hit rate"
    }
    if (any(s, "l2_hit_pct")) {
        cols = cols ",\n       CASE WHEN l2_hit_pct IS NULL THEN '' ELSE printf('%.1f', l2_hit_pct) END AS \"L2 hit (%)\""
        what = what ", L2 hit rate"
    }
    if (any(s, "smem_excess_ld") || any(s, "smem_conflicts_ld")) {
        cols = cols ",\n       " conflicts("smem_excess_ld", "smem_conflicts_ld") " AS \"smem conflicts ld\""
        what = what ", shared-memory bank conflicts of loads"
        smem = 1
    }
    if (any(s, "smem_excess_st") || any(s, "smem_conflicts_st")) {
        cols = cols ",\n       " conflicts("smem_excess_st", "smem_conflicts_st") " AS \"smem conflicts st\""
        what = what ", of stores"
        smem = 1
    }
    if (any(s, "dram_read_bytes")) {
        cols = cols ",\n       " fmt_num("dram_read_bytes / 1e6", 4) " AS \"DRAM read (MB)\""
        what = what ", DRAM bytes read"
    }
    if (any(s, "dram_write_bytes")) {
        cols = cols ",\n       " fmt_num("dram_write_bytes / 1e6", 4) " AS \"DRAM write (MB)\""
        what = what ", DRAM bytes written (as ncu counts them)"
    }
    put(tfile, "SELECT" substr(cols, 2) "\nFROM y\nORDER BY " ord ", vord, base;")
    done(tfile)

    cap = "Study `" s "`: every newest verified run, one row each: median time ± sample standard deviation (% of the mean)"
    if (clk) cap = cap ", the SM clock its profiled replay ran at (sm__cycles_elapsed.avg.per_second; blank: not measured, e.g. runs of several launches)"
    if (mname == "GB/s") cap = cap ", GB/s = minimum bytes moved / median time"
    if (mname == "GFLOP/s" || second == "gflops") cap = cap ", GFLOP/s = FLOP / median time"
    if (second == "gbs") cap = cap ", GB/s = minimum bytes moved / median time"
    if (what != "") cap = cap ", and the hardware counters: " substr(what, 3)
    else cap = cap "; no hardware counters were collected for these runs"
    if (smem) cap = cap ". Bank conflicts are exact: the shared-memory wavefronts beyond the ideal, from " \
        "CUPTI's instrumented SASS counts; (hw N) is the hardware counter where it differs (it also " \
        "counts bank arbitration lost to other L1 traffic), hw N that counter alone where the exact " \
        "count was not measured"
    cap = cap ". The fastest run of each group (the same parameters but the variant" \
          (devs > 1 ? ", on one device" : "") ") is in bold when its interval (median ± sd) " \
          "lies wholly below the runner-up's; ‡ marks a run measured while the host was busy " \
          "(never in bold; the notes say why)"
    if (consts != "") cap = cap "; every run has " consts
    cap = cap "."

    # ---- the section -----------------------------------------------------------------
    mfile = "studies/" NUM[s] "_" s ".md"
    put(mfile, "<!-- " mfile " - generated by report/gen/generate.sh: study " s " has no section of its own -->")
    put(mfile, "## S" NUM[s] " — Study `" s "`" (DESC[s] != "" ? ": " DESC[s] : ""))
    put(mfile, "")
    put(mfile, "*This section is generated: the study has no `report/studies/NN_" s ".md`" \
        (CONF[s] != "-" ? " (its config: `" CONF[s] "`)" : "") \
        ". It shows the study's newest verified runs, its " mname \
        (mname == "time" ? "" : " (its main measure)") \
        " against each parameter that takes more than one value" \
        (ngpu > 0 && mode != "" ? " and its GPU runs on the roofline" : "") ".*")
    put(mfile, "")
    put(mfile, "@table " s "_gen_runs | " cap " | No verified runs of study `" s "`.")

    # ---- a figure per swept parameter --------------------------------------------------
    for (x = 1; x <= nd; x++) {
        if (NNN[x] < 2) continue
        # split the lines by the other swept parameters with few values, fewest first
        nsplit = 0
        for (c = 2; c <= NMAXSPLIT; c++)
            for (d = 1; d <= nd; d++) {
                if (d == x || NNN[d] != c) continue
                nsplit++; SPLIT[nsplit] = d
                if (count_series(s, x) > NMAXSERIES) nsplit--
            }
        fig = s "_gen_by_" DN[x]
        if ((s, fig) in USED) fig = fig "_u"
        USED[s, fig] = 1
        sql = head ",\nf0 AS (\n    SELECT x.*, base"
        for (j = 1; j <= nsplit; j++)
            sql = sql " || coalesce(' " DN[SPLIT[j]] "=' || " DS[SPLIT[j]] ", '')"
        sql = sql " AS series, " yexpr " AS yv\n    FROM x WHERE " DS[x] " IS NOT NULL AND " yexpr " > 0\n)"
        nfix = 0; fixed = ""
        for (d = 1; d <= nd; d++) {
            if (d == x || NDIST[d] < 2) continue
            insplit = 0
            for (j = 1; j <= nsplit; j++) if (SPLIT[j] == d) insplit = 1
            if (insplit) continue
            nfix++
            sql = sql ",\nf" nfix " AS (\n    SELECT * FROM (SELECT *, max(" DS[d] ") OVER (PARTITION BY series) AS fix" nfix \
                  " FROM f" (nfix - 1) ")\n    WHERE " DS[d] " IS fix" nfix "\n)"
            if (NNN[d] > 1) fixed = fixed (fixed == "" ? "" : ", ") DN[d]
        }
        sql = sql "\nSELECT 'all' AS panel, series, " (NUM_[x] ? DS[x] : "dense_rank() OVER (ORDER BY " DS[x] ")") \
              " AS x, yv AS y, " DS[x] " AS label\nFROM f" nfix "\nORDER BY vord, base"
        for (j = 1; j <= nsplit; j++) sql = sql ", " DS[SPLIT[j]]
        sql = sql ", " DS[x] ";"
        put("plots/" fig ".sql", "-- plots/" fig ".sql - generated by report/gen/generate.sh: study " s ", " mname " against " DN[x] ".")
        put("plots/" fig ".sql", "-- Long form: panel, series, x, y, label.")
        put("plots/" fig ".sql", sql)
        done("plots/" fig ".sql")
        o = "plots/" fig ".gp"
        put(o, "# plots/" fig ".gp - generated by report/gen/generate.sh: study " s ", " mname " against " DN[x] ".")
        put(o, "ftitle = '" sq(s ": " mname " against " DN[x]) "'")
        put(o, "xlabel = '" sq(DN[x]) "'")
        put(o, "ylabel = '" sq(ylabel) "'")
        put(o, "xcat = " (NUM_[x] ? 0 : 1))
        put(o, "nodata = '" sq(s ": no verified runs with " DN[x]) "'")
        put(o, "load 'report/gen/figure.gp'")
        done(o)
        cap = "Study `" s "`: " (mname == "time" ? "median time" : mname) " against " DN[x] ", one line per variant"
        for (j = 1; j <= nsplit; j++) cap = cap (j == nsplit ? " and " : ", ") DN[SPLIT[j]]
        if (fixed != "") cap = cap "; on each line " fixed " at " (index(fixed, ",") ? "their" : "its") " largest value"
        cap = cap "."
        if (second != "") cap = cap " Runs without a " (mname == "GB/s" ? "byte" : "FLOP") " count are left out."
        put(mfile, "@figure " fig " | " cap)
    }

    # ---- the roofline ------------------------------------------------------------------
    if (mode != "") {
        fig = s "_gen_roofline"
        sql = head ",\ng AS (\n    SELECT x.*, dense_rank() OVER (ORDER BY vord, base) AS vi FROM x WHERE device_kind = 'gpu'\n)"
        if (mode == "flop") {
            # the hierarchical roofline of plots/roofline.sql, one point per run and level
            sql = sql ",\nc AS MATERIALIZED (\n" \
                "    SELECT m.model_id AS did, avg(u.copy_bw_gbs) AS dram_roof, avg(u.l1_bw_gbs) AS l1_roof,\n" \
                "           avg(u.l2_bw_gbs) AS l2_roof, avg(u.hostlink_bw_gbs) AS hostlink_roof\n" \
                "    FROM device_model m JOIN device u ON u.id = m.device_id GROUP BY m.model_id\n)," \
                "\nh AS (\n    SELECT g.*, d.name || ' (device ' || d.id || ')' AS panel, d.fp32_peak_gflops AS peak_gflops,\n" \
                "           c.l1_roof, c.l2_roof, c.dram_roof, c.hostlink_roof\n" \
                "    FROM g JOIN device d ON d.id = g.device_id JOIN c ON c.did = g.device_id WHERE gflops > 0\n)"
            ceil = "peak_gflops, l1_roof, l2_roof, dram_roof, hostlink_roof"
            sql = sql "\nSELECT * FROM (\n" \
                "    SELECT panel, 'L1' AS series, l1_flop_per_byte AS x, gflops AS y, rname AS variant, 1 AS level, vi, " ceil "\n" \
                "    FROM h WHERE l1_flop_per_byte > 0\n" \
                "    UNION ALL SELECT panel, 'L2', l2_flop_per_byte, gflops, rname, 2, vi, " ceil "\n" \
                "    FROM h WHERE l2_flop_per_byte > 0\n" \
                "    UNION ALL SELECT panel, 'DRAM', measured_flop_per_byte, gflops, rname, 3, vi, " ceil "\n" \
                "    FROM h WHERE coalesce(offchip_level, 'dram') = 'dram' AND measured_flop_per_byte > 0\n" \
                "    UNION ALL SELECT panel, 'host link', hostlink_flop_per_byte, gflops, rname, 4, vi, " ceil "\n" \
                "    FROM h WHERE offchip_level = 'hostlink' AND hostlink_flop_per_byte > 0\n" \
                "    UNION ALL SELECT panel, 'analytic', flops / min_bytes, gflops, rname, 5, vi, " ceil "\n" \
                "    FROM h WHERE measured_flop_per_byte IS NULL AND l1_flop_per_byte IS NULL\n" \
                "      AND hostlink_flop_per_byte IS NULL AND flops / min_bytes > 0\n" \
                ")\nORDER BY panel, vi, level, x;"
            cap = "Study `" s "` on the hierarchical roofline of each GPU: every verified GPU run with a FLOP count at its GFLOP/s and its arithmetic intensity at each memory level it has counters for (FLOP per L1, L2 and DRAM byte; per host-link byte instead of DRAM for zero-copy runs), one colour per level, one shape per variant, under the FP32 peak and the measured roof of each level; grey: runs without counters, at FLOP per minimum byte."
        } else {
            sql = sql "\nSELECT d.name || ' (device ' || d.id || ')' AS panel,\n" \
                "       rname || ' (measured DRAM bytes)' AS series, min_bytes / 1e6 AS x, dram_gbs AS y, vi,\n" \
                "       1 AS measured, d.fp32_peak_gflops AS peak_gflops, d.copy_bw_gbs AS bw_gbs\n" \
                "FROM g JOIN device d ON d.id = g.device_id WHERE dram_gbs > 0 AND min_bytes > 0\n" \
                "UNION ALL\n" \
                "SELECT d.name || ' (device ' || d.id || ')', rname || ' (analytic bytes)', min_bytes / 1e6, gbs, vi,\n" \
                "       0, d.fp32_peak_gflops, d.copy_bw_gbs\n" \
                "FROM g JOIN device d ON d.id = g.device_id WHERE gbs > 0\n" \
                "ORDER BY panel, vi, measured DESC, x;"
            cap = "Study `" s "` on the bandwidth roof of each GPU: its runs have no FLOP count (arithmetic intensity 0), so the roof is the measured copy bandwidth; every verified GPU run against the bytes it must move, with its effective bandwidth (open points: minimum bytes / median time) and its measured DRAM bandwidth (filled points: DRAM bytes read and written / kernel time)."
        }
        put("plots/" fig ".sql", "-- plots/" fig ".sql - generated by report/gen/generate.sh: study " s " on the roofline (" mode ").")
        put("plots/" fig ".sql", "-- Long form: " (mode == "flop" ? "panel, series (the level), x, y, variant, level, vi (variant index), peak_gflops, l1_roof, l2_roof, dram_roof, hostlink_roof." : "panel, series, x, y, vi (variant index), measured, peak_gflops, bw_gbs."))
        put("plots/" fig ".sql", sql)
        done("plots/" fig ".sql")
        o = "plots/" fig ".gp"
        put(o, "# plots/" fig ".gp - generated by report/gen/generate.sh: study " s " on the roofline (" mode ").")
        put(o, "mode = '" mode "'")
        put(o, "study = '" sq(s) "'")
        put(o, "load 'report/gen/roofline.gp'")
        done(o)
        put(mfile, "@figure " fig " | " cap)
    }

    # ---- the study's own tables and figures ------------------------------------------------
    ownn = split(OWN[s], own, "\t")
    for (i = 1; i <= ownn; i++) {
        if (own[i] == "") continue
        e = index(own[i], ":"); kind = substr(own[i], 1, e - 1); rest = substr(own[i], e + 1)
        e = index(rest, ":"); name = substr(rest, 1, e - 1); c = substr(rest, e + 1)
        if (kind == "table") put(mfile, "@table " name " | " c ". | No rows.")
        else put(mfile, "@figure " name " | " c ".")
    }
    done(mfile)
}

# a study without verified runs: the heading and the line saying it is generated;
# report/build.sh adds the "no data" line
function empty_study(s,    mfile, ownn, own, i, e, kind, rest, name, c) {
    mfile = "studies/" NUM[s] "_" s ".md"
    put(mfile, "<!-- " mfile " - generated by report/gen/generate.sh: study " s " has no section of its own -->")
    put(mfile, "## S" NUM[s] " — Study `" s "`" (DESC[s] != "" ? ": " DESC[s] : ""))
    put(mfile, "")
    put(mfile, "*This section is generated: the study has no `report/studies/NN_" s ".md`" \
        (CONF[s] != "-" ? " (its config: `" CONF[s] "`)" : "") ".*")
    ownn = split(OWN[s], own, "\t")
    for (i = 1; i <= ownn; i++) {
        if (own[i] == "") continue
        e = index(own[i], ":"); kind = substr(own[i], 1, e - 1); rest = substr(own[i], e + 1)
        e = index(rest, ":"); name = substr(rest, 1, e - 1); c = substr(rest, e + 1)
        if (kind == "table") put(mfile, "@table " name " | " c ". | No rows.")
        else put(mfile, "@figure " name " | " c ".")
    }
    done(mfile)
}

END {
    for (i = 1; i <= nst; i++) {
        if (NR_[ST[i]] > 0) study(ST[i])
        else empty_study(ST[i])
    }
}
