-- Loads Linekit trace files (JSON Lines, docs/trace-format.md) into `linekit_events`, the
-- flat table the views in views.sql read. DuckDB; set the files first:
--   SET VARIABLE trace_glob = 'uploads/**/*.jsonl';
-- Fields the trace format adds later are ignored here until a column names them; fields an
-- event lacks are NULL. `app_version` is not part of an install's trace: the upload that
-- carried the file stamps it on each line (or load it from the upload's metadata instead).
CREATE OR REPLACE TABLE linekit_events AS
SELECT
    install,
    seq,
    at_ms,
    kind,
    app_version,
    biz,
    protocol,
    line,
    reason,
    method,
    attempt,
    outcome,
    status,
    total_ms,
    mode,
    would_line,
    would_reason,
    would_healthy,
    network.handle AS network_handle,
    network.validated AS network_validated,
    network.transport AS network_transport
FROM read_json(
    getvariable('trace_glob'),
    format = 'newline_delimited',
    columns = {
        install: 'VARCHAR', seq: 'BIGINT', at_ms: 'BIGINT', kind: 'VARCHAR',
        app_version: 'VARCHAR', biz: 'VARCHAR', protocol: 'VARCHAR', line: 'VARCHAR',
        reason: 'VARCHAR', method: 'VARCHAR', attempt: 'INTEGER', outcome: 'VARCHAR',
        status: 'INTEGER', total_ms: 'BIGINT', mode: 'VARCHAR', would_line: 'VARCHAR',
        would_reason: 'VARCHAR', would_healthy: 'BOOLEAN',
        network: 'STRUCT(handle UBIGINT, validated BOOLEAN, transport VARCHAR)'
    }
);
