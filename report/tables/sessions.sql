-- report/tables/sessions.sql - the `gpulab run` sessions whose runs are in the
-- report (they hold the newest run of at least one configuration): config, tool
-- version, git revision of the binary, host, start and end time (UTC), and the GPU's
-- clocks: what `--clocks` asked and what gpulab did (locked to base, or why not),
-- and the SM clock NVML reported as the session began (current / maximum, MHz);
-- the host's 1-minute load average as it began, and how many of its reported runs
-- were measured on a busy host (run.contaminated).
-- (the newest runs per session counted once, not once per session)
WITH n AS MATERIALIZED (
    SELECT session_id, count(*) AS runs, count(contaminated) AS busy
    FROM results WHERE is_latest = 1 GROUP BY session_id
)
SELECT s.id AS "session", coalesce(s.study, '') AS "study", coalesce(s.config_path, '') AS "config",
       coalesce(s.tool_version, 'not recorded') AS "gpulab version",
       coalesce(s.git_revision, 'not recorded') AS "git revision",
       coalesce(s.host, 'not recorded') AS "host",
       replace(substr(s.started_at, 1, 19), 'T', ' ') AS "started (UTC)",
       coalesce(replace(substr(s.ended_at, 1, 19), 'T', ' '), 'did not end (killed)') AS "ended (UTC)",
       n.runs AS "runs in this report",
       CASE WHEN s.clocks_asked IS NULL THEN 'not recorded'
            WHEN s.clocks_locked IS NULL THEN s.clocks_asked || ' (no GPU)'
            WHEN s.clocks_locked = 1 THEN s.clocks_asked || ': locked to base'
            ELSE s.clocks_asked || ': ' || coalesce(s.clocks_reason, 'not locked') END
           AS "GPU clocks (--clocks)",
       CASE WHEN s.sm_clock_mhz IS NOT NULL
            THEN s.sm_clock_mhz || ' / ' || coalesce(s.sm_max_clock_mhz, '?')
            ELSE coalesce(s.nvml_reason, '') END AS "SM clock at start / max (MHz, NVML)",
       CASE WHEN s.load1 IS NOT NULL THEN printf('%.2f', s.load1) ELSE 'not recorded' END
           AS "load at start (1 min)",
       n.busy AS "runs on a busy host"
FROM session s JOIN n ON n.session_id = s.id
ORDER BY s.id;
