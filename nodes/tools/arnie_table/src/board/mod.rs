//! The simulated motor / actuator board, pure: time is passed in (`now_ms`, since the
//! board started), inputs are the decoded command packets, outputs the packets to send.
//!
//! - **Motion**: the differential drive's (v, ω) form: commanded speeds are clamped to
//!   the robot's limits and reached at its acceleration limits (`Stop` brakes at the
//!   emergency deceleration); the true pose integrates them in steps of at most
//!   [`STEP_MS`]. A step that would bring the robot's disc into a wall, a fixed obstacle
//!   or the opponent (closer than before) is not taken: the robot stalls there, its
//!   speed drops to 0 and a `collision` event is logged.
//! - **Watchdog**: no `DriveSpeed` for its `watchdog_ms` (0 = the scenario's default)
//!   → the command becomes 0 (a `watchdog` event, odometry flag bit 1).
//! - **Odometry** at the scenario's rate: the board's own estimate, integrating the true
//!   motion with Gaussian errors (seeded): after a distance d the position error has a
//!   standard deviation of `linear_noise`·√(d / 1 m) metres, the heading one
//!   `angular_noise`·√(|Δθ| / 1 rad) radians.
//! - **Sensors**: each at its rate casts its ray; a hit within `range_m` of the robot's
//!   edge (walls, fixed obstacles, the opponent) gives an `ObstacleReport`.
//! - **Opponent**: its scripted path starts with our robot's first motion command (a
//!   `DriveSpeed` with a non-zero speed, logged as `opponent_starts`), or at board time
//!   0 with `start_on: "board_start"`; until it starts it stands at its first waypoint.
//! - **Actuators**: a command is acknowledged at once (busy / invalid refused) and done
//!   after its duration (`ActuatorDone`).
//! - **Start cord**: in at the start; [`Board::pull_cord`] pulls it (put back first if
//!   it was out: a second pull), [`Board::insert_cord`] puts it back; `StartCord` reports
//!   it every 100 ms and at once on a change. `MatchReady` is acknowledged; with
//!   [`Options::cord_pull_after_ready_ms`] the simulated operator then pulls the cord
//!   that long after (putting it back first if it was out).
//! - **LiDAR** (with [`Options::lidar`] and a scenario `lidar`): the [`SimLidar`] streams
//!   LD06 packets from the true pose, taken with [`Board::take_lidar_bytes`];
//!   [`Board::set_lidar_power`] switches it off and on.
use crate::geometry::{cast, shape_distance, Hit};
use crate::lidar::{laser_pose, SimLidar};
use crate::opponent::Script;
use crate::scenario::{Action, Disc, OpponentStart, Scenario};
use arnie_packets::typed::{
    Ack, Actuator, ActuatorDone, DriveSpeed, MatchReady, ObstacleReport, Odometry, SetPose,
    StartCord, Stop,
};
use std::collections::{BTreeMap, BTreeSet};

mod cord_lidar;
mod io;
mod physics;
#[cfg(test)]
mod tests;

pub use arnie_math::{wrap_angle, Pose2 as Pose, Rng};
use arnie_packets::typed::{from_milli, to_milli};
pub use io::{
    Event, Input, Output, ACK_BUSY, ACK_INVALID, ACK_OK, DONE_FAILED, DONE_OK, FLAG_ACTUATOR_BUSY,
    FLAG_MOVING, FLAG_OBSTACLE, FLAG_STOPPED, FLAG_WATCHDOG, ID_ACTUATOR, ID_MATCH_READY,
    ID_SET_POSE, ID_STOP,
};

/// `StartCord` packets are sent this often [ms] (and at once on every change).
pub const CORD_PERIOD_MS: u64 = 100;

/// Longest integration step [ms].
pub const STEP_MS: u64 = 5;

