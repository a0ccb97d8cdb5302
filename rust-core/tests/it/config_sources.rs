//! The config source chain (`docs/architecture.md#config-source-chain`): version rule, sealed asset, last good
//! store, fallbacks down to the hard-coded line, and the atomic writes beneath it.

use crate::support;

use linekit_core::config::{
    check_update, open, parse_config, resolve, seal, Config, ConfigSource, ConfigSources,
    LastGoodStore, Resolved,
};
use linekit_core::error::Error;
use linekit_core::store::{atomic_write, atomic_write_via, read_limited, temp_path};
use std::path::Path;
use support::temp::TempDir;

const KEY: [u8; 32] = [0x42; 32];

fn config_text(version: u64, host: &str) -> String {
    format!(
        r#"{{"version": {version}, "biz_lines": {{"spot": {{"match": ["api.example.com"],
            "http": [{{"id": "a", "url": "https://{host}"}}]}}}}}}"#
    )
}

fn line_host(c: &Config) -> &str {
    &c.biz_lines["spot"].http[0].url
}

fn hard_coded() -> Config {
    Config::single_line("spot", "api.example.com", "https://fallback.example.com")
        .expect("valid fallback")
}

/// The chain with a remote and a last good config, nothing sealed.
fn remote_over_last_good(remote: String, last_good: String) -> Resolved {
    resolve(&ConfigSources {
        remote: Some(remote),
        last_good: Some(last_good),
        sealed: None,
        hard_coded: hard_coded(),
        ..ConfigSources::default()
    })
}

/// The chain with only the sealed asset `sealed` (opened with `key`) above the hard-coded
/// config.
fn sealed_only(sealed: String, key: Vec<u8>) -> Resolved {
    resolve(&ConfigSources {
        sealed: Some((sealed, key)),
        hard_coded: hard_coded(),
        ..ConfigSources::default()
    })
}

#[test]
fn only_a_newer_version_is_applied() {
    let candidate = |v| parse_config(&config_text(v, "a.example.com")).expect("valid");
    let lower = check_update(5, &candidate(4)).unwrap_err();
    assert_eq!(
        lower,
        Error::ConfigRejected("version 4 is not newer than current 5".into())
    );
    let equal = check_update(5, &candidate(5)).unwrap_err();
    assert_eq!(
        equal,
        Error::ConfigRejected("version 5 is not newer than current 5".into())
    );
    assert!(equal.to_string().contains("not newer"));
    assert_eq!(check_update(5, &candidate(6)), Ok(()));
    assert_eq!(check_update(0, &candidate(1)), Ok(()));
}

#[test]
fn a_valid_remote_config_wins() {
    let r = resolve(&ConfigSources {
        remote: Some(config_text(9, "remote.example.com")),
        last_good: Some(config_text(8, "last.example.com")),
        sealed: Some((
            seal(config_text(1, "sealed.example.com").as_bytes(), &KEY).expect("seal"),
            KEY.to_vec(),
        )),
        hard_coded: hard_coded(),
        ..ConfigSources::default()
    });
    assert_eq!(r.source, ConfigSource::Remote);
    assert_eq!(line_host(&r.config), "https://remote.example.com");
    assert!(r.skipped.is_empty());
}

#[test]
fn an_invalid_remote_config_falls_back_to_the_last_good_one() {
    let r = remote_over_last_good(
        r#"{"version": 10, "biz_lines": {}}"#.into(),
        config_text(8, "last.example.com"),
    );
    assert_eq!(r.source, ConfigSource::LastGood);
    assert_eq!(line_host(&r.config), "https://last.example.com");
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].0, ConfigSource::Remote);
    assert!(matches!(&r.skipped[0].1, Error::InvalidConfig(e) if e[0].path == "biz_lines"));
}

#[test]
fn a_remote_config_older_than_the_last_good_one_is_skipped() {
    let r = remote_over_last_good(
        config_text(7, "stale.example.com"),
        config_text(8, "last.example.com"),
    );
    assert_eq!(r.source, ConfigSource::LastGood);
    assert_eq!(
        r.skipped,
        vec![(
            ConfigSource::Remote,
            Error::ConfigRejected("version 7 is older than the last good version 8".into())
        )]
    );
    // Equal versions: the remote copy is used (same version, fresher transport).
    let r = remote_over_last_good(
        config_text(8, "remote.example.com"),
        config_text(8, "last.example.com"),
    );
    assert_eq!(r.source, ConfigSource::Remote);
}

#[test]
fn a_tampered_sealed_config_is_rejected_and_the_next_source_used() {
    let sealed = seal(config_text(1, "sealed.example.com").as_bytes(), &KEY).expect("seal");
    // Flip one base64 character in the ciphertext body (keep the alphabet valid).
    let mut chars: Vec<char> = sealed.chars().collect();
    let i = chars.len() / 2;
    chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    let r = resolve(&ConfigSources {
        remote: None,
        last_good: None,
        sealed: Some((tampered, KEY.to_vec())),
        hard_coded: hard_coded(),
        ..ConfigSources::default()
    });
    assert_eq!(r.source, ConfigSource::HardCoded);
    assert_eq!(r.config, hard_coded());
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].0, ConfigSource::Sealed);
    assert!(
        matches!(&r.skipped[0].1, Error::Seal(why) if why.contains("tampered")),
        "{:?}",
        r.skipped
    );
}

