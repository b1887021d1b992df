//! Running child commands with the ROS environment; failures become one clear message.
use crate::env::{Layout, Ros};
use std::process::Command;

/// A command failed: what to tell the user, and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::new(e.to_string())
    }
}

/// A command with the ROS environment applied, run from the workspace root.
pub fn command(layout: &Layout, ros: &Ros, program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(&layout.root);
    for (k, v) in ros.vars(layout) {
        c.env(k, v);
    }
    c
}

/// Runs `c` to completion; a non-zero exit is a [`Failure`] naming `what`.
pub fn status(mut c: Command, what: &str) -> Result<(), Failure> {
    let st = c
        .status()
        .map_err(|e| Failure::new(format!("{what}: cannot start: {e}")))?;
    if st.success() {
        Ok(())
    } else {
        Err(Failure::new(format!("{what} failed ({st})")))
    }
}

pub fn cargo(layout: &Layout, ros: &Ros, args: &[&str]) -> Result<(), Failure> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = command(layout, ros, &cargo);
    c.args(args);
    status(c, &format!("cargo {}", args.join(" ")))
}

/// `cargo metadata --no-deps` of the workspace (offline), parsed.
///
/// # Errors
/// cargo cannot be started or fails (its stderr in the message), or its output is not JSON.
pub fn cargo_metadata(layout: &Layout) -> Result<serde_json::Value, Failure> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&layout.root)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .output()
        .map_err(|e| Failure::new(format!("cargo metadata: {e}")))?;
    if !out.status.success() {
        return Err(Failure::new(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| Failure::new(format!("cargo metadata: {e}")))
}

pub fn python(layout: &Layout, ros: &Ros, args: &[&str]) -> Result<(), Failure> {
    let mut c = command(layout, ros, &ros.python.to_string_lossy());
    c.args(args);
    status(c, &format!("python3 {}", args.join(" ")))
}
