//! `scaling-lab`: the cost model on the command line. See `scaling-lab --help`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = gpu_scaling_lab::cli::run(&args);
    // A reader that stops early (`| head`) closes the pipe: a failed write ends the output
    // quietly, where `println!` would panic.
    if !out.stdout.is_empty() {
        let _ = writeln!(std::io::stdout().lock(), "{}", out.stdout.trim_end());
    }
    if !out.stderr.is_empty() {
        let _ = writeln!(std::io::stderr().lock(), "{}", out.stderr);
    }
    std::process::exit(out.status);
}
