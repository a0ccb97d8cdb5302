//! The network diagnosis over UniFFI (control plane): [`NativeLineKit::diagnosis`] asks
//! the core what to measure and returns a [`DiagnosisSession`] holding that plan; Kotlin
//! measures (system resolver, TCP, TLS, probes through the independent transport) and hands
//! the results to [`DiagnosisSession::report`], which the core renders into the redacted
//! JSON and text report. Addresses cross as text; ones that do not parse are dropped.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::diagnose as core;
use linekit_core::LineKit;
use std::net::IpAddr;
use std::sync::Arc;

/// One host the lines connect to.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisHost {
    /// Host name or IP literal.
    pub host: String,
    /// Whether it is an IP literal (nothing to resolve).
    pub literal: bool,
    /// Addresses the HTTPDNS cache holds for it (tried as well as the system's).
    pub httpdns: Vec<String>,
}

/// One line to measure.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisLine {
    /// `biz/id`: the key results refer to.
    pub key: String,
    /// Host name or IP literal to connect to.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Whether the connection uses TLS (handshake with this host name as SNI).
    pub tls: bool,
    /// Probe URL: the line's own origin plus `detect_path` (never routed).
    pub probe_url: String,
    /// Probe method.
    pub probe_method: String,
    /// Whether the probe budget granted a probe.
    pub probe_allowed: bool,
}

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisPlan {
    /// `false` when the platform reported no network: measure nothing.
    pub network_available: bool,
    /// Timeout of one probe.
    pub probe_timeout_ms: u64,
    /// Hosts to resolve.
    pub hosts: Vec<DiagnosisHost>,
    /// Lines to connect to and probe.
    pub lines: Vec<DiagnosisLine>,
}

/// The system resolver's answer for one host.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HostAnswer {
    /// [`DiagnosisHost::host`].
    pub host: String,
    /// Addresses.
    pub addresses: Vec<String>,
    /// Failure code (`dns_failure`, `timeout`).
    pub error: Option<String>,
    /// Time taken.
    pub ms: Option<u64>,
}

/// TCP and TLS to one address of one line.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct AddressCheck {
    /// [`DiagnosisLine::key`].
    pub line: String,
    /// Address.
    pub addr: String,
    /// Connect time.
    pub tcp_ms: Option<u64>,
    /// Connect failure code (`connect_refused`, `connect_timeout`, `no_route`, `timeout`).
    pub tcp_error: Option<String>,
    /// Handshake time.
    pub tls_ms: Option<u64>,
    /// Handshake failure code (`tls_failure (ExceptionClass)`, `timeout`).
    pub tls_error: Option<String>,
}

/// The probe of one line.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ProbeCheck {
    /// [`DiagnosisLine::key`].
    pub line: String,
    /// HTTP status.
    pub status: Option<u16>,
    /// Time taken.
    pub ms: Option<u64>,
    /// Failure code when no response arrived.
    pub error: Option<String>,
}

/// Everything measured.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisMeasurements {
    /// System resolver answers.
    pub hosts: Vec<HostAnswer>,
    /// TCP/TLS checks.
    pub addresses: Vec<AddressCheck>,
    /// Probes.
    pub probes: Vec<ProbeCheck>,
    /// Wall time of the whole diagnosis.
    pub elapsed_ms: u64,
    /// Whether the deadline cut measurements short.
    pub timed_out: bool,
}

/// The rendered report.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisText {
    /// One JSON document.
    pub json: String,
    /// The same, readable.
    pub text: String,
}

/// One diagnosis in progress: the core's plan, and the engine that renders the report.
#[derive(uniffi::Object)]
pub struct DiagnosisSession {
    engine: Arc<LineKit>,
    plan: core::DiagnosisPlan,
}

fn ips(list: &[String]) -> Vec<IpAddr> {
    list.iter().filter_map(|a| a.parse().ok()).collect()
}

