-- report/tables/_fingerprint.sql - helper for report/report.mk (not a table of the
-- report): a summary of everything the report reads. `gpulab query` rewrites the
-- database file on every open (the views are recreated), so its modification time
-- says nothing; report.mk rebuilds figures only when this fingerprint changes.
SELECT
    (SELECT count(*) || '/' || coalesce(max(id), 0) || '/' || total(median_ms) || '/'
            || total(samples) || '/' || sum(status = 'ok') || '/' || total(coalesce(passes, 0))
            || '/' || total(length(coalesce(reason, '')))
     FROM run) AS runs,
    (SELECT count(*) || '/' || total(value) FROM metric) AS metrics,
    (SELECT count(*) || '/' || coalesce(max(id), 0) || '/' || max(coalesce(ended_at, ''))
            || '/' || group_concat(coalesce(git_revision, ''))
     FROM session) AS sessions,
    (SELECT count(*) || '/' || group_concat(coalesce(name, '') || ':' || coalesce(copy_bw_gbs, '')
            || ':' || coalesce(fp32_peak_gflops, '') || ':' || coalesce(theo_bw_gbs, ''))
     FROM device) AS devices;
