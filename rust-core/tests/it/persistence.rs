//! Persistence (`docs/architecture.md#persistence`) in virtual time: line statistics and HTTPDNS records
//! survive a restart; truncated, bit-flipped, foreign-version and unwritable files leave
//! the engine working with a log line; stale or future records are never served; a crash
//! between write and rename keeps the previous file; older data never overwrites newer;
//! the load happens off the request path.

use crate::support;

use linekit_core::clock::ManualClock;
use linekit_core::config::model::HttpDnsConfig;
use linekit_core::dns::{
    ConnectError, DnsCache, DnsSettings, HostAnswer, PersistedDns, PersistedRecord, Source,
};
use linekit_core::engine::{LineKit, Report, RouteRequest, RuntimeMode, FLUSH_DELAY_MS};
use linekit_core::error::Error;
use linekit_core::line::Outcome;
use linekit_core::net::NetworkKey;
use linekit_core::store::state::{
    decode_state, SaveOutcome, StateBody, StateStore, MAX_STATE_BYTES, STATE_FILE,
};
use linekit_core::store::{encode_checked, temp_path};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::temp::TempDir;

fn capture_logs() {
    support::logs::capture(log::LevelFilter::Info);
}

fn logged(needle: &str) -> usize {
    support::logs::lines()
        .iter()
        .filter(|m| m.contains(needle))
        .count()
}

// ---- fixtures -----------------------------------------------------------------------

/// The state file inside `dir`.
fn state_file(dir: &TempDir) -> PathBuf {
    dir.path().join(STATE_FILE)
}

const CONFIG: &str = r#"{"version": 1, "biz_lines": {"spot": {"match": ["api.example.com"],
    "http": [{"id": "a", "url": "https://a.example.com"},
             {"id": "b", "url": "https://b.example.com"}]}}}"#;

const WALL0: u64 = 1_700_000_000_000;

fn engine(dir: &Path, clock: &ManualClock) -> LineKit {
    LineKit::builder()
        .config_json(CONFIG)
        .storage_dir(dir)
        .clock(Arc::new(clock.clone()))
        .runtime_mode(RuntimeMode::Manual)
        .seed(7)
        .build()
        .expect("engine builds")
}

fn line_of(kit: &LineKit) -> String {
    let d = kit.route(&RouteRequest::new("https://api.example.com/x", "GET"));
    d.line.map(|l| l.to_string()).unwrap_or_default()
}

/// Breaks line `a` (breaker open), serves from `b`, and lets the debounced flush run.
fn learn_and_flush(kit: &LineKit, clock: &ManualClock) {
    assert_eq!(line_of(kit), "a", "config order before anything is known");
    for _ in 0..3 {
        kit.report(&Report::new("spot", "a", Outcome::ConnectTimeout, 900));
    }
    for _ in 0..4 {
        kit.report(&Report::new("spot", "b", Outcome::Ok, 80));
    }
    clock.advance(FLUSH_DELAY_MS);
    kit.run_due();
}

/// A pool snapshot without the sticky marker (a restart does not carry it).
fn ranked(kit: &LineKit) -> serde_json::Value {
    let mut v = serde_json::to_value(kit.pools()).expect("json");
    for line in v["spot/http"].as_array_mut().expect("pool") {
        line["current"] = serde_json::Value::Null;
    }
    v
}

/// A first process on `dir` (monotonic clock at 10,000 s, wall clock at [`WALL0`]): it
/// runs its first task, then [`learn_and_flush`].
fn learned(dir: &Path) -> (LineKit, ManualClock) {
    let clock = ManualClock::new(10_000_000, WALL0);
    let kit = engine(dir, &clock);
    kit.run_due();
    learn_and_flush(&kit, &clock);
    (kit, clock)
}

/// A fresh storage dir `linekit-{name}-…` holding the state a [`learned`] process flushed
/// before it closed.
fn flushed_state(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let (kit, _) = learned(dir.path());
    kit.close();
    dir
}

fn restarted(dir: &Path, mono: u64, wall: u64) -> (LineKit, ManualClock) {
    let clock = ManualClock::new(mono, wall);
    let kit = engine(dir, &clock);
    kit.run_due();
    (kit, clock)
}

// ---- round trip ---------------------------------------------------------------------