/// The plan as Kotlin sees it.
pub fn plan_record(plan: &core::DiagnosisPlan) -> DiagnosisPlan {
    DiagnosisPlan {
        network_available: plan.network_available(),
        probe_timeout_ms: plan.probe_timeout_ms,
        hosts: plan
            .hosts
            .iter()
            .map(|h| DiagnosisHost {
                host: h.host.clone(),
                literal: h.httpdns_source == "literal",
                httpdns: h.httpdns.iter().map(ToString::to_string).collect(),
            })
            .collect(),
        lines: plan
            .lines
            .iter()
            .map(|l| DiagnosisLine {
                key: l.key(),
                host: l.host.clone(),
                port: l.port,
                tls: l.tls,
                probe_url: l.probe_url.clone(),
                probe_method: l.probe_method.clone(),
                probe_allowed: l.probe_allowed,
            })
            .collect(),
    }
}

/// The measurements as the core sees them.
pub fn observations(m: DiagnosisMeasurements) -> core::Observations {
    core::Observations {
        hosts: m
            .hosts
            .into_iter()
            .map(|h| core::HostObservation {
                addresses: ips(&h.addresses),
                host: h.host,
                error: h.error,
                ms: h.ms,
            })
            .collect(),
        addresses: m
            .addresses
            .into_iter()
            .filter_map(|a| {
                Some(core::AddressObservation {
                    addr: a.addr.parse().ok()?,
                    line: a.line,
                    tcp_ms: a.tcp_ms,
                    tcp_error: a.tcp_error,
                    tls_ms: a.tls_ms,
                    tls_error: a.tls_error,
                })
            })
            .collect(),
        probes: m
            .probes
            .into_iter()
            .map(|p| core::ProbeObservation {
                line: p.line,
                status: p.status,
                ms: p.ms,
                error: p.error,
            })
            .collect(),
        elapsed_ms: m.elapsed_ms,
        timed_out: m.timed_out,
    }
}

#[uniffi::export]
impl DiagnosisSession {
    /// What to measure.
    pub fn plan(&self) -> DiagnosisPlan {
        plan_record(&self.plan)
    }

    /// Renders the report from what was measured.
    pub fn report(&self, measurements: DiagnosisMeasurements) -> DiagnosisText {
        let r = self
            .engine
            .diagnosis_report(&self.plan, &observations(measurements));
        DiagnosisText {
            json: r.json,
            text: r.text,
        }
    }
}

#[uniffi::export]
impl NativeLineKit {
    /// Starts a diagnosis of business line `biz` (all of them for `None`): the plan takes
    /// its probes from the global probe budget.
    pub fn diagnosis(&self, biz: Option<String>) -> Result<Arc<DiagnosisSession>, LineKitError> {
        let engine = self.engine()?;
        let plan = engine.diagnosis_plan(biz.as_deref()).ok_or_else(|| {
            LineKitError::InvalidArgument("unknown business line for a diagnosis".to_string())
        })?;
        Ok(Arc::new(DiagnosisSession { engine, plan }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_plans_and_renders_through_the_core() {
        let kit = NativeLineKit::from_json(
            r#"{"version":1,"allow_cleartext":true,"biz_lines":{"spot":{
                "http":[{"id":"a","url":"http://127.0.0.1:9"}]}}}"#
                .into(),
        )
        .expect("valid config");
        let session = kit.diagnosis(Some("spot".into())).expect("known biz");
        let plan = session.plan();
        assert_eq!(plan.lines[0].key, "spot/a");
        assert!(plan.hosts[0].literal);
        assert!(!plan.lines[0].probe_allowed, "no transport: no probe");
        let text = session.report(DiagnosisMeasurements {
            hosts: vec![],
            addresses: vec![AddressCheck {
                line: "spot/a".into(),
                addr: "127.0.0.1".into(),
                tcp_ms: None,
                tcp_error: Some("connect_refused".into()),
                tls_ms: None,
                tls_error: None,
            }],
            probes: vec![],
            elapsed_ms: 3,
            timed_out: false,
        });
        assert!(
            text.json.contains("\"tcp_error\":\"connect_refused\""),
            "{}",
            text.json
        );
        assert!(kit.diagnosis(Some("nope".into())).is_err());
    }
}
