//! Time on the node's ROS clock: stamps, sleeps and intervals that honour `use_sim_time`.
//!
//! [`crate::App::new`] reads `use_sim_time` (`-p use_sim_time:=true` or a params file; a
//! bool, default false, read only at start) and installs the node's clock here (one node
//! per process). With sim time **off** the clock is the system clock (what rcl's ROS clock
//! reads without an override): stamps are system time and [`sleep`] / [`Interval`] are
//! tokio's own timers (no change from wall time). With sim time **on** the node subscribes
//! to `/clock` (`rosgraph_msgs/Clock`, best effort, keep last 1, as rclcpp's time source;
//! e.g. `arnie_bag play --clock`): the clock reads the last `/clock` value (0 until the
//! first one), and sleeps and intervals wake when `/clock` passes their deadline. Until
//! the first `/clock` an interval does not tick at all: a node waits, it neither spins nor
//! panics. The clock only moves when `/clock` does: a timer cannot fire between two
//! `/clock` messages, so publish `/clock` at least `rate / period` Hz.
//!
//! Why our own `/clock` subscription and not r2r's `TimeSource` / `Node::create_timer`?
//! r2r 0.9.7 compiles its time source only under the cfg `r2r__rosgraph_msgs__msg__Clock`,
//! which its build script prints only when it regenerates the bindings, not when it reuses
//! its cache (a rebuild with an environment seen before): whether `get_time_source` exists
//! would depend on the build history. And rcl timers must be created on the node before it
//! spins, with a fixed period, while a brain run picks its tick period per task; these
//! work from any task, any time, on one clock.
use futures::StreamExt;
use r2r::builtin_interfaces::msg::Time;
use r2r::std_msgs::msg::Header;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// The node's clock (a cheap handle: clone it freely).
#[derive(Clone)]
pub struct RosClock {
    /// With sim time: the last `/clock` value (0 before the first). None: system time.
    sim: Option<watch::Receiver<Duration>>,
}

static CLOCK: OnceLock<RosClock> = OnceLock::new();

fn system_now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// Installs this process's clock (the first call wins); with `sim`, subscribes `node` to
/// `/clock` and spawns (on `runtime`) the task that follows it.
pub(crate) fn install(
    node: &mut r2r::Node,
    sim: bool,
    runtime: &tokio::runtime::Handle,
) -> r2r::Result<()> {
    let clock = if sim {
        let qos = r2r::QosProfile::default().keep_last(1).best_effort();
        let mut ticks = node.subscribe::<r2r::rosgraph_msgs::msg::Clock>("/clock", qos)?;
        let (tx, rx) = watch::channel(Duration::ZERO);
        runtime.spawn(async move {
            while let Some(msg) = ticks.next().await {
                let t = Duration::new(
                    msg.clock.sec.max(0) as u64,
                    msg.clock.nanosec.min(999_999_999),
                );
                tx.send_if_modified(|seen| std::mem::replace(seen, t) != t);
            }
        });
        RosClock { sim: Some(rx) }
    } else {
        RosClock { sim: None }
    };
    let _ = CLOCK.set(clock);
    Ok(())
}

impl RosClock {
    /// Now on this clock (since the epoch; with sim time, 0 before the first `/clock`).
    pub fn now(&self) -> Duration {
        match &self.sim {
            Some(rx) => *rx.borrow(),
            None => system_now(),
        }
    }
    /// True when the clock follows `/clock`.
    pub fn is_sim(&self) -> bool {
        self.sim.is_some()
    }
}

/// Waits until `rx` (the /clock value) satisfies `f`; forever once the sender is gone.
async fn wait_sim(rx: &watch::Receiver<Duration>, f: impl FnMut(&Duration) -> bool) {
    let mut rx = rx.clone();
    if rx.wait_for(f).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn sim_rx() -> Option<&'static watch::Receiver<Duration>> {
    CLOCK.get().and_then(|c| c.sim.as_ref())
}

/// The process's ROS clock, once [`crate::App::new`] made it (none in plain unit tests).
pub fn clock() -> Option<RosClock> {
    CLOCK.get().cloned()
}

/// True when the node runs on `/clock` (`use_sim_time:=true`).
pub fn sim_time() -> bool {
    sim_rx().is_some()
}

/// Now on the node's ROS clock (system time without an [`crate::App`]), since the epoch.
pub fn now_duration() -> Duration {
    CLOCK.get().map(RosClock::now).unwrap_or_else(system_now)
}

/// Now on the node's ROS clock, as a `builtin_interfaces/Time`.
pub fn now() -> Time {
    stamp(now_duration())
}

/// A duration since the epoch as a `builtin_interfaces/Time`.
pub fn stamp(d: Duration) -> Time {
    Time {
        sec: d.as_secs() as i32,
        nanosec: d.subsec_nanos(),
    }
}

/// A time span [s] as a `builtin_interfaces/Duration` (action feedback and results:
/// Nav2's `navigation_time`, `total_elapsed_time` ...): 0 for a negative or non-finite
/// span, saturated at `i32::MAX` seconds.
pub fn duration_msg(secs: f64) -> r2r::builtin_interfaces::msg::Duration {
    let secs = if secs.is_finite() { secs.max(0.0) } else { 0.0 };
    let whole = secs.floor();
    r2r::builtin_interfaces::msg::Duration {
        sec: whole.min(f64::from(i32::MAX)) as i32,
        nanosec: ((secs - whole) * 1e9) as u32,
    }
}

