//! The ROS 2 side of the `lidar` node (feature `ros`): the only module that uses r2r. The
//! binary only calls [`run`].
//!
//! - publishes `scan` (`sensor_msgs/LaserScan`, sensor QoS: best effort, keep-last 5),
//!   one per revolution, in `frame_id` (the URDF's `laser` link), stamped with the time
//!   of its first ray on the node's clock;
//! - `/diagnostics`: status `<node>: lidar` (the decoder's, the assembler's and the
//!   link's counters; ERROR while the port is not open or the LiDAR is silent),
//!   `hardware_id` the port.
//!
//! One task owns the port: it opens it (again every `reopen_ms` while that fails, logged
//! at most once a second), reads what comes (up to 4 KiB at a time) into the
//! [`Driver`], publishes each scan, and watches for silence every 50 ms. A read error
//! or end of file (an adapter unplugged, the simulator's pty closed) closes the port and
//! the task goes back to opening it: a symlink re-pointed at a new pty, or the same
//! device plugged back in, is picked up within `reopen_ms`.
//!
//! Layout: `params` (the parameters), `counters` (`/diagnostics`).
mod counters;
mod params;

use std::sync::Arc;
use std::time::{Duration, Instant};

use arnie_packets::transport::SerialPort;
use ld06::Scan;
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher, Managed, Outcome, State};
use node_glue::r2r::{self, sensor_msgs::msg::LaserScan, std_msgs::msg::Header};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error, ParameterError, Shutdown};

use crate::{Driver, Health, LidarConfig};
use counters::Counters;
use params::LidarParams;

/// The node's default name.
pub const NODE: &str = "lidar";
/// Its output (relative: `namespace:=` moves it).
pub use node_glue::topics::SCAN;

/// How often silence is checked [ms].
const TICK_MS: u64 = 50;

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls.
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// How long cleanup waits for the port's task to end.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// The driver as a managed node: the port's task (open, read, open again after a loss)
/// runs from configure to cleanup; scans go out only while the node is active.
struct Lidar {
    handle: tokio::runtime::Handle,
    cfg: LidarConfig,
    scans: LifecyclePublisher<LaserScan>,
    counters: Arc<Counters>,
    shutdown: Shutdown,
    running: Option<(node_glue::Stop, tokio::task::JoinHandle<()>)>,
}

impl Lidar {
    /// Starts the port's task (a port that does not open yet is retried, as at start).
    fn start(&mut self) {
        self.stop();
        let (stop, shutdown) = self.shutdown.child();
        let _rt = self.handle.enter();
        let task = tokio::spawn(own_port(
            self.cfg.clone(),
            self.scans.clone(),
            self.counters.clone(),
            shutdown,
        ));
        node_glue::log_info!("the LiDAR's port {}: opened from now on", self.cfg.port);
        self.running = Some((stop, task));
    }

    /// Stops the port's task: the port is closed.
    fn stop(&mut self) {
        let Some((stop, task)) = self.running.take() else {
            return;
        };
        stop.stop();
        if self
            .handle
            .block_on(tokio::time::timeout(STOP_WAIT, task))
            .is_err()
        {
            node_glue::log_warn!(
                "the LiDAR's port task did not stop within {} s",
                STOP_WAIT.as_secs()
            );
        } else {
            node_glue::log_info!("the LiDAR's port {} closed", self.cfg.port);
        }
    }
}

impl Managed for Lidar {
    fn on_configure(&mut self, _: State) -> Outcome {
        self.start();
        Ok(())
    }
    fn on_cleanup(&mut self, _: State) -> Outcome {
        self.stop();
        Ok(())
    }
    fn on_shutdown(&mut self, _: State) -> Outcome {
        self.stop();
        Ok(())
    }
    fn on_error(&mut self, _: State) -> Outcome {
        self.stop();
        Ok(())
    }
}

/// Creates the publisher (`node_glue::lifecycle::main_with(NODE, setup)`); the port's
/// task starts on configure ([`Lidar`]).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created. A port that does not
/// open is not an error: the node configures, says so and keeps trying.
pub fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let rules = node_glue::params::Rules {
        check: |p: &LidarParams| p.config().map(|_| ()).map_err(Into::into),
    };
    let params = app.parameters_checked(LidarParams::default(), rules)?;
    let p = params.lock()?.clone();
    let cfg = p.config().map_err(ParameterError::node)?;
    let scans = lc.publisher::<LaserScan>(&mut app.node, topics::SCAN, qos::sensor())?;
    let diagnostics = app.diagnostics()?.with_hardware_id(cfg.port.clone());
    let shutdown = app.shutdown();
    let counters = Arc::new(Counters::default());
    let _rt = app.handle().enter();
    let port = cfg.port.clone();
    let status = counters.clone();
    diagnostics.spawn_periodic(
        Duration::from_millis(p.diagnostics_period_ms as u64),
        shutdown.clone(),
        move || vec![status.status(&port)],
    );
    Ok(Box::new(Lidar {
        handle: app.handle(),
        cfg,
        scans,
        counters,
        shutdown,
        running: None,
    }))
}

/// The node's clock now, and the monotonic seconds the driver runs on.
struct Clock {
    t0: Instant,
}

