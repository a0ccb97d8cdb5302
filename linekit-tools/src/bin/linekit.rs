//! `linekit`: the command-line front end (`docs/architecture.md#cli`). The commands live in
//! [`linekit_tools::cli`]; this binary only wires them to the process.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = linekit_tools::cli::run(
        &args,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}