#[test]
fn line_stats_survive_a_restart_and_rank_the_same() {
    let dir = TempDir::new("roundtrip");
    let (kit, _) = learned(dir.path());
    assert!(
        state_file(&dir).is_file(),
        "the debounced flush wrote the file"
    );
    let before = ranked(&kit);
    assert_eq!(before["spot/http"][1]["breaker"], "open");
    kit.close();

    // A new process: its monotonic clock starts elsewhere, the wall clock moved 1 s.
    let (kit2, _) = restarted(dir.path(), 5_000_000, WALL0 + FLUSH_DELAY_MS + 1_000);
    // The same ranking, counts, breaker and history; one second of the cooldown passed.
    assert_eq!(ranked(&kit2), before);
    assert_eq!(line_of(&kit2), "b");
}

#[test]
fn load_happens_off_the_request_path() {
    let dir = flushed_state("offpath");

    let clock2 = ManualClock::new(5_000_000, WALL0 + 3_000);
    let kit2 = engine(dir.path(), &clock2);
    // build() did not read the state: routing works from the config meanwhile.
    assert_eq!(line_of(&kit2), "a");
    assert!(kit2.pools()["spot/http"].lines.iter().all(|l| !l.used));
    assert_eq!(kit2.run_due(), 1, "the load is the first runtime task");
    assert_eq!(line_of(&kit2), "b");
}

#[test]
fn a_changed_line_url_or_an_old_window_is_not_restored() {
    let dir = flushed_state("changed");

    // Line b moved to another origin: it starts fresh, line a keeps its open breaker.
    let moved = CONFIG.replace("https://b.example.com", "https://b2.example.com");
    let clock2 = ManualClock::new(5_000_000, WALL0 + 3_000);
    let kit2 = LineKit::builder()
        .config_json(moved)
        .storage_dir(dir.path())
        .clock(Arc::new(clock2.clone()))
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .expect("engine");
    kit2.run_due();
    let pool = &kit2.pools()["spot/http"];
    let b = pool.lines.iter().find(|l| l.id == "b").expect("b");
    let a = pool.lines.iter().find(|l| l.id == "a").expect("a");
    assert!(!b.used && b.successes == 0);
    assert_eq!(a.breaker, "open");
    kit2.close();

    // Ten minutes later (window 5 min, cooldown 30 s): history stays, counts and breaker
    // are gone.
    let (kit3, _) = restarted(dir.path(), 5_000_000, WALL0 + 600_000);
    let pool = &kit3.pools()["spot/http"];
    assert!(pool
        .lines
        .iter()
        .all(|l| l.used && l.successes + l.failures == 0 && l.breaker == "closed"));
}

#[test]
fn a_clock_moved_back_restores_nothing() {
    let dir = flushed_state("clockback");

    let (kit2, _) = restarted(dir.path(), 5_000_000, WALL0 - 60_000);
    assert!(kit2.pools()["spot/http"].lines.iter().all(|l| !l.used));
    assert_eq!(line_of(&kit2), "a");
}

// ---- bad files ----------------------------------------------------------------------

/// Writes a good state file, lets `damage` change it, and restarts on it.
fn restart_on_damaged(name: &str, damage: impl FnOnce(&Path)) -> (TempDir, LineKit) {
    let dir = flushed_state(name);
    damage(&state_file(&dir));
    capture_logs();
    let (kit2, _) = restarted(dir.path(), 5_000_000, WALL0 + 3_000);
    (dir, kit2)
}

fn assert_started_empty_and_works(kit: &LineKit, dir: &TempDir, clock_wall: u64) {
    assert_eq!(logged("ignoring the persisted state"), 1);
    assert!(kit.pools()["spot/http"].lines.iter().all(|l| !l.used));
    assert_eq!(line_of(kit), "a");
    // Still working: new data is learned and replaces the bad file.
    kit.report(&Report::new("spot", "a", Outcome::Ok, 50));
    kit.close();
    let body = StateStore::new(dir.path()).load().expect("good file again");
    assert!(body.is_some_and(|b| b.saved_wall_ms == clock_wall));
}

