//! Fix-up 3 of the ROS 2 wheels (see `xtask/src/setup/mod.rs`): their `librcl.so` needs
//! libpython symbols at run time. When `cargo xtask env` says so (`ARNIE_LIBPYTHON_DIR`),
//! this crate links libpython and references one of its symbols (`app.rs`), so the
//! linker keeps it (`--as-needed`) in every node binary. A real /opt/ros install does
//! not set the variable and nothing is linked.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(arnie_link_libpython)");
    println!("cargo:rerun-if-env-changed=ARNIE_LIBPYTHON_DIR");
    println!("cargo:rerun-if-env-changed=ARNIE_LIBPYTHON");
    if let Ok(dir) = std::env::var("ARNIE_LIBPYTHON_DIR") {
        if !dir.is_empty() {
            let lib = std::env::var("ARNIE_LIBPYTHON").unwrap_or_else(|_| "python3.11".into());
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-lib=dylib={lib}");
            println!("cargo:rustc-cfg=arnie_link_libpython");
        }
    }
}
