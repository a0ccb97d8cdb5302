//! `linekit`: the command-line front end (DESIGN 3.1). Every command prints JSON to stdout
//! and errors to stderr with a non-zero exit code.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    eprintln!(
        "{{\"error\":\"unknown command {:?}\"}}",
        args.first().map(String::as_str).unwrap_or("")
    );
    std::process::exit(2);
}
