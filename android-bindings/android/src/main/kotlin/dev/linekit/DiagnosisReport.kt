package dev.linekit

/**
 * The result of [LineKit.diagnose]: what the device saw on the way to each line, redacted
 * like traces (line ids, host groups and addresses; no URLs, paths or tokens).
 *
 * @property json one JSON document: `network` (as the platform reported it, and whether
 *   there was one), `hosts` (system resolver and HTTPDNS answers per host group, with the
 *   addresses the public-address policy refuses), `lines` (per `biz/id`: the first failure
 *   as `result`, per address `tcp_ms`|`tcp_error` and `tls_ms`|`tls_error`, and the probe's
 *   `status`/`ms`, `error` or `skipped`), plus `elapsed_ms` and `timed_out`.
 * @property text the same, readable: for a support ticket or a share sheet.
 */
class DiagnosisReport(val json: String, val text: String) {
    override fun toString(): String = text
}