/// Settings beyond the scenario (command-line overrides).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Multiplies the scenario's odometry noise (0 = exact odometry).
    pub noise_scale: f64,
    /// Replaces the scenario's noise seed.
    pub seed: Option<u64>,
    /// Replaces the scenario's default watchdog [ms].
    pub watchdog_ms: Option<u32>,
    /// Stream the scenario's LiDAR (from board time 0; needs a scenario `lidar`).
    pub lidar: bool,
    /// After a `MatchReady`, pull the start cord this long after [ms] (the operator).
    pub cord_pull_after_ready_ms: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            noise_scale: 1.0,
            seed: None,
            watchdog_ms: None,
            lidar: false,
            cord_pull_after_ready_ms: None,
        }
    }
}

/// The start cord.
#[derive(Clone, Copy, Debug, Default)]
struct Cord {
    out: bool,
    pulls: u8,
    pulled_at_ms: u64,
    seq: u16,
    next_ms: u64,
    /// A pull the operator will make (after a `MatchReady`).
    pull_at_ms: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Following `DriveSpeed` commands.
    Drive,
    /// Braking after `Stop`, until a `DriveSpeed` with another seq.
    Stopped,
    /// The watchdog fired: braking until the next `DriveSpeed`.
    Watchdog,
}

#[derive(Clone, Copy, Debug)]
struct Move {
    seq: u16,
    action: Action,
    element: u8,
    start_ms: u64,
    done_ms: u64,
}

/// The board.
#[derive(Debug)]
pub struct Board {
    s: Scenario,
    opponent: Option<Script>,
    /// Board time of the opponent's script time 0; `None` until it starts.
    opponent_t0_ms: Option<u64>,
    now_ms: u64,
    truth: Pose,
    odom: Pose,
    v: f64,
    w: f64,
    cmd_v: f64,
    cmd_w: f64,
    mode: Mode,
    cmd_seq: u16,
    any_drive: bool,
    last_cmd_ms: u64,
    watchdog_ms: u64,
    default_watchdog_ms: u64,
    noise: (f64, f64),
    rng: Rng,
    next_odom_ms: u64,
    odom_seq: u16,
    next_sensor_ms: Vec<u64>,
    obstacle_seq: u16,
    in_range: Vec<bool>,
    moves: BTreeMap<u8, Move>,
    taken: BTreeSet<u8>,
    colliding: bool,
    events: Vec<Event>,
    outputs: Vec<Output>,
    cord: Cord,
    cord_pull_after_ready_ms: Option<u64>,
    lidar: Option<SimLidar>,
}

impl Board {
    /// A board at the scenario's start pose (truth and odometry), at time 0.
    pub fn new(s: Scenario, opts: Options) -> Board {
        let start = Pose {
            theta: wrap_angle(s.robot.start.theta),
            ..s.robot.start
        };
        let opponent = s.opponent.as_ref().map(Script::new);
        let opponent_t0_ms = match s.opponent.as_ref().map(|o| o.start_on) {
            Some(OpponentStart::BoardStart) => Some(0),
            _ => None,
        };
        let scale = if opts.noise_scale.is_finite() {
            opts.noise_scale.max(0.0)
        } else {
            0.0
        };
        let noise = (
            s.odometry.linear_noise * scale,
            s.odometry.angular_noise * scale,
        );
        let rng = Rng::new(opts.seed.unwrap_or(s.odometry.seed));
        let default_watchdog_ms = u64::from(opts.watchdog_ms.unwrap_or(s.robot.watchdog_ms).max(1));
        let next_sensor_ms = vec![0; s.sensors.len()];
        let lidar = match (opts.lidar, s.lidar) {
            (true, Some(spec)) => {
                let mut l = SimLidar::new(spec, opts.seed);
                l.set_on(true, 0);
                Some(l)
            }
            _ => None,
        };
        Board {
            cord: Cord::default(),
            cord_pull_after_ready_ms: opts.cord_pull_after_ready_ms,
            lidar,
            in_range: vec![false; s.sensors.len()],
            opponent,
            opponent_t0_ms,
            now_ms: 0,
            truth: start,
            odom: start,
            v: 0.0,
            w: 0.0,
            cmd_v: 0.0,
            cmd_w: 0.0,
            mode: Mode::Drive,
            cmd_seq: 0,
            any_drive: false,
            last_cmd_ms: 0,
            watchdog_ms: default_watchdog_ms,
            default_watchdog_ms,
            noise,
            rng,
            next_odom_ms: 0,
            odom_seq: 0,
            next_sensor_ms,
            obstacle_seq: 0,
            moves: BTreeMap::new(),
            taken: BTreeSet::new(),
            colliding: false,
            events: Vec::new(),
            outputs: Vec::new(),
            s,
        }
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.s
    }

