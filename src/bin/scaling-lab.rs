//! `scaling-lab`: the cost model on the command line. See `scaling-lab --help`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = gpu_scaling_lab::cli::run(&args);
    if !out.stdout.is_empty() {
        println!("{}", out.stdout.trim_end());
    }
    if !out.stderr.is_empty() {
        eprintln!("{}", out.stderr);
    }
    std::process::exit(out.status);
}