/// A header stamped now (ROS clock) in `frame_id`.
pub fn header(frame_id: &str) -> Header {
    Header {
        stamp: now(),
        frame_id: frame_id.to_string(),
    }
}

/// Seconds since the epoch of a stamp.
pub fn seconds(t: &Time) -> f64 {
    t.sec as f64 + t.nanosec as f64 * 1e-9
}

/// Waits until the ROS clock reads at least `deadline` (and, with sim time, has started).
pub async fn sleep_until(deadline: Duration) {
    match sim_rx() {
        Some(rx) => wait_sim(rx, |t| !t.is_zero() && *t >= deadline).await,
        None => tokio::time::sleep(deadline.saturating_sub(now_duration())).await,
    }
}

/// Waits `d` on the ROS clock.
pub async fn sleep(d: Duration) {
    match sim_rx() {
        Some(_) => {
            started().await;
            sleep_until(now_duration() + d).await
        }
        None => tokio::time::sleep(d).await,
    }
}

/// Resolves once the ROS clock runs: at once with wall time, at the first `/clock` with
/// sim time.
pub async fn started() {
    if let Some(rx) = sim_rx() {
        wait_sim(rx, |t| !t.is_zero()).await;
    }
}

/// An interval on the ROS clock; see [`interval`].
pub struct Interval {
    inner: Inner,
}

enum Inner {
    Wall(tokio::time::Interval),
    Sim {
        period: Duration,
        next: Option<Duration>,
        missed: tokio::time::MissedTickBehavior,
    },
}

/// Ticks every `period` of the node's ROS clock, the first tick at once (with sim time:
/// at the first `/clock`). Missed ticks: [`tokio::time::MissedTickBehavior::Skip`] unless
/// set otherwise; with sim time a tick is missed only when `/clock` jumped a whole period
/// past it (a tick woken by a later `/clock` step keeps the phase). Without sim time it is
/// a tokio interval.
///
/// # Panics
/// Never: a zero period is raised to 1 ns (tokio would panic on it).
pub fn interval(period: Duration) -> Interval {
    let period = period.max(Duration::from_nanos(1));
    let missed = tokio::time::MissedTickBehavior::Skip;
    let inner = if sim_time() {
        Inner::Sim {
            period,
            next: None,
            missed,
        }
    } else {
        let mut i = tokio::time::interval(period);
        i.set_missed_tick_behavior(missed);
        Inner::Wall(i)
    };
    Interval { inner }
}

impl Interval {
    /// As tokio's: what a late tick does to the next ones.
    pub fn set_missed_tick_behavior(&mut self, b: tokio::time::MissedTickBehavior) {
        match &mut self.inner {
            Inner::Wall(i) => i.set_missed_tick_behavior(b),
            Inner::Sim { missed, .. } => *missed = b,
        }
    }

    /// Waits for the next tick; returns the ROS time of the tick (since the epoch).
    pub async fn tick(&mut self) -> Duration {
        use tokio::time::MissedTickBehavior as M;
        match &mut self.inner {
            Inner::Wall(i) => {
                i.tick().await;
                now_duration()
            }
            Inner::Sim {
                period,
                next,
                missed,
            } => {
                let period = *period;
                let (deadline, last) = match *next {
                    Some(t) => (t, t.saturating_sub(period)),
                    None => {
                        started().await;
                        (now_duration(), Duration::ZERO)
                    }
                };
                // Wakes at the deadline, or at once when /clock went back before the last
                // tick (a looped or restarted bag): then the interval restarts from now.
                if let Some(rx) = sim_rx() {
                    wait_sim(rx, |t| !t.is_zero() && (*t >= deadline || *t < last)).await;
                }
                let now = now_duration();
                // A tick counts as missed only when a whole period went by: `/clock` moves
                // in steps, and waking a step late must not shift the phase.
                *next = Some(if now < last {
                    now + period
                } else if now < deadline + period {
                    deadline + period
                } else {
                    match missed {
                        M::Burst => deadline + period,
                        M::Delay => now + period,
                        _ => {
                            // Skip: the next multiple of the period after now.
                            let behind =
                                now.saturating_sub(deadline).as_nanos() / period.as_nanos().max(1);
                            let ahead = period
                                .as_nanos()
                                .saturating_mul(behind + 1)
                                .min(u64::MAX as u128);
                            deadline + Duration::from_nanos(ahead as u64)
                        }
                    }
                });
                now
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_split_seconds_and_nanoseconds() {
        let t = stamp(Duration::new(12, 345));
        assert_eq!((t.sec, t.nanosec), (12, 345));
        assert!((seconds(&t) - 12.000000345).abs() < 1e-12);
    }

    #[tokio::test]
    async fn without_an_app_intervals_are_wall_intervals() {
        let mut i = interval(Duration::from_millis(1));
        let a = i.tick().await;
        let b = i.tick().await;
        assert!(b >= a);
        assert!(!sim_time());
    }
}