    /// Board time [ms].
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The true pose.
    pub fn truth(&self) -> Pose {
        self.truth
    }

    /// The board's odometry estimate.
    pub fn odometry(&self) -> Pose {
        self.odom
    }

    /// True speeds (v [m/s], ω [rad/s]).
    pub fn speeds(&self) -> (f64, f64) {
        (self.v, self.w)
    }

    /// The opponent's position and heading now, if there is one.
    pub fn opponent(&self) -> Option<(f64, f64, f64)> {
        self.opponent
            .as_ref()
            .map(|o| o.pose_at(self.opponent_time_s(self.now_ms)))
    }

    /// The opponent's script time at board time `t_ms` [s] (0 until it starts).
    fn opponent_time_s(&self, t_ms: u64) -> f64 {
        self.opponent_t0_ms
            .map_or(0.0, |t0| t_ms.saturating_sub(t0) as f64 / 1000.0)
    }

    /// Elements taken so far.
    pub fn taken(&self) -> &BTreeSet<u8> {
        &self.taken
    }

    /// The events since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// When [`advance`](Self::advance) next has something to send [ms].
    pub fn next_deadline_ms(&self) -> u64 {
        let mut t = self.next_odom_ms.min(self.cord.next_ms);
        if let Some(p) = self.cord.pull_at_ms {
            t = t.min(p);
        }
        if let Some(l) = self.lidar.as_ref().and_then(SimLidar::next_packet_ms) {
            t = t.min(l);
        }
        for &s in &self.next_sensor_ms {
            t = t.min(s);
        }
        for m in self.moves.values() {
            t = t.min(m.done_ms);
        }
        if self.any_drive && self.mode == Mode::Drive {
            t = t.min(self.last_cmd_ms + self.watchdog_ms + 1);
        }
        t.max(self.now_ms)
    }

