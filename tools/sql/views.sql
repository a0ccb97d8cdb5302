-- Fleet views over Linekit traces: the failure rate, the moves and the counterfactual savings
-- of an observe-mode rollout, per line, network type and app version.
--
-- They read one table, `linekit_events` (load_duckdb.sql builds it on DuckDB;
-- docs/fleet-analysis.md has the ClickHouse table), and use only SQL that DuckDB and
-- ClickHouse share: window functions, ASOF JOIN, CASE. On ClickHouse run them with
-- `SET join_use_nulls = 1` so a missing report or network reads as NULL.

-- One row per routed attempt: the route that put it on a line, the report it got, and the
-- network it ran on. A report belongs to the oldest attempt on its line that has none (the
-- rule `linekit replay --from-trace` uses), which within one install, pool and line is the
-- attempt of the same rank.
CREATE OR REPLACE VIEW linekit_attempts AS
WITH routes AS (
    SELECT install, seq, at_ms, app_version, biz, protocol, line, reason, attempt,
           coalesce(mode, 'on') AS mode, would_line, would_reason, would_healthy,
           row_number() OVER (PARTITION BY install, biz, protocol, line ORDER BY seq) AS n
    FROM linekit_events
    WHERE kind = 'route' AND line IS NOT NULL
),
reports AS (
    SELECT install, biz, protocol, line, outcome, status, total_ms,
           row_number() OVER (PARTITION BY install, biz, protocol, line ORDER BY seq) AS n
    FROM linekit_events
    WHERE kind = 'report' AND line IS NOT NULL
),
networks AS (
    SELECT install, seq, network_transport
    FROM linekit_events
    WHERE kind = 'network'
)
SELECT routes.install AS install, routes.seq AS seq, routes.at_ms AS at_ms,
       routes.app_version AS app_version, routes.biz AS biz, routes.protocol AS protocol,
       routes.line AS line, routes.reason AS reason, routes.attempt AS attempt,
       routes.mode AS mode, routes.would_line AS would_line,
       routes.would_reason AS would_reason, routes.would_healthy AS would_healthy,
       reports.outcome AS outcome, reports.status AS status, reports.total_ms AS total_ms,
       coalesce(networks.network_transport, 'unknown') AS network_type,
       CASE WHEN reports.outcome IS NULL THEN NULL
            WHEN reports.outcome IN ('ok', 'http_4xx', 'cancelled') THEN 0
            ELSE 1 END AS failed,
       CASE WHEN reports.outcome IN ('connect_timeout', 'connect_refused', 'dns_failure',
                                     'tls_failure', 'read_timeout', 'connection_reset',
                                     'truncated') THEN 1
            WHEN reports.outcome = 'http_5xx'
                 AND (reports.status IS NULL OR reports.status IN (502, 503, 504)) THEN 1
            ELSE 0 END AS line_fault
FROM routes
LEFT JOIN reports
    ON routes.install = reports.install AND routes.biz = reports.biz
   AND routes.protocol = reports.protocol AND routes.line = reports.line
   AND routes.n = reports.n
ASOF LEFT JOIN networks
    ON routes.install = networks.install AND routes.seq >= networks.seq;

-- Failure rate of the attempts each line served.
CREATE OR REPLACE VIEW linekit_failure_rate AS
SELECT line, network_type, app_version,
       count(*) AS attempts,
       sum(CASE WHEN outcome IS NULL THEN 0 ELSE 1 END) AS reported,
       sum(coalesce(failed, 0)) AS failed,
       sum(line_fault) AS line_faults,
       CASE WHEN sum(CASE WHEN outcome IS NULL THEN 0 ELSE 1 END) = 0 THEN NULL
            ELSE sum(coalesce(failed, 0)) * 1.0
                 / sum(CASE WHEN outcome IS NULL THEN 0 ELSE 1 END) END AS failure_rate
FROM linekit_attempts
GROUP BY line, network_type, app_version;

-- Moves onto each line: calls whose first attempt went to another line than the pool's
-- previous call on that install (switches), and in-call retries that landed on it.
CREATE OR REPLACE VIEW linekit_moves AS
WITH calls AS (
    SELECT install, seq, line, network_type, app_version, attempt,
           lag(line) OVER (PARTITION BY install, biz, protocol, attempt = 0 ORDER BY seq)
               AS previous_line
    FROM linekit_attempts
)
SELECT line, network_type, app_version,
       sum(CASE WHEN attempt = 0 AND previous_line IS NOT NULL AND previous_line <> line
                THEN 1 ELSE 0 END) AS switches_in,
       sum(CASE WHEN attempt > 0 THEN 1 ELSE 0 END) AS retries_in
FROM calls
GROUP BY line, network_type, app_version;

-- What switching on would have done for observe-mode traffic: first attempts that failed on
-- their original line with a line fault while the engine would have sent them elsewhere.
-- `saved_known` counts those whose would-be line was known healthy at the time (from its
-- probes and its other traffic); `saved_unverified` those where nothing was known of it, so
-- the saving is inferred, not evidenced.
CREATE OR REPLACE VIEW linekit_savings AS
SELECT line, network_type, app_version,
       count(*) AS observed_calls,
       sum(coalesce(failed, 0)) AS failed,
       sum(CASE WHEN would_line IS NOT NULL AND would_line <> line THEN 1 ELSE 0 END)
           AS would_move,
       sum(CASE WHEN line_fault = 1 AND would_line IS NOT NULL AND would_line <> line
                     AND would_healthy THEN 1 ELSE 0 END) AS saved_known,
       sum(CASE WHEN line_fault = 1 AND would_line IS NOT NULL AND would_line <> line
                     AND NOT coalesce(would_healthy, false) THEN 1 ELSE 0 END)
           AS saved_unverified
FROM linekit_attempts
WHERE mode = 'observe' AND attempt = 0
GROUP BY line, network_type, app_version;
