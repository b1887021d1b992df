//! What `cargo xtask demo` and `cargo xtask demo eurobot` share: a ROS graph of their own
//! (domain and localhost-only discovery), launching a stack from an arnie_bringup launch
//! file, and running the rclpy monitor that decides the demo's outcome.
use crate::env::{Layout, Ros};
use crate::launch;
use crate::run::Failure;
use std::collections::HashMap;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The ROS graph a demo runs on: `ROS_DOMAIN_ID` from the environment (else one derived from
/// this process id, 10..99) and discovery limited to this machine.
pub struct Graph {
    /// The domain id, for the log lines.
    pub domain: String,
    /// The variables to give every process of the demo.
    pub env: Vec<(String, String)>,
}

impl Graph {
    /// This run's graph (see [`Graph`]).
    pub fn local() -> Graph {
        let domain = std::env::var("ROS_DOMAIN_ID")
            .unwrap_or_else(|_| (std::process::id() % 90 + 10).to_string());
        let env = vec![
            ("ROS_DOMAIN_ID".to_string(), domain.clone()),
            (
                "ROS_AUTOMATIC_DISCOVERY_RANGE".to_string(),
                "LOCALHOST".to_string(),
            ),
        ];
        Graph { domain, env }
    }
}

/// Launches `launch_file` of arnie_bringup with `args` on `graph`: by the real
/// `ros2 launch` where it is installed, else by the project's launcher. `what` prefixes
/// the log lines ("demo", "demo eurobot").
pub fn launch_stack(
    layout: &Layout,
    ros: &Ros,
    what: &str,
    launch_file: &str,
    args: &HashMap<String, String>,
    graph: &Graph,
) -> Result<launch::Launched, Failure> {
    let domain = &graph.domain;
    match launch::ros2_cli(layout, ros) {
        Some(ros2) => {
            eprintln!("xtask: {what}: ros2 launch arnie_bringup {launch_file} on ROS_DOMAIN_ID={domain} (localhost only)");
            launch::start_ros2(
                layout,
                ros,
                &ros2,
                "arnie_bringup",
                launch_file,
                args,
                &graph.env,
            )
        }
        None => {
            let file = layout
                .install
                .join("share/arnie_bringup/launch")
                .join(launch_file);
            let specs = launch::parse(&file, args)?;
            eprintln!("xtask: {what}: launching {} nodes (cargo xtask launch: no ros2 launch here) on ROS_DOMAIN_ID={domain} (localhost only)", specs.len());
            launch::start(layout, ros, &specs, &graph.env).map(launch::Launched::Ours)
        }
    }
}

/// Starts the monitor and waits for it; kills it when `stop` is set (a signal).
/// `Ok(None)`: interrupted.
///
/// # Errors
/// The monitor could not be started, or waiting for it failed.
pub fn run_monitor(
    monitor: &mut Command,
    stop: &Arc<AtomicBool>,
) -> std::io::Result<Option<ExitStatus>> {
    let mut child = monitor.spawn()?;
    loop {
        if stop.load(Ordering::SeqCst) {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        if let Some(st) = child.try_wait()? {
            return Ok(Some(st));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stops the launched stack (SIGINT, SIGKILL after a 5 s grace) and says which processes
/// did not stop cleanly.
pub fn shutdown(what: &str, running: launch::Launched) {
    let unclean = running.shutdown(Duration::from_secs(5));
    if !unclean.is_empty() {
        eprintln!("xtask: {what}: not stopped cleanly: {}", unclean.join(", "));
    }
}
