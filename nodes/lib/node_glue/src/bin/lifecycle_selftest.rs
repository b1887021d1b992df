//! `lifecycle_selftest`: a managed node whose callbacks do what its parameters say, for
//! the lifecycle tests (`test/system/test_lifecycle.py`: every transition from every
//! state against rclpy's `LifecycleNode`).
//!
//! - each callback (`on_configure`, `on_activate`, `on_deactivate`, `on_cleanup`,
//!   `on_shutdown`, `on_error`) returns what its parameter of the same name says:
//!   `success`, `failure`, `error` or `panic`, after `callback_delay_ms`;
//! - `bind_port` (not 0): configure binds UDP 127.0.0.1:`bind_port` (a port in use fails
//!   the configure, with the OS's reason), cleanup and shutdown release it;
//! - publishes a count on `lifecycle_selftest/count` (`std_msgs/String`) every
//!   `publish_period_ms` through a lifecycle publisher: silent unless active.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use node_glue::lifecycle::{Failed, Lifecycle, Managed, Outcome, State};
use node_glue::r2r::std_msgs::msg::String as StringMsg;
use node_glue::{qos, App, Error};

const RESULTS: &[&str] = &["success", "failure", "error", "panic"];

node_glue::declare_parameters! {
    /// The test node's parameters (all live).
    struct Params(_d = ()) {
        /// What on_configure returns
        on_configure: String = "success".into(), one_of(RESULTS), "at once";
        /// What on_activate returns
        on_activate: String = "success".into(), one_of(RESULTS), "at once";
        /// What on_deactivate returns
        on_deactivate: String = "success".into(), one_of(RESULTS), "at once";
        /// What on_cleanup returns
        on_cleanup: String = "success".into(), one_of(RESULTS), "at once";
        /// What on_shutdown returns
        on_shutdown: String = "success".into(), one_of(RESULTS), "at once";
        /// What on_error returns
        on_error: String = "success".into(), one_of(RESULTS), "at once";
        /// Time every callback takes [ms]
        callback_delay_ms: i64 = 0, int(0, 60_000), "at once";
        /// UDP port configure binds on 127.0.0.1 (0: none)
        bind_port: i64 = 0, int(0, 65_535), "next configure";
        /// Time between two messages on lifecycle_selftest/count [ms]
        publish_period_ms: i64 = 20, int(1, 10_000), "at start";
    }
}

struct Node {
    params: Arc<Mutex<Params>>,
    socket: Option<std::net::UdpSocket>,
}

impl Node {
    fn answer(&self, which: fn(&Params) -> &String) -> Outcome {
        let (result, delay) = {
            let p = self.params.lock().unwrap_or_else(|e| e.into_inner());
            (which(&p).clone(), p.callback_delay_ms)
        };
        std::thread::sleep(Duration::from_millis(delay.max(0) as u64));
        match result.as_str() {
            "failure" => Err(Failed::failure("the test asked for a failure")),
            "error" => Err(Failed::error("the test asked for an error")),
            "panic" => panic!("the test asked for a panic"),
            _ => Ok(()),
        }
    }
}

impl Managed for Node {
    fn on_configure(&mut self, _: State) -> Outcome {
        self.answer(|p| &p.on_configure)?;
        let port = self.params.lock().map(|p| p.bind_port).unwrap_or(0);
        if port != 0 {
            let addr = format!("127.0.0.1:{port}");
            let socket = std::net::UdpSocket::bind(&addr)
                .map_err(|e| Failed::failure(format!("cannot bind {addr}: {e}")))?;
            self.socket = Some(socket);
        }
        Ok(())
    }
    fn on_activate(&mut self, _: State) -> Outcome {
        self.answer(|p| &p.on_activate)
    }
    fn on_deactivate(&mut self, _: State) -> Outcome {
        self.answer(|p| &p.on_deactivate)
    }
    fn on_cleanup(&mut self, _: State) -> Outcome {
        self.answer(|p| &p.on_cleanup)?;
        self.socket = None;
        Ok(())
    }
    fn on_shutdown(&mut self, _: State) -> Outcome {
        self.socket = None;
        self.answer(|p| &p.on_shutdown)
    }
    fn on_error(&mut self, _: State) -> Outcome {
        self.socket = None;
        self.answer(|p| &p.on_error)
    }
}

fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters(Params::default())?;
    let period = params.lock()?.publish_period_ms.max(1) as u64;
    let count =
        lc.publisher::<StringMsg>(&mut app.node, "lifecycle_selftest/count", qos::commands())?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    {
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(period));
            let mut n = 0u64;
            loop {
                tokio::select! {
                    _ = shutdown.wait() => break,
                    _ = tick.tick() => {
                        n += 1;
                        let _ = count.publish(&StringMsg { data: n.to_string() });
                    }
                }
            }
        });
    }
    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown, Vec::new);
    Ok(Box::new(Node {
        params,
        socket: None,
    }))
}

fn main() {
    node_glue::lifecycle::main_with("lifecycle_selftest", setup)
}