#[test]
fn a_truncated_file_is_logged_and_ignored() {
    let (dir, kit) = restart_on_damaged("truncated", |path| {
        let bytes = std::fs::read(path).expect("read");
        std::fs::write(path, &bytes[..bytes.len() / 2]).expect("truncate");
    });
    assert_started_empty_and_works(&kit, &dir, WALL0 + 3_000);
}

#[test]
fn a_flipped_byte_is_logged_and_ignored() {
    let (dir, kit) = restart_on_damaged("flipped", |path| {
        let mut bytes = std::fs::read(path).expect("read");
        let i = bytes.len() - 10;
        bytes[i] ^= 0x01;
        std::fs::write(path, bytes).expect("write");
    });
    assert_started_empty_and_works(&kit, &dir, WALL0 + 3_000);
}

#[test]
fn a_file_from_a_future_format_version_is_logged_and_ignored() {
    let (dir, kit) = restart_on_damaged("future", |path| {
        let text = std::fs::read_to_string(path).expect("read");
        std::fs::write(
            path,
            text.replacen("linekit-state v1 ", "linekit-state v2 ", 1),
        )
        .expect("write");
    });
    assert_eq!(logged("newer than the supported 1"), 1);
    assert_started_empty_and_works(&kit, &dir, WALL0 + 3_000);
}

#[test]
fn bad_json_oversize_and_foreign_files_are_errors_not_panics() {
    let dir = TempDir::new("errors");
    let path = state_file(&dir);
    let mut cases: Vec<(Vec<u8>, &str)> = vec![
        (
            encode_checked("linekit-state", 1, "{\"saved_seq\": ").into_bytes(),
            "bad JSON",
        ),
        (
            encode_checked("linekit-last-good", 1, "{}").into_bytes(),
            "unknown format",
        ),
        (b"no header at all".to_vec(), "no header"),
        (vec![0xff, 0xfe, b'\n'], "not UTF-8"),
        (
            encode_checked("linekit-state", 1, "42").into_bytes(),
            "the body is not a state record: expected an object, found an unsigned integer",
        ),
        // A damaged field outside a list is named by its path, never by its value.
        (
            encode_checked(
                "linekit-state",
                1,
                r#"{"saved_seq": "secret-ish", "saved_wall_ms": 1}"#,
            )
            .into_bytes(),
            "not a state record: saved_seq: expected an unsigned integer, found a string",
        ),
        (
            encode_checked(
                "linekit-state",
                1,
                r#"{"saved_seq": 1, "saved_wall_ms": 1, "dns": {"records": {}}}"#,
            )
            .into_bytes(),
            "not a state record: dns.records: expected an array, found an object",
        ),
    ];
    for (bytes, why) in cases.drain(..) {
        let err = decode_state(&path, bytes).unwrap_err();
        assert!(
            matches!(&err, Error::Store(m) if m.contains(why) && !m.contains("secret-ish")),
            "{why}: {err}"
        );
    }
    std::fs::write(&path, vec![b' '; MAX_STATE_BYTES + 1]).expect("write");
    let err = StateStore::new(dir.path()).load().unwrap_err();
    assert!(err.to_string().contains("larger than the limit"), "{err}");

    // One bad entry is dropped, not the file.
    let body = r#"{"saved_seq": 3, "saved_wall_ms": 1, "pools": [
        {"biz": "spot", "protocol": "http", "lines": [{"id": "a"}, {"id": "b", "origin":
        "https://b.example.com", "as_of_wall_ms": 1, "used": true, "window_ms": 300000}]},
        {"nonsense": true}]}"#;
    let parsed = decode_state(&path, encode_checked("linekit-state", 1, body).into_bytes())
        .expect("lenient lists");
    assert_eq!(parsed.pools.len(), 1);
    assert_eq!(parsed.pools[0].lines.len(), 1);

    // Nested lists drop their own bad items, and `null` reads as an absent optional field.
    let body = r#"{"saved_seq": 4, "saved_wall_ms": 1, "boot_id": null, "pools": [
        {"biz": "spot", "protocol": "http", "lines": [{"id": "b", "origin":
        "https://b.example.com", "as_of_wall_ms": 1, "used": true, "window_ms": 300000,
        "last_cost_ms": null, "breaker": null, "buckets": [
          {"start_wall_ms": "x"},
          {"start_wall_ms": 1, "successes": 2, "failures": 0, "weighted_failures_milli": 0,
           "latency_sum_ms": 40, "latency_count": 2}]}]}],
        "dns": {"records": [
          {"network": 1, "host": "a.example.com", "addrs": ["not-an-address"],
           "provider": "p", "received_wall_ms": 1, "ttl_s": 60},
          {"network": 1, "host": "b.example.com", "addrs": ["192.0.2.7", "2001:db8::7"],
           "provider": "p", "received_wall_ms": 1, "ttl_s": 60}],
          "quarantine": [{"network": 1, "host": "b.example.com", "ip": 7, "strikes": 1,
           "until_wall_ms": 9}]}}"#;
    let parsed = decode_state(&path, encode_checked("linekit-state", 1, body).into_bytes())
        .expect("lenient nested lists");
    let line = &parsed.pools[0].lines[0];
    assert_eq!((line.last_cost_ms, line.breaker), (None, None));
    assert_eq!(line.buckets.len(), 1);
    assert_eq!(line.buckets[0].latency_sum_ms, 40);
    assert_eq!(parsed.dns.records.len(), 1);
    assert_eq!(parsed.dns.records[0].host, "b.example.com");
    assert_eq!(
        parsed.dns.records[0].addrs,
        [
            "192.0.2.7".parse::<std::net::IpAddr>().unwrap(),
            "2001:db8::7".parse().unwrap()
        ]
    );
    assert!(parsed.dns.quarantine.is_empty());
}

