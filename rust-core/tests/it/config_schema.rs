//! The config's JSON Schema: `docs/config.schema.json` is the schema generated from
//! `Config`, it names every field serde reads and writes, and its defaults are the model's.
#![cfg(feature = "schema")]

use linekit_core::config::json_schema;
use linekit_core::config::remote::RemoteConfig;
use linekit_core::config::trust::TrustConfig;
use linekit_core::config::{Config, Thresholds};
use serde_json::Value;
use std::collections::BTreeSet;

const SCHEMA: &str = include_str!("../../../docs/config.schema.json");

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("the checked-in schema is JSON")
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

#[test]
fn the_committed_schema_is_generated_from_the_model() {
    assert!(
        SCHEMA == json_schema(),
        "docs/config.schema.json is stale: run `linekit config schema > docs/config.schema.json`"
    );
}

#[test]
fn the_schema_names_every_field_serde_writes() {
    let full = Config {
        remote: Some(RemoteConfig::default()),
        trust: Some(TrustConfig::default()),
        expires_at: Some(1),
        ..Config::default()
    };
    let written = serde_json::to_value(&full).unwrap();
    let s = schema();
    assert_eq!(keys(&s["properties"]), keys(&written));
    assert_eq!(
        keys(&s["$defs"]["Thresholds"]["properties"]),
        keys(&written["thresholds"])
    );
    assert!(
        s["$defs"]["BizLine"]["properties"]["match"].is_object(),
        "renamed fields appear under their JSON name"
    );
}

#[test]
fn the_schema_defaults_are_the_model_defaults() {
    let s = schema();
    let defaults = serde_json::to_value(Config::default()).unwrap();
    for (field, value) in defaults.as_object().unwrap() {
        assert_eq!(
            &s["properties"][field]["default"], value,
            "default of {field}"
        );
    }
    assert_eq!(
        s["properties"]["thresholds"]["default"],
        serde_json::to_value(Thresholds::default()).unwrap()
    );
}

#[test]
fn the_reference_example_uses_only_fields_the_schema_names() {
    let example: Value =
        serde_json::from_str(include_str!("../fixtures/reference_example.json")).unwrap();
    let s = schema();
    assert!(keys(&example).is_subset(&keys(&s["properties"])));
    assert!(keys(&example["thresholds"]).is_subset(&keys(&s["$defs"]["Thresholds"]["properties"])));
}
