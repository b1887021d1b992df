//! A bounded teardown: once a node stops (a signal, a shutdown request or a set-up error),
//! its process ends within [`TEARDOWN_LIMIT`], even when the middleware's teardown hangs.
//!
//! Why: rmw_fastrtps destroys the DDS participant through `DomainParticipant::set_listener
//! (nullptr)`, which waits for the discovery callbacks that are running. In Fast DDS 2.14.5
//! (the Jazzy wheels) it can wait forever: gdb on a node that never ended after Ctrl-C
//! showed the main thread in `rcl_node_fini` → `rmw_destroy_node` → `destroy_participant`
//! → `set_listener`, and a `dds.udp` thread in `onReaderDiscovery` waiting for the
//! participant's lock. It happens when every node of a launch stops at once, so each
//! participant is being told of the others' endpoints leaving while it is destroyed: 2 of
//! 143 Ctrl-C stops of the 4-node arm launch here (a brain, a spine_bridge; a
//! trajectory_server in a test run), each stuck in the same place.
//!
//! By the time it hangs, the node's tasks have stopped, its last messages are sent and
//! `rmw_destroy_node` has already announced the node's removal from the graph; only the
//! participant's own clean-up is left, and the kernel closes its sockets at exit. So the
//! watchdog ends the process with the code it was going to exit with (0 after a clean
//! stop, 2 after a set-up error), says so on stderr, and `ros2 launch` reports the node
//! as stopped instead of escalating to SIGTERM and SIGKILL.
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a node may take from its stop to the end of the process (the final spins,
/// the runtime's 0.5 s to stop its tasks, the node's and the middleware's teardown, the
/// exit handlers). Under `ros2 launch`'s 5 s before it escalates to SIGTERM.
pub const TEARDOWN_LIMIT: Duration = Duration::from_secs(3);

/// How often the watchdog looks whether the stop has begun.
const POLL: Duration = Duration::from_millis(50);

/// The exit code the process is going to end with, shared with the watchdog.
#[derive(Clone, Debug, Default)]
pub struct ExitCode(Arc<AtomicI32>);

impl ExitCode {
    /// Sets the code (0 by default).
    pub fn set(&self, code: i32) {
        self.0.store(code, Ordering::SeqCst);
    }
    /// The code set last.
    pub fn get(&self) -> i32 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Arms the watchdog of node `name` with [`TEARDOWN_LIMIT`]: once `stopping()` is true,
/// the process has that long to end. Returns the exit code it will end with (0 until set).
/// A thread that cannot be started is logged (the teardown is then unbounded), not fatal.
pub fn arm(name: &str, stopping: impl Fn() -> bool + Send + 'static) -> ExitCode {
    let code = ExitCode::default();
    if let Err(e) = spawn_watchdog(name, stopping, code.clone(), TEARDOWN_LIMIT) {
        crate::log_warn!("no exit watchdog (teardown unbounded): {e}");
    }
    code
}

/// Starts the watchdog thread of process `name`: once `stopping()` is true, the process
/// has `limit` to end by itself; after that the thread prints one line on stderr and ends
/// the process at once with `code`'s value (`_exit`: no exit handlers, which would run
/// beside the stuck teardown).
///
/// # Errors
/// The thread could not be started.
pub fn spawn_watchdog(
    name: &str,
    stopping: impl Fn() -> bool + Send + 'static,
    code: ExitCode,
    limit: Duration,
) -> std::io::Result<()> {
    let name = name.to_string();
    std::thread::Builder::new()
        .name("exit-watchdog".into())
        .spawn(move || {
            while !stopping() {
                std::thread::sleep(POLL);
            }
            std::thread::sleep(limit);
            let code = code.get();
            // stderr, not the ROS log: rcl's logging is being torn down by now.
            eprintln!(
                "{name}: the teardown did not finish within {:.1} s of the stop (the DDS \
                 participant's destruction is stuck: a Fast DDS 2.14 deadlock, see \
                 node_glue::exit); ending the process with exit code {code}",
                limit.as_secs_f64()
            );
            // SAFETY: `_exit` takes a plain int and never returns; it ends the process
            // without running exit handlers, which must not run beside the stuck teardown.
            unsafe { libc::_exit(code) }
        })?;
    Ok(())
}