#[test]
fn an_unusable_storage_directory_leaves_the_engine_working() {
    let dir = TempDir::new("unusable");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").expect("write");
    capture_logs();
    let clock = ManualClock::new(10_000_000, WALL0);
    // The storage dir would have to be created inside a regular file.
    let kit = engine(&file.join("storage"), &clock);
    kit.run_due();
    assert_eq!(logged("storage dir unusable"), 1);
    learn_and_flush(&kit, &clock);
    assert_eq!(line_of(&kit), "b");
}

#[test]
fn an_unwritable_state_file_is_logged_once_and_the_engine_keeps_working() {
    let dir = TempDir::new("unwritable");
    capture_logs();
    // A non-empty directory where the state file must go: every rename onto it fails
    // (even as root).
    std::fs::create_dir_all(state_file(&dir).join("occupied")).expect("block");
    let (kit, clock) = learned(dir.path());
    kit.report(&Report::new("spot", "b", Outcome::Ok, 80));
    clock.advance(FLUSH_DELAY_MS);
    kit.run_due();
    assert_eq!(logged("cannot persist the state"), 1, "logged once");
    assert_eq!(line_of(&kit), "b");
    assert!(state_file(&dir).is_dir(), "never replaced");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temp file left behind: {left:?}");
}

// ---- crash safety and ordering -------------------------------------------------------

#[test]
fn a_crash_between_write_and_rename_keeps_the_previous_file() {
    let dir = TempDir::new("crash");
    let (kit, _) = learned(dir.path());
    let good = std::fs::read(state_file(&dir)).expect("written");

    kit.close();
    assert_eq!(std::fs::read(state_file(&dir)).expect("still there"), good);
    // (A failed temp write or rename leaving the previous file intact is checked on
    // `atomic_write_via` in `config_sources`.)

    // A crash left a half-written temp file: it is never read, the previous file loads.
    std::fs::write(
        temp_path(&state_file(&dir)).unwrap(),
        b"linekit-state v1 fnv1a64:00\n{",
    )
    .expect("tmp");
    let (kit2, _) = restarted(dir.path(), 5_000_000, WALL0 + 3_000);
    assert_eq!(line_of(&kit2), "b");
    assert!(kit2.pools()["spot/http"].lines.iter().all(|l| l.used));
}