    /// Applies one command at `now_ms` (the board first runs up to then); returns what to
    /// send (acknowledgements and anything due on the way).
    pub fn input(&mut self, now_ms: u64, input: Input) -> Vec<Output> {
        self.run_to(now_ms);
        match input {
            Input::Drive(DriveSpeed {
                seq,
                linear_mm_s,
                angular_mrad_s,
                watchdog_ms,
            }) => {
                if self.mode == Mode::Stopped && self.any_drive && seq == self.cmd_seq {
                    // A stale command from before the Stop.
                } else {
                    if self.mode != Mode::Drive {
                        self.event("resume", format!("DriveSpeed seq {seq}"));
                    }
                    let r = &self.s.robot;
                    self.cmd_v =
                        (from_milli(linear_mm_s)).clamp(-r.max_linear_m_s, r.max_linear_m_s);
                    self.cmd_w = (from_milli(angular_mrad_s))
                        .clamp(-r.max_angular_rad_s, r.max_angular_rad_s);
                    self.cmd_seq = seq;
                    self.any_drive = true;
                    let on_motion = self
                        .s
                        .opponent
                        .as_ref()
                        .is_some_and(|o| o.start_on == OpponentStart::FirstMotion);
                    if on_motion
                        && self.opponent_t0_ms.is_none()
                        && (linear_mm_s != 0 || angular_mrad_s != 0)
                    {
                        self.opponent_t0_ms = Some(self.now_ms);
                        self.event(
                            "opponent_starts",
                            format!("with our robot's first motion (DriveSpeed seq {seq})"),
                        );
                    }
                    self.last_cmd_ms = self.now_ms;
                    self.watchdog_ms = if watchdog_ms == 0 {
                        self.default_watchdog_ms
                    } else {
                        u64::from(watchdog_ms)
                    };
                    self.mode = Mode::Drive;
                }
            }
            Input::Stop(Stop { seq }) => {
                self.cmd_v = 0.0;
                self.cmd_w = 0.0;
                self.mode = Mode::Stopped;
                self.event("stop", format!("Stop seq {seq}"));
                self.outputs.push(Output::Ack(Ack {
                    command: ID_STOP,
                    seq,
                    status: ACK_OK,
                }));
            }
            Input::SetPose(SetPose {
                seq,
                x_mm,
                y_mm,
                theta_mrad,
            }) => {
                let (x, y, th) = (from_milli(x_mm), from_milli(y_mm), from_milli(theta_mrad));
                let status = if x.is_finite() && y.is_finite() && th.is_finite() {
                    self.odom = Pose {
                        x,
                        y,
                        theta: wrap_angle(th),
                    };
                    self.event("set_pose", format!("({x:.3}, {y:.3}, {th:.3})"));
                    ACK_OK
                } else {
                    ACK_INVALID
                };
                self.outputs.push(Output::Ack(Ack {
                    command: ID_SET_POSE,
                    seq,
                    status,
                }));
            }
            Input::Actuator(Actuator {
                seq,
                actuator,
                action,
                element,
            }) => {
                let known = self.s.actuator_by_id(actuator).cloned();
                let status = match (known, Action::from_code(action)) {
                    (Some(a), Some(act)) => {
                        if self.moves.contains_key(&actuator) {
                            ACK_BUSY
                        } else {
                            let ms = match act {
                                Action::Take => a.take_ms,
                                Action::Release => a.release_ms,
                                Action::Home => a.home_ms,
                            };
                            let m = Move {
                                seq,
                                action: act,
                                element,
                                start_ms: self.now_ms,
                                done_ms: self.now_ms + u64::from(ms),
                            };
                            self.moves.insert(actuator, m);
                            self.event(
                                "actuator_start",
                                format!("{} {:?} element {element} seq {seq}", a.name, act),
                            );
                            ACK_OK
                        }
                    }
                    _ => ACK_INVALID,
                };
                self.outputs.push(Output::Ack(Ack {
                    command: ID_ACTUATOR,
                    seq,
                    status,
                }));
            }
            Input::MatchReady(MatchReady {
                seq,
                colour,
                duration_s,
            }) => {
                let status = if colour <= 1 { ACK_OK } else { ACK_INVALID };
                self.event(
                    "match_ready",
                    format!(
                        "colour {} ({colour}), {duration_s} s",
                        match colour {
                            0 => "blue",
                            1 => "yellow",
                            _ => "unknown",
                        }
                    ),
                );
                if let (ACK_OK, Some(after)) = (status, self.cord_pull_after_ready_ms) {
                    if self.cord.out {
                        self.cord.out = false;
                        self.event("cord_inserted", "the operator arms the robot".into());
                        self.cord_packet();
                    }
                    self.cord.pull_at_ms = Some(self.now_ms + after);
                }
                self.outputs.push(Output::Ack(Ack {
                    command: ID_MATCH_READY,
                    seq,
                    status,
                }));
            }
        }
        std::mem::take(&mut self.outputs)
    }

    /// Runs the board up to `now_ms`; returns the packets that fell due.
    pub fn advance(&mut self, now_ms: u64) -> Vec<Output> {
        self.run_to(now_ms);
        std::mem::take(&mut self.outputs)
    }

    fn run_to(&mut self, now_ms: u64) {
        self.due();
        while self.now_ms < now_ms {
            let dt_ms = (now_ms - self.now_ms).min(STEP_MS);
            // Stop exactly at the next deadline so packets carry their own time.
            let due = self.next_deadline_ms();
            let dt_ms = if due > self.now_ms {
                dt_ms.min(due - self.now_ms)
            } else {
                dt_ms
            };
            self.step(dt_ms);
            self.now_ms += dt_ms;
            self.due();
        }
    }

