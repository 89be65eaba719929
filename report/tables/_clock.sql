-- report/tables/_clock.sql - the clock line under a study's heading (report/build.sh
-- replaces @STUDY@ with the study's name): the SM clock the study's newest verified
-- GPU runs were measured at - the median, lowest and highest sm_clock_mhz of their
-- profiled replays, and how many runs have one - and what their sessions did with
-- the GPU's clocks (`gpulab run --clocks`: locked to base, or left as they were, or
-- not recorded). One row with one column, `line`; no row when the study has no
-- verified GPU run.
WITH g AS MATERIALIZED (
    SELECT run_id, session_id, sm_clock_mhz FROM results
    WHERE study = '@STUDY@' AND device_kind = 'gpu' AND is_latest = 1 AND status = 'ok'
),
c AS (
    SELECT sm_clock_mhz AS v, row_number() OVER (ORDER BY sm_clock_mhz) AS i,
           count(*) OVER () AS n
    FROM g WHERE sm_clock_mhz > 0
),
m AS (
    SELECT (SELECT avg(v) FROM c WHERE i IN ((n + 1) / 2, (n + 2) / 2)) AS med,
           (SELECT min(v) FROM c) AS lo, (SELECT max(v) FROM c) AS hi,
           (SELECT count(*) FROM c) AS n, (SELECT count(*) FROM g) AS runs
),
s AS (
    SELECT count(*) AS sessions,
           count(CASE WHEN s.clocks_locked = 1 THEN 1 END) AS locked,
           count(CASE WHEN s.clocks_asked = 'base' AND s.clocks_locked = 0 THEN 1 END) AS refused,
           count(CASE WHEN s.clocks_asked IS NULL THEN 1 END) AS unknown
    FROM session s WHERE s.id IN (SELECT session_id FROM g)
)
SELECT '*Clock: '
       || CASE WHEN m.n > 0 THEN
              printf('GPU durations in this section were measured at %.0f MHz SM clock (median of '
                     || 'the %d profiled runs that have one, of %d; %.0f–%.0f MHz)', m.med, m.n,
                     m.runs, m.lo, m.hi)
          ELSE printf('the SM clock of these %d GPU runs was not measured (no counters, or runs '
                      || 'of several launches)', m.runs) END
       || '; '
       || CASE WHEN s.locked = s.sessions THEN 'gpulab locked the SM clock to base for them (`--clocks base`)'
               WHEN s.locked > 0 THEN printf('gpulab locked the SM clock to base in %d of their %d '
                                             || 'sessions', s.locked, s.sessions)
               WHEN s.unknown = s.sessions THEN 'their sessions did not record the clock settings'
               WHEN s.refused > 0 THEN 'the clocks were left as they were (`--clocks base` was '
                                       || 'refused: see the sessions table)'
               ELSE 'the clocks were left as they were (`--clocks none`)' END
       || '.*' AS line
FROM m, s
WHERE m.runs > 0;