#[test]
fn stale_data_never_overwrites_newer_data() {
    let dir = TempDir::new("stale");
    let clock = ManualClock::new(10_000_000, WALL0);
    // Two engines on one directory, both loaded.
    let first = engine(dir.path(), &clock);
    let second = engine(dir.path(), &clock);
    first.run_due();
    second.run_due();
    learn_and_flush(&first, &clock);
    let newer = std::fs::read(state_file(&dir)).expect("written");

    capture_logs();
    second.report(&Report::new("spot", "a", Outcome::Ok, 10));
    clock.advance(FLUSH_DELAY_MS);
    second.run_due();
    second.close();
    assert_eq!(std::fs::read(state_file(&dir)).expect("read"), newer);
    assert_eq!(logged("has newer data"), 1);

    // The store itself: never before the load, never below the sequence on disk.
    let mut store = StateStore::new(dir.path());
    assert_eq!(
        store.save(StateBody::default()).expect("save"),
        SaveOutcome::NotLoaded
    );
    let seq = store.load().expect("load").expect("some").saved_seq;
    assert_eq!(
        store.save(StateBody::default()).expect("save"),
        SaveOutcome::Written(seq + 1)
    );
}

#[test]
fn close_flushes_synchronously_and_nothing_is_written_without_a_storage_dir() {
    let dir = TempDir::new("close");
    let clock = ManualClock::new(10_000_000, WALL0);
    let kit = engine(dir.path(), &clock);
    kit.run_due();
    kit.report(&Report::new("spot", "b", Outcome::Ok, 80));
    assert!(
        !state_file(&dir).exists(),
        "reports never write on the request path"
    );
    kit.close();
    assert!(state_file(&dir).is_file(), "close wrote the final flush");

    let plain = LineKit::builder()
        .config_json(CONFIG)
        .clock(Arc::new(clock.clone()))
        .runtime_mode(RuntimeMode::Manual)
        .build()
        .expect("engine");
    plain.report(&Report::new("spot", "b", Outcome::Ok, 80));
    assert_eq!(plain.next_deadline(), None, "no load or flush task");
}

// ---- HTTPDNS records ----------------------------------------------------------------

const HOST: &str = "api.example.com";

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap_or_else(|_| panic!("{s}"))
}

fn dns_cache(hosts: &[&str]) -> DnsCache {
    let cfg = HttpDnsConfig {
        hosts: hosts.iter().map(|h| h.to_string()).collect(),
        ..HttpDnsConfig::default()
    };
    DnsCache::new(DnsSettings::from_config(&cfg).0, 1)
}

fn answer(host: &str, addrs: &[&str], ttl_s: u32) -> HostAnswer {
    let mut a = HostAnswer::new(host, ttl_s);
    for s in addrs {
        a.push(ip(s));
    }
    a
}

/// Saves `dns` through the state file and reads it back (the real format path).
fn through_file(dns: PersistedDns) -> PersistedDns {
    let dir = TempDir::new("dns");
    let mut store = StateStore::new(dir.path());
    store.load().expect("first start");
    store
        .save(StateBody {
            dns,
            ..StateBody::default()
        })
        .expect("save");
    StateStore::new(dir.path())
        .load()
        .expect("load")
        .expect("some")
        .dns
}

#[test]
fn dns_records_and_quarantine_survive_a_restart() {
    let net = NetworkKey::new(0, 0);
    let before = dns_cache(&["*.example.com"]);
    before
        .insert(
            net,
            "aliyun",
            &answer(HOST, &["1.1.1.1", "2.2.2.2"], 120),
            1_000,
            WALL0,
        )
        .expect("stored");
    before
        .insert(
            net,
            "aliyun",
            &answer("other.example.com", &["3.3.3.3"], 60),
            1_000,
            WALL0,
        )
        .expect("stored");
    assert!(before.connect_failed(net, HOST, ip("1.1.1.1"), ConnectError::Refused, 1_000));
    let served = before.lookup(HOST, 1_000);
    assert_eq!(served.addrs.to_vec(), vec![ip("2.2.2.2")]);
    let dns = through_file(before.export(WALL0 + 10_000, 11_000));

    // New process, 10 s later by the wall clock.
    let after = dns_cache(&["*.example.com"]);
    let report = after.import(&dns, 50, WALL0 + 10_000);
    assert_eq!((report.records, report.quarantine), (2, 1));
    let l = after.lookup(HOST, 50);
    assert_eq!(
        (l.source, l.addrs.to_vec()),
        (Source::HttpDns, vec![ip("2.2.2.2")])
    );
    let record = after.record(HOST).expect("record");
    assert_eq!((record.ttl_s, record.received_wall_ms), (120, WALL0));
    // 110 s of TTL were left: served until then, not after.
    assert_eq!(after.lookup(HOST, 50 + 109_999).source, Source::HttpDns);
    assert_eq!(after.lookup(HOST, 50 + 110_000).source, Source::System);
    // The quarantine (30 s from the failure) ends 20 s after the restart.
    assert_eq!(after.lookup(HOST, 50 + 20_000).addrs.len(), 2);
}