#[test]
fn a_sealed_config_opens_with_the_right_key_only() {
    let text = config_text(2, "sealed.example.com");
    let sealed = seal(text.as_bytes(), &KEY).expect("seal");
    assert_eq!(open(&sealed, &KEY).expect("open"), text.as_bytes());

    let ok = sealed_only(sealed.clone(), KEY.to_vec());
    assert_eq!(ok.source, ConfigSource::Sealed);
    assert_eq!(line_host(&ok.config), "https://sealed.example.com");

    for key in [vec![0x43; 32], vec![0x42; 16], Vec::new()] {
        let r = sealed_only(sealed.clone(), key.clone());
        assert_eq!(r.source, ConfigSource::HardCoded);
        let Error::Seal(why) = &r.skipped[0].1 else {
            panic!("expected a seal error, got {:?}", r.skipped);
        };
        assert!(
            why.contains("wrong key") || why.contains("32 bytes"),
            "{why}"
        );
        assert!(!why.contains("sealed.example.com"));
    }
}

#[test]
fn a_sealed_asset_that_opens_but_does_not_validate_is_skipped() {
    let sealed = seal(br#"{"version": 1}"#, &KEY).expect("seal");
    let not_utf8 = seal(&[0xff, 0xfe], &KEY).expect("seal");
    for text in [sealed, not_utf8] {
        let r = sealed_only(text, KEY.to_vec());
        assert_eq!(r.source, ConfigSource::HardCoded);
        assert_eq!(r.skipped.len(), 1);
    }
}

#[test]
fn when_everything_is_broken_the_hard_coded_config_is_used() {
    let r = resolve(&ConfigSources {
        remote: Some("not json".into()),
        last_good: Some(r#"{"version": 1}"#.into()),
        sealed: Some(("!!!".into(), KEY.to_vec())),
        hard_coded: Config::default(),
        ..ConfigSources::default()
    });
    assert_eq!(r.source, ConfigSource::HardCoded);
    assert_eq!(r.config, Config::default());
    let levels: Vec<ConfigSource> = r.skipped.iter().map(|(s, _)| *s).collect();
    assert_eq!(
        levels,
        [
            ConfigSource::Remote,
            ConfigSource::LastGood,
            ConfigSource::Sealed
        ]
    );
    let names: Vec<&str> = levels.iter().map(|s| s.as_str()).collect();
    assert_eq!(names, ["remote", "last_good", "sealed"]);
    assert_eq!(ConfigSource::HardCoded.as_str(), "hard_coded");
    // Nothing present at all: straight to the hard-coded level, nothing skipped.
    let r = resolve(&ConfigSources::default());
    assert_eq!(r.source, ConfigSource::HardCoded);
    assert!(r.skipped.is_empty());
}

#[test]
fn last_good_store_round_trip() {
    let dir = TempDir::new("last-good");
    let store = LastGoodStore::new(dir.path());
    assert_eq!(store.load(), Ok(None), "missing file is not an error");
    let first = config_text(3, "a.example.com");
    store.save(&first, &[]).expect("save");
    assert_eq!(store.load(), Ok(Some(first)));
    let second = config_text(4, "b.example.com");
    store.save(&second, &[]).expect("save again");
    assert_eq!(store.load(), Ok(Some(second.clone())));
    assert_eq!(
        entries(dir.path()),
        [store
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()],
        "no temp file left behind"
    );

    let r = resolve(&ConfigSources {
        remote: None,
        last_good: store.load().expect("load"),
        sealed: None,
        hard_coded: hard_coded(),
        ..ConfigSources::default()
    });
    assert_eq!(r.source, ConfigSource::LastGood);
    assert_eq!(r.config.version, 4);
}

#[test]
fn a_corrupt_last_good_file_is_reported_and_ignored() {
    let dir = TempDir::new("corrupt");
    let store = LastGoodStore::new(dir.path());
    store
        .save(&config_text(3, "a.example.com"), &[])
        .expect("save");
    let saved = std::fs::read(store.path()).expect("read");

    // Torn write, flipped bit, foreign file, binary junk: all errors, never panics.
    let mut flipped = saved.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x01;
    let variants: Vec<Vec<u8>> = vec![
        saved[..saved.len() / 2].to_vec(),
        flipped,
        b"{\"version\": 99}".to_vec(),
        vec![0xff, 0x00, 0x13],
        Vec::new(),
    ];
    for bytes in variants {
        std::fs::write(store.path(), &bytes).expect("write");
        let err = store.load().unwrap_err();
        assert!(
            matches!(&err, Error::Store(why) if why.contains("corrupt")),
            "{err:?}"
        );
        // The engine passes `load().ok().flatten()`: the chain moves on.
        let r = resolve(&ConfigSources {
            last_good: store.load().ok().flatten(),
            hard_coded: hard_coded(),
            ..ConfigSources::default()
        });
        assert_eq!(r.source, ConfigSource::HardCoded);
    }

    // A file bigger than any config is refused without reading it whole.
    std::fs::write(store.path(), vec![b' '; 4 * 1024 * 1024]).expect("write");
    assert!(matches!(store.load(), Err(Error::Store(why)) if why.contains("larger")));
}

/// The names in `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn atomic_write_keeps_the_previous_file_when_the_temp_write_fails() {
    let dir = TempDir::new("atomic");
    let path = dir.path().join("state.bin");
    atomic_write(&path, b"old contents").expect("first write");
    assert_eq!(
        read_limited(&path, 1024).expect("read"),
        Some(b"old contents".to_vec())
    );

    // A directory where the temp file should go makes the temp write fail.
    let tmp = temp_path(&path).unwrap();
    std::fs::create_dir(&tmp).expect("block the temp path");
    let err = atomic_write_via(&path, &tmp, b"new contents").unwrap_err();
    assert!(matches!(err, Error::Store(_)), "{err:?}");
    assert_eq!(std::fs::read(&path).expect("read"), b"old contents");
    assert!(tmp.is_dir(), "a directory is never removed");

    std::fs::remove_dir(&tmp).expect("unblock");
    atomic_write(&path, b"new contents").expect("second write");
    assert_eq!(std::fs::read(&path).expect("read"), b"new contents");
    assert_eq!(entries(dir.path()), ["state.bin"]);
}

#[test]
fn temp_file_names_are_unpredictable() {
    let path = std::path::Path::new("/data/linekit/state.bin");
    let names: std::collections::HashSet<_> = (0..64).map(|_| temp_path(path).unwrap()).collect();
    assert_eq!(names.len(), 64, "every write draws a new name");
    for name in &names {
        let file = name.file_name().unwrap().to_string_lossy().into_owned();
        let suffix = file
            .strip_prefix(".state.bin.")
            .and_then(|r| r.strip_suffix(".tmp"))
            .unwrap_or_else(|| panic!("{file}"));
        assert_eq!(suffix.len(), 16, "{file}");
        assert!(suffix.bytes().all(|b| b.is_ascii_hexdigit()), "{file}");
        assert_eq!(name.parent(), path.parent());
    }
}

#[cfg(unix)]
#[test]
fn atomic_write_never_follows_a_planted_symlink() {
    let dir = TempDir::new("atomic-symlink");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let path = dir.path().join("state.bin");
    // The name the temp file once had, planted as a symlink to another file: unused.
    std::os::unix::fs::symlink(&victim, dir.path().join(".state.bin.tmp")).unwrap();
    atomic_write(&path, b"new contents").expect("write");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
    assert!(!std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
    // A symlink at the very temp path (live or dangling) fails the write: the temp file
    // is created exclusively, without following links.
    for target in [victim.clone(), dir.path().join("absent")] {
        let tmp = temp_path(&path).unwrap();
        std::os::unix::fs::symlink(&target, &tmp).unwrap();
        let err = atomic_write_via(&path, &tmp, b"attacker").unwrap_err();
        assert!(matches!(err, Error::Store(_)), "{err:?}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(!dir.path().join("absent").exists());
        assert_eq!(std::fs::read(&path).unwrap(), b"new contents");
        assert!(std::fs::symlink_metadata(&tmp)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

#[cfg(unix)]
#[test]
fn reads_take_regular_files_only_and_a_fifo_never_blocks() {
    let dir = TempDir::new("read-kinds");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // No writer ever opens the FIFO: a blocking open or read would hang this test.
    for path in [
        fifo.as_path(),
        dir.path(),
        std::path::Path::new("/dev/zero"),
    ] {
        let err = read_limited(path, 1024).unwrap_err();
        assert!(
            matches!(&err, Error::Store(why) if why.contains("not a regular file")),
            "{}: {err:?}",
            path.display()
        );
    }
    // A symlink to a regular file is read (the type checked is the opened file's).
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    assert_eq!(read_limited(&link, 8).unwrap(), Some(b"x".to_vec()));
}

#[test]
fn atomic_write_into_a_missing_directory_fails_cleanly() {
    let dir = TempDir::new("missing");
    let path = dir.path().join("nope").join("state.bin");
    assert!(matches!(atomic_write(&path, b"x"), Err(Error::Store(_))));
    assert!(matches!(
        atomic_write(Path::new("/"), b"x"),
        Err(Error::Store(_))
    ));
}

#[test]
fn read_limited_reports_missing_oversized_and_exact_files() {
    let dir = TempDir::new("read");
    let path = dir.path().join("f");
    assert_eq!(read_limited(&path, 10), Ok(None));
    std::fs::write(&path, b"0123456789").expect("write");
    assert_eq!(read_limited(&path, 10), Ok(Some(b"0123456789".to_vec())));
    assert!(matches!(read_limited(&path, 9), Err(Error::Store(why)) if why.contains("larger")));
    assert!(matches!(read_limited(dir.path(), 10), Err(Error::Store(_))));
}
