//! The integration tests of linekit-tools, one module per capability, linked into one test
//! binary (test names are `module::test`): the engine driven through replay scenarios
//! (`tests/scenarios/`), what-if replays of traces, and the `linekit` command in-process
//! and as a process. Helpers live in `tests/support/` (some included from
//! linekit-core's).

#[path = "../support/mod.rs"]
mod support;

mod cli_config;
mod cli_dns;
mod cli_httpdns_auth;
mod cli_process;
mod cli_replay;
mod cli_secret_scan;
mod cli_signing;
mod cli_whatif;
mod consent_replay;
mod counterfactual_replay;
mod detect_replay;
mod httpdns_production;
mod httpdns_replay;
mod probe_expect_replay;
mod read_fault_hold_replay;
mod read_fault_switch_replay;
mod read_side_faults;
mod remote_replay;
mod replay_limits;
mod replay_outage;
mod rollout_replay;
mod slow_switch_replay;
mod trace_format;
mod version_replay;
mod whatif_replay;
mod ws_replay;