fn persisted(received_wall_ms: u64, ttl_s: u64, addrs: &[&str]) -> PersistedDns {
    PersistedDns {
        records: vec![PersistedRecord {
            network: 0,
            host: HOST.to_string(),
            addrs: addrs.iter().map(|a| ip(a)).collect(),
            provider: "aliyun".to_string(),
            received_wall_ms,
            ttl_s,
        }],
        quarantine: Vec::new(),
    }
}

#[test]
fn a_record_from_the_future_or_older_than_its_ttl_is_never_served() {
    let now_wall = WALL0;
    for (why, dns) in [
        (
            "received in the future",
            persisted(now_wall + 5_000, 120, &["1.1.1.1"]),
        ),
        (
            "older than its TTL",
            persisted(now_wall - 120_000, 120, &["1.1.1.1"]),
        ),
        (
            "absurd TTL",
            persisted(now_wall - 1_000, 10_000_000, &["1.1.1.1"]),
        ),
        ("zero TTL", persisted(now_wall, 0, &["1.1.1.1"])),
        (
            "refused by today's policy",
            persisted(now_wall, 120, &["10.0.0.1"]),
        ),
    ] {
        let cache = dns_cache(&["*.example.com"]);
        let report = cache.import(&through_file(dns), 1_000, now_wall);
        assert_eq!((report.records, report.dropped), (0, 1), "{why}");
        assert_eq!(cache.lookup(HOST, 1_000).source, Source::System, "{why}");
    }

    // The host matcher of today's config applies too.
    let cache = dns_cache(&["cdn.example.org"]);
    let report = cache.import(&persisted(now_wall, 120, &["1.1.1.1"]), 1_000, now_wall);
    assert_eq!(report.records, 0);
    assert_eq!(cache.lookup(HOST, 1_000).source, Source::System);

    // A TTL is never lengthened by today's clamp (min_ttl_s 30 > 20).
    let cache = dns_cache(&["*.example.com"]);
    cache.import(
        &persisted(now_wall - 15_000, 20, &["1.1.1.1"]),
        1_000,
        now_wall,
    );
    assert_eq!(cache.lookup(HOST, 1_000 + 4_999).source, Source::HttpDns);
    assert_eq!(cache.lookup(HOST, 1_000 + 5_000).source, Source::System);
}

#[test]
fn a_live_record_is_not_replaced_by_a_persisted_one() {
    let cache = dns_cache(&["*.example.com"]);
    cache
        .insert(
            NetworkKey::new(0, 0),
            "dnspod",
            &answer(HOST, &["9.9.9.9"], 60),
            1_000,
            WALL0,
        )
        .expect("stored");
    let report = cache.import(&persisted(WALL0 - 1_000, 120, &["1.1.1.1"]), 1_000, WALL0);
    assert_eq!(report.records, 0);
    assert_eq!(
        cache.lookup(HOST, 1_000).addrs.to_vec(),
        vec![ip("9.9.9.9")]
    );
}

#[test]
fn records_of_other_networks_stay_parked_until_that_network_returns() {
    let before = dns_cache(&["*.example.com"]);
    let wifi = NetworkKey::new(100, 1);
    before.set_network(wifi, None);
    before
        .insert(
            wifi,
            "aliyun",
            &answer(HOST, &["1.1.1.1"], 120),
            1_000,
            WALL0,
        )
        .expect("stored");
    let dns = through_file(before.export(WALL0, 1_000));

    let after = dns_cache(&["*.example.com"]);
    assert_eq!(after.import(&dns, 10, WALL0 + 1_000).records, 1);
    assert_eq!(
        after.lookup(HOST, 10).source,
        Source::System,
        "not on network 0"
    );
    after.set_network(NetworkKey::new(100, 2), None);
    assert_eq!(after.lookup(HOST, 10).source, Source::HttpDns);
}

// ---- HTTPDNS through the engine -----------------------------------------------------

