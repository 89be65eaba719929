-- report/tables/matmul_memory.sql - S1 (study matmul): the three GPU memory kinds side
-- by side for each N, variant and block size: kernel time (median, ms) and the
-- host<->device copies timed apart (h2d / d2h, ms; none for zero-copy, where the
-- kernel reads host memory itself). The fastest kernel of each row is bold; the
-- end-to-end cost is kernel + copies. Newest verified runs only.
WITH t AS (
    SELECT *,
           rank() OVER (PARTITION BY device_id, n, variant, bs ORDER BY median_ms) AS rk,
           lead(median_ms - coalesce(stddev_ms, 0)) OVER (PARTITION BY device_id, n, variant, bs ORDER BY median_ms) AS next_lo
    FROM results
    WHERE study = 'matmul' AND family = 'matmul' AND device_kind = 'gpu'
      AND variant IN ('global', 'shared') AND coalesce(k, 1) = 1
      AND is_latest = 1 AND status = 'ok'
),
f AS (
    SELECT device_id, n, variant, bs, mem,
           CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END
           || CASE WHEN median_ms >= 1000 THEN printf('%.0f', median_ms)
                   ELSE printf('%.4g', median_ms) END
           || CASE WHEN rk = 1 AND contaminated IS NULL AND median_ms + coalesce(stddev_ms, 0) < coalesce(next_lo, 1e300) THEN '**' ELSE '' END AS kernel,
           CASE WHEN h2d_ms IS NULL AND d2h_ms IS NULL THEN '–'
                ELSE CASE WHEN h2d_ms IS NOT NULL THEN printf('%.4g', h2d_ms) ELSE '–' END || ' / '
                     || CASE WHEN d2h_ms IS NOT NULL THEN printf('%.4g', d2h_ms) ELSE '–' END
           END AS copies
    FROM t
)
SELECT n AS "N", variant AS "variant", bs AS "BS",
       max(CASE WHEN mem = 'device' THEN kernel END) AS "device: kernel (ms)",
       max(CASE WHEN mem = 'device' THEN copies END) AS "device: h2d / d2h (ms)",
       max(CASE WHEN mem = 'zerocopy' THEN kernel END) AS "zero-copy: kernel (ms)",
       max(CASE WHEN mem = 'zerocopy' THEN copies END) AS "zero-copy: h2d / d2h (ms)",
       max(CASE WHEN mem = 'managed' THEN kernel END) AS "managed: kernel (ms)",
       max(CASE WHEN mem = 'managed' THEN copies END) AS "managed: h2d / d2h (ms)"
FROM f
GROUP BY device_id, n, variant, bs
ORDER BY n, variant, bs, device_id;
