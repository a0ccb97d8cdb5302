//! Running the `linekit` CLI in-process (`linekit_tools::cli::run`, what the binary's `main`
//! calls) and reading the JSON it prints.

#![allow(dead_code)]

use serde_json::Value;

/// What one run returned: the exit code and both output streams.
pub struct Output {
    pub code: i32,
    pub out: String,
    pub err: String,
}

impl From<Output> for (i32, String, String) {
    fn from(o: Output) -> Self {
        (o.code, o.out, o.err)
    }
}

/// Runs `linekit ARGS…` reading `stdin`.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = linekit_tools::cli::run(&args, &mut input, &mut out, &mut err);
    Output {
        code,
        out: String::from_utf8(out).expect("stdout is UTF-8"),
        err: String::from_utf8(err).expect("stderr is UTF-8"),
    }
}

/// `text` as one JSON document (surrounding white space ignored); panics naming the text.
pub fn json_of(text: &str) -> Value {
    serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("not one JSON document: {e}: {text}"))
}

/// The `error` message of the JSON error document `text`; panics naming the text when it
/// has none.
pub fn error_of(text: &str) -> String {
    json_of(text)["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error message: {text}"))
        .to_string()
}