/// Answers every HTTPDNS query at once with one address per host.
struct AnsweringTransport;

impl linekit_core::transport::Transport for AnsweringTransport {
    fn start(
        &self,
        request: linekit_core::transport::TransportRequest,
        done: linekit_core::transport::Completion,
    ) {
        let host = request.url.split("host=").nth(1).unwrap_or("").to_string();
        let body =
            format!(r#"{{"host":"{host}","ips":["93.184.216.34","93.184.216.35"],"ttl":600}}"#);
        done.complete(linekit_core::transport::TransportResult::Response {
            status: 200,
            body: body.into_bytes(),
            headers: Vec::new(),
        });
    }
}

const DNS_CONFIG: &str = r#"{"version": 1,
    "thresholds": {"startup_detect_delay_ms": 100000000, "revive_interval_ms": 100000000},
    "biz_lines": {"spot": {"match": ["api.example.com"], "http": [{"id": "a", "url": "https://a.example.com"}]}},
    "httpdns": {"providers": [{"id": "ali", "format": "aliyun", "url": "https://203.0.113.7/1/d"}],
                "hosts": ["*.example.com"]}}"#;

fn dns_engine(dir: &Path, clock: &ManualClock, transport: bool) -> LineKit {
    let mut b = LineKit::builder()
        .config_json(DNS_CONFIG)
        .storage_dir(dir)
        .clock(Arc::new(clock.clone()))
        .runtime_mode(RuntimeMode::Manual)
        .seed(7);
    if transport {
        b = b.transport(Arc::new(AnsweringTransport));
    }
    b.build().expect("engine builds")
}

/// Where a lookup of `img.example.com` is answered from now.
fn img_source(kit: &LineKit) -> Source {
    kit.lookup("img.example.com").source
}

#[test]
fn engine_httpdns_records_and_quarantine_survive_a_restart() {
    let dir = TempDir::new("engine-dns");
    let clock = ManualClock::new(1_000, WALL0);
    let kit = dns_engine(dir.path(), &clock, true);
    kit.run_due();
    assert_eq!(img_source(&kit), Source::System, "first a miss");
    kit.run_due();
    let served = kit.lookup("img.example.com");
    assert_eq!(served.source, Source::HttpDns);
    assert!(kit.connect_failed(
        "img.example.com",
        ip("93.184.216.34"),
        ConnectError::Refused
    ));
    clock.advance(FLUSH_DELAY_MS);
    kit.run_due();
    drop(kit);

    let clock = ManualClock::new(5_000, WALL0 + 10_000);
    let kit = dns_engine(dir.path(), &clock, false);
    assert_eq!(
        img_source(&kit),
        Source::System,
        "nothing before the load task"
    );
    kit.run_due();
    let after = kit.lookup("img.example.com");
    assert_eq!(
        after.source,
        Source::HttpDns,
        "served after restart without any query"
    );
    assert_eq!(
        after.addrs.to_vec(),
        vec![ip("93.184.216.35")],
        "the address quarantined before the restart is still left out"
    );
}

/// `clear_files` deletes the named files and the temp files of interrupted writes to them
/// (`temp_path`'s names), and nothing else: not a file of the app's, not a temp file of
/// another name, not a directory.
#[test]
fn clearing_deletes_linekits_files_and_their_temp_files_alone() {
    let dir = TempDir::new("clear-files");
    let ours = dir.path().join(STATE_FILE);
    std::fs::write(&ours, b"state").unwrap();
    let temp = temp_path(&ours).unwrap();
    std::fs::write(&temp, b"half").unwrap();
    for foreign in [
        "app.db",
        ".app.db.00112233445566aa.tmp",
        ".state.json.short.tmp",
    ] {
        std::fs::write(dir.path().join(foreign), b"app").unwrap();
    }
    std::fs::create_dir(dir.path().join("state.json.d")).unwrap();
    linekit_core::store::clear_files(dir.path(), &linekit_core::store::PERSISTED_FILES).unwrap();
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".app.db.00112233445566aa.tmp",
            ".state.json.short.tmp",
            "app.db",
            "state.json.d"
        ]
    );
    assert!(linekit_core::store::PERSISTED_FILES.contains(&STATE_FILE));
}
