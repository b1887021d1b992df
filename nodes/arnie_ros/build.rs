//! Fix-up 3 of docs/ROS2 set-up: the PyPI ROS 2 wheels' `librcl.so` needs libpython
//! symbols at run time. When `cargo xtask env` says so (`ARNIE_LIBPYTHON_DIR`), every
//! binary that links this crate also links libpython (not as-needed, since nothing in
//! Rust references it). A real /opt/ros install does not set the variable.
fn main() {
    println!("cargo:rerun-if-env-changed=ARNIE_LIBPYTHON_DIR");
    println!("cargo:rerun-if-env-changed=ARNIE_LIBPYTHON");
    if let Ok(dir) = std::env::var("ARNIE_LIBPYTHON_DIR") {
        if !dir.is_empty() {
            let lib = std::env::var("ARNIE_LIBPYTHON").unwrap_or_else(|_| "python3.11".into());
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-lib=dylib:-as-needed={lib}");
        }
    }
}