    /// Emits whatever is due at `self.now_ms`.
    fn due(&mut self) {
        let now = self.now_ms;
        if self.any_drive && self.mode == Mode::Drive && now > self.last_cmd_ms + self.watchdog_ms {
            self.mode = Mode::Watchdog;
            self.cmd_v = 0.0;
            self.cmd_w = 0.0;
            self.event(
                "watchdog",
                format!("no DriveSpeed for {} ms", now - self.last_cmd_ms),
            );
        }
        let finished: Vec<u8> = self
            .moves
            .iter()
            .filter(|(_, m)| m.done_ms <= now)
            .map(|(&k, _)| k)
            .collect();
        for id in finished {
            if let Some(m) = self.moves.remove(&id) {
                self.finish(id, m);
            }
        }
        for i in 0..self.next_sensor_ms.len() {
            if self.next_sensor_ms[i] <= now {
                let period = (1000.0 / self.s.sensors[i].rate_hz).round().max(1.0) as u64;
                self.next_sensor_ms[i] = now + period;
                self.sense(i);
            }
        }
        if self.next_odom_ms <= now {
            let period = (1000.0 / self.s.odometry.rate_hz).round().max(1.0) as u64;
            self.next_odom_ms = now + period;
            self.odometry_packet();
        }
        if self.cord.pull_at_ms.is_some_and(|t| t <= now) {
            self.pull(now);
        }
        if self.cord.next_ms <= now {
            self.cord_packet();
        }
        if self.lidar.is_some() {
            let opp = self.opponent_disc(now);
            let truth = self.truth;
            if let Some(l) = self.lidar.as_mut() {
                let at = laser_pose(truth, l.spec());
                l.emit(now, &self.s, at, opp.as_ref());
            }
        }
    }

    fn finish(&mut self, id: u8, m: Move) {
        let status = match m.action {
            Action::Take if m.element != 0 => {
                let (x, y) = (self.truth.x, self.truth.y);
                let here =
                    self.s.tasks.iter().any(|t| {
                        t.element == m.element && (t.x_m - x).hypot(t.y_m - y) <= t.reach_m
                    });
                if here && self.taken.insert(m.element) {
                    DONE_OK
                } else {
                    DONE_FAILED
                }
            }
            _ => DONE_OK,
        };
        let duration = (m.done_ms - m.start_ms).min(65_535) as u16;
        let name = self
            .s
            .actuator_by_id(id)
            .map_or(String::new(), |a| a.name.clone());
        self.event(
            "actuator_done",
            format!(
                "{name} {:?} element {} seq {} {}",
                m.action,
                m.element,
                m.seq,
                if status == DONE_OK { "ok" } else { "failed" }
            ),
        );
        self.outputs.push(Output::ActuatorDone(ActuatorDone {
            seq: m.seq,
            actuator: id,
            action: m.action.code(),
            element: m.element,
            status,
            duration_ms: duration,
        }));
    }

    fn odometry_packet(&mut self) {
        let mut flags = 0;
        if self.v != 0.0 || self.w != 0.0 {
            flags |= FLAG_MOVING;
        }
        match self.mode {
            Mode::Watchdog => flags |= FLAG_WATCHDOG,
            Mode::Stopped => flags |= FLAG_STOPPED,
            Mode::Drive => {}
        }
        if !self.moves.is_empty() {
            flags |= FLAG_ACTUATOR_BUSY;
        }
        if self.in_range.iter().any(|&b| b) {
            flags |= FLAG_OBSTACLE;
        }
        self.outputs.push(Output::Odometry(Odometry {
            seq: self.odom_seq,
            x_mm: to_milli(self.odom.x),
            y_mm: to_milli(self.odom.y),
            theta_mrad: to_milli(self.odom.theta),
            linear_mm_s: to_milli(self.v),
            angular_mrad_s: to_milli(self.w),
            cmd_seq: self.cmd_seq,
            flags,
        }));
        self.odom_seq = self.odom_seq.wrapping_add(1);
    }

    fn event(&mut self, kind: &'static str, detail: String) {
        self.events.push(Event {
            time_ms: self.now_ms,
            kind,
            detail,
        });
    }
}

/// Moves `v` towards `target` by at most `step`.
fn approach(v: f64, target: f64, step: f64) -> f64 {
    if (target - v).abs() <= step {
        target
    } else if target > v {
        v + step
    } else {
        v - step
    }
}
