//! The web app's entry point: mounts the Leptos app (wasm32 only).

#[cfg(target_arch = "wasm32")]
fn main() {
    gpu_scaling_lab::ui::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("gpu-scaling-lab is the web app; build it with trunk. For the command line use scaling-lab.");
    std::process::exit(2);
}
