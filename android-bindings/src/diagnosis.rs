//! The network diagnosis over UniFFI (control plane): [`NativeLineKit::diagnosis`] asks
//! the core what to measure and returns a [`DiagnosisSession`] holding that plan; Kotlin
//! measures (system resolver, TCP, TLS, probes through the independent transport) and hands
//! the results to [`DiagnosisSession::report`] as the core's own
//! [`Observations`](core::Observations) record, which the core renders into the redacted
//! JSON and text report ([`Rendered`](core::Rendered)). Those records and each line's
//! [`LinePlan`](core::LinePlan) are declared once, in the core, with their UniFFI derive;
//! the plan around them is a view of the core's: the hosts with their HTTPDNS addresses as
//! text, each line with its key, and whether there is a network to measure at all.

use crate::error::LineKitError;
use crate::native::NativeLineKit;
use linekit_core::diagnose as core;
use linekit_core::LineKit;
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

/// One line to measure: the core's plan of it, and the key its results refer to.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct DiagnosisLine {
    /// [`LinePlan::key`](core::LinePlan::key): `biz/id`.
    pub key: String,
    /// Where to connect and what to probe.
    pub plan: core::LinePlan,
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

/// One diagnosis in progress: the core's plan, and the engine that renders the report.
#[derive(uniffi::Object)]
pub struct DiagnosisSession {
    engine: Arc<LineKit>,
    plan: core::DiagnosisPlan,
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
                plan: l.clone(),
            })
            .collect(),
    }
}

#[uniffi::export]
impl DiagnosisSession {
    /// What to measure.
    pub fn plan(&self) -> DiagnosisPlan {
        plan_record(&self.plan)
    }

    /// Renders the report from what was measured.
    pub fn report(&self, measurements: core::Observations) -> core::Rendered {
        self.engine.diagnosis_report(&self.plan, &measurements)
    }
}

#[uniffi::export]
impl NativeLineKit {
    /// Starts a diagnosis of business line `biz` (all of them for `None`): the plan takes
    /// its probes from the global probe budget.
    pub fn diagnosis(&self, biz: Option<String>) -> Result<Arc<DiagnosisSession>, LineKitError> {
        let engine = self.engine()?;
        let plan = engine.diagnosis_plan(biz.as_deref())?;
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
        assert!(!plan.lines[0].plan.probe_allowed, "no transport: no probe");
        let text = session.report(core::Observations {
            hosts: vec![],
            addresses: vec![core::AddressObservation {
                line: "spot/a".into(),
                addr: "127.0.0.1".parse().unwrap(),
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