impl Clock {
    fn mono(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    /// A monotonic time as a stamp on the node's clock (ROS time now, minus how long ago).
    fn stamp(&self, mono_s: f64) -> r2r::builtin_interfaces::msg::Time {
        let now = node_glue::time::now_duration();
        let ago = Duration::try_from_secs_f64((self.mono() - mono_s).max(0.0)).unwrap_or_default();
        node_glue::time::stamp(now.saturating_sub(ago))
    }
}

struct Port {
    cfg: LidarConfig,
    driver: Driver,
    publisher: LifecyclePublisher<LaserScan>,
    counters: Arc<Counters>,
    clock: Clock,
    logs: RateLimit,
}

/// The port's task: open, read, publish; again after a failure; until shutdown.
async fn own_port(
    cfg: LidarConfig,
    publisher: LifecyclePublisher<LaserScan>,
    counters: Arc<Counters>,
    shutdown: Shutdown,
) {
    let mut port = Port {
        driver: Driver::new(&cfg),
        cfg,
        publisher,
        counters,
        clock: Clock { t0: Instant::now() },
        logs: RateLimit::default(),
    };
    port.report(Some(Health::NotOpen), "not opened yet".into());
    let reopen = Duration::from_millis(u64::from(port.cfg.reopen_ms));
    loop {
        if shutdown.is_set() {
            return;
        }
        match SerialPort::open(&port.cfg.port, port.cfg.baud) {
            Err(e) => {
                port.counters.open_failures.inc();
                node_glue::warn_limited!(
                    port.logs,
                    "open",
                    "cannot open the LiDAR's port {}: {e}; trying again every {} ms",
                    port.cfg.port,
                    port.cfg.reopen_ms
                );
                port.report(Some(Health::NotOpen), e.to_string());
            }
            Ok(serial) => {
                node_glue::log_info!(
                    "reading the LD06 on {} at {} baud (scans in '{}' on {SCAN})",
                    port.cfg.port,
                    port.cfg.baud,
                    port.cfg.frame_id
                );
                port.driver.opened(port.clock.mono());
                let why = port.read(&serial, &shutdown).await;
                let rejected = port.driver.closed(port.clock.mono());
                port.count_rejections(&rejected);
                match why {
                    None => return,
                    Some(why) => {
                        port.counters.read_errors.inc();
                        node_glue::log_warn!(
                            "the LiDAR's port {} closed ({why}): no scans; opening it again every {} ms",
                            port.cfg.port,
                            port.cfg.reopen_ms
                        );
                        port.report(Some(Health::NotOpen), why);
                    }
                }
            }
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = tokio::time::sleep(reopen) => {}
        }
    }
}

impl Port {
    /// Reads until the port fails (`Some(why)`) or shutdown (`None`).
    async fn read(&mut self, serial: &SerialPort, shutdown: &Shutdown) -> Option<String> {
        let mut buf = vec![0u8; 4096];
        let mut tick = tokio::time::interval(Duration::from_millis(TICK_MS));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                _ = shutdown.wait() => return None,
                r = serial.read(&mut buf) => match r {
                    Ok(n) => {
                        let now = self.clock.mono();
                        let (scans, rejected) = self.driver.on_bytes(&buf[..n], now);
                        self.count_rejections(&rejected);
                        for s in scans {
                            self.publish(&s);
                        }
                        self.report(Some(self.driver.health(now)), String::new());
                    }
                    Err(e) => return Some(e.to_string()),
                },
                _ = tick.tick() => {
                    let now = self.clock.mono();
                    if let Some(quiet) = self.driver.tick(now) {
                        node_glue::log_warn!(
                            "no data from the LiDAR on {} for {quiet:.2} s (silence_timeout_ms {}): no scans",
                            self.cfg.port,
                            self.cfg.silence_timeout_ms
                        );
                    }
                    self.report(Some(self.driver.health(now)), String::new());
                }
            }
        }
    }

    fn count_rejections(&self, rejected: &[ld06::Rejected]) {
        if let Some(first) = rejected.first() {
            node_glue::warn_limited!(
                self.logs,
                "rejected",
                "LiDAR stream: {first} ({} rejected in this read; resynchronised)",
                rejected.len()
            );
        }
    }

    fn report(&self, health: Option<Health>, why: String) {
        if let Ok(mut d) = self.counters.driver.lock() {
            *d = self.driver.pairs();
        }
        if let Ok(mut h) = self.counters.health.lock() {
            *h = (health, why);
        }
    }

    fn publish(&mut self, s: &Scan) {
        let msg = LaserScan {
            header: Header {
                stamp: self.clock.stamp(s.stamp_s),
                frame_id: self.cfg.frame_id.clone(),
            },
            angle_min: s.angle_min as f32,
            angle_max: s.angle_max as f32,
            angle_increment: s.angle_increment as f32,
            time_increment: s.time_increment as f32,
            scan_time: s.scan_time as f32,
            range_min: s.range_min as f32,
            range_max: s.range_max as f32,
            ranges: s.ranges.clone(),
            intensities: s.intensities.clone(),
        };
        match self.publisher.publish(&msg) {
            Ok(()) => self.counters.scans_published.inc(),
            Err(e) => {
                self.counters.publish_errors.inc();
                node_glue::warn_limited!(self.logs, "publish", "could not publish {SCAN}: {e}");
            }
        }
    }
}
