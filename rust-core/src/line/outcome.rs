//! What happened to one attempt on a line, and how much it says about the line.

pub use crate::wire::vocabulary::Protocol;

pub use crate::wire::vocabulary::Outcome;

impl Outcome {
    /// Outcomes that say nothing about the line and are never counted against it.
    pub fn is_ignored(self) -> bool {
        matches!(
            self,
            Outcome::LocalNetwork | Outcome::Cancelled | Outcome::StaleConnection
        )
    }

    /// Whether the attempt may be sent again on the *same* line, on a new connection,
    /// without counting as one of the call's tries: a pooled connection that went stale
    /// while idle tells nothing of the line, and every pooled connection of every line
    /// goes stale at once when the device changes network. The bindings still send it
    /// again only when the request may be replayed, once per idle connection left in the
    /// client's pool and once more; a further stale failure moves the call like a line
    /// fault.
    pub fn resends_on_new_connection(self) -> bool {
        self == Outcome::StaleConnection
    }

    /// How strongly a failure counts against a line, in `0.0..=1.0`
    /// (0 for success and ignored outcomes).
    /// DNS > TLS > connect > reset > 5xx = truncated > read timeout > 4xx.
    pub fn failure_weight(self) -> f64 {
        match self {
            Outcome::DnsFailure => 1.0,
            Outcome::TlsFailure => 0.9,
            Outcome::ConnectTimeout | Outcome::ConnectRefused => 0.8,
            Outcome::ConnectionReset => 0.7,
            Outcome::Http5xx | Outcome::Truncated => 0.6,
            Outcome::ReadTimeout => 0.4,
            Outcome::Http4xx => 0.05,
            Outcome::Ok
            | Outcome::LocalNetwork
            | Outcome::Cancelled
            | Outcome::StaleConnection => 0.0,
        }
    }

    /// A fault of the line itself: counts toward its breaker, moves traffic away at once,
    /// and lets the bindings retry the call on the next line (when the request may be
    /// replayed). Connect-side failures and read-side failures after the request was sent
    /// (stall, reset, cut-off response) are line faults. `status` refines `http_5xx`: only
    /// 502/503/504 (or an unknown status) are line faults; a 500 is an application error
    /// served by a healthy line.
    pub fn is_line_fault(self, status: Option<u16>) -> bool {
        match self {
            Outcome::DnsFailure
            | Outcome::TlsFailure
            | Outcome::ConnectTimeout
            | Outcome::ConnectRefused
            | Outcome::ReadTimeout
            | Outcome::ConnectionReset
            | Outcome::Truncated => true,
            Outcome::Http5xx => matches!(status, None | Some(502..=504)),
            _ => false,
        }
    }

    /// A failure after the request was sent, while the response was being read (stall,
    /// reset, cut-off body). A body-less probe cannot see these, so its success does not
    /// clear them for a while (`read_fault_hold_ms`).
    pub fn is_read_side(self) -> bool {
        matches!(
            self,
            Outcome::ReadTimeout | Outcome::ConnectionReset | Outcome::Truncated
        )
    }

    /// Maps an HTTP status to an outcome (`ok` below 400).
    pub fn from_status(status: u16) -> Outcome {
        match status {
            500..=599 => Outcome::Http5xx,
            400..=499 => Outcome::Http4xx,
            _ => Outcome::Ok,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for o in Outcome::ALL {
            assert_eq!(o.as_str().parse::<Outcome>(), Ok(o));
        }
        assert!("bogus".parse::<Outcome>().is_err());
    }

    #[test]
    fn error_weights_are_ordered() {
        use Outcome::*;
        let order = [
            DnsFailure,
            TlsFailure,
            ConnectTimeout,
            ConnectionReset,
            Http5xx,
            ReadTimeout,
            Http4xx,
        ];
        for pair in order.windows(2) {
            assert!(
                pair[0].failure_weight() > pair[1].failure_weight(),
                "{pair:?}"
            );
        }
        assert_eq!(
            ConnectRefused.failure_weight(),
            ConnectTimeout.failure_weight()
        );
        assert_eq!(LocalNetwork.failure_weight(), 0.0);
        assert!(LocalNetwork.is_ignored() && Cancelled.is_ignored() && !Http4xx.is_ignored());
    }

    #[test]
    fn a_stale_pooled_connection_is_resent_and_never_counted() {
        let stale = Outcome::StaleConnection;
        assert_eq!(stale.as_str(), "stale_connection");
        assert!(stale.is_ignored());
        assert!(!stale.is_line_fault(None));
        assert!(!stale.is_read_side());
        assert_eq!(stale.failure_weight(), 0.0);
        assert!(stale.resends_on_new_connection());
        for o in Outcome::ALL.into_iter().filter(|&o| o != stale) {
            assert!(!o.resends_on_new_connection(), "{o}");
        }
    }

    #[test]
    fn only_gateway_5xx_is_a_line_fault() {
        assert!(Outcome::Http5xx.is_line_fault(Some(503)));
        assert!(Outcome::Http5xx.is_line_fault(None));
        assert!(!Outcome::Http5xx.is_line_fault(Some(500)));
        assert!(!Outcome::Http4xx.is_line_fault(Some(404)));
        assert!(Outcome::ConnectRefused.is_line_fault(None));
    }

    #[test]
    fn read_side_failures_are_line_faults_with_their_own_names() {
        for (o, name) in [
            (Outcome::ReadTimeout, "read_timeout"),
            (Outcome::ConnectionReset, "connection_reset"),
            (Outcome::Truncated, "truncated"),
        ] {
            assert!(o.is_line_fault(None), "{o}");
            assert_eq!(o.as_str(), name);
            assert!(o.failure_weight() > Outcome::Http4xx.failure_weight());
        }
        for o in [
            Outcome::Ok,
            Outcome::Http4xx,
            Outcome::LocalNetwork,
            Outcome::Cancelled,
        ] {
            assert!(!o.is_line_fault(None), "{o}");
        }
    }

    #[test]
    fn the_outcome_vocabulary_keeps_its_names() {
        let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
        for n in [
            "ok",
            "http_4xx",
            "http_5xx",
            "connect_timeout",
            "connect_refused",
            "dns_failure",
            "tls_failure",
            "read_timeout",
            "local_network",
            "cancelled",
        ] {
            assert!(names.contains(&n), "{n}");
        }
    }
}
