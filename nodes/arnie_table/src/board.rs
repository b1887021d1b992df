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
//! - **Actuators**: a command is acknowledged at once (busy / invalid refused) and done
//!   after its duration (`ActuatorDone`).
use crate::geometry::{cast, shape_distance, wrap_angle, Hit};
use crate::opponent::Script;
use crate::scenario::{Action, Disc, Scenario};
use std::collections::{BTreeMap, BTreeSet};

/// Longest integration step [ms].
pub const STEP_MS: u64 = 5;

/// Odometry flag bits.
pub const FLAG_MOVING: u8 = 1;
pub const FLAG_WATCHDOG: u8 = 2;
pub const FLAG_STOPPED: u8 = 4;
pub const FLAG_ACTUATOR_BUSY: u8 = 8;
pub const FLAG_OBSTACLE: u8 = 16;

/// `Ack.status`.
pub const ACK_OK: u8 = 0;
pub const ACK_BUSY: u8 = 1;
pub const ACK_INVALID: u8 = 2;
/// `ActuatorDone.status`.
pub const DONE_OK: u8 = 0;
pub const DONE_FAILED: u8 = 1;

/// Packet ids (as in `nodes/arnie_comms/packets`), for `Ack.command`.
pub const ID_STOP: u8 = 31;
pub const ID_SET_POSE: u8 = 32;
pub const ID_ACTUATOR: u8 = 35;

/// A command received from the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    Drive {
        seq: u16,
        linear_mm_s: i16,
        angular_mrad_s: i16,
        watchdog_ms: u16,
    },
    Stop {
        seq: u16,
    },
    SetPose {
        seq: u16,
        x_mm: f32,
        y_mm: f32,
        theta_mrad: f32,
    },
    Actuator {
        seq: u16,
        actuator: u8,
        action: u8,
        element: u8,
    },
}

/// `v` × 1000, rounded and saturated to i16 (metres → mm, radians → mrad); NaN → 0.
fn milli(v: f64) -> i16 {
    (v * 1000.0)
        .round()
        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// A packet for the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Output {
    /// Integer millimetres / milliradians (rounded, saturated to i16: the table is
    /// 3 m × 2 m, θ is wrapped to (−π, π]); the board's clock is `seq` × the period.
    Odometry {
        seq: u16,
        x_mm: i16,
        y_mm: i16,
        theta_mrad: i16,
        linear_mm_s: i16,
        angular_mrad_s: i16,
        cmd_seq: u16,
        flags: u8,
    },
    Obstacle {
        seq: u16,
        sensor: u8,
        distance_mm: u16,
        bearing_mrad: i16,
        x_mm: f32,
        y_mm: f32,
    },
    Ack {
        command: u8,
        seq: u16,
        status: u8,
    },
    ActuatorDone {
        seq: u16,
        actuator: u8,
        action: u8,
        element: u8,
        status: u8,
        duration_ms: u16,
    },
}

/// Something worth a line in the truth log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub time_ms: u64,
    pub kind: &'static str,
    pub detail: String,
}

/// A pose [m, m, rad].
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pose {
    pub x: f64,
    pub y: f64,
    pub theta: f64,
}

/// Settings beyond the scenario (command-line overrides).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Multiplies the scenario's odometry noise (0 = exact odometry).
    pub noise_scale: f64,
    /// Replaces the scenario's noise seed.
    pub seed: Option<u64>,
    /// Replaces the scenario's default watchdog [ms].
    pub watchdog_ms: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            noise_scale: 1.0,
            seed: None,
            watchdog_ms: None,
        }
    }
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
}

impl Board {
    /// A board at the scenario's start pose (truth and odometry), at time 0.
    pub fn new(s: Scenario, opts: Options) -> Board {
        let start = Pose {
            x: s.robot.start.x_m,
            y: s.robot.start.y_m,
            theta: wrap_angle(s.robot.start.theta_rad),
        };
        let opponent = s.opponent.as_ref().map(Script::new);
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
        Board {
            in_range: vec![false; s.sensors.len()],
            opponent,
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
            .map(|o| o.pose_at(self.now_ms as f64 / 1000.0))
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
        let mut t = self.next_odom_ms;
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
            Input::Drive {
                seq,
                linear_mm_s,
                angular_mrad_s,
                watchdog_ms,
            } => {
                if self.mode == Mode::Stopped && self.any_drive && seq == self.cmd_seq {
                    // A stale command from before the Stop.
                } else {
                    if self.mode != Mode::Drive {
                        self.event("resume", format!("DriveSpeed seq {seq}"));
                    }
                    let r = &self.s.robot;
                    self.cmd_v = (f64::from(linear_mm_s) / 1000.0)
                        .clamp(-r.max_linear_m_s, r.max_linear_m_s);
                    self.cmd_w = (f64::from(angular_mrad_s) / 1000.0)
                        .clamp(-r.max_angular_rad_s, r.max_angular_rad_s);
                    self.cmd_seq = seq;
                    self.any_drive = true;
                    self.last_cmd_ms = self.now_ms;
                    self.watchdog_ms = if watchdog_ms == 0 {
                        self.default_watchdog_ms
                    } else {
                        u64::from(watchdog_ms)
                    };
                    self.mode = Mode::Drive;
                }
            }
            Input::Stop { seq } => {
                self.cmd_v = 0.0;
                self.cmd_w = 0.0;
                self.mode = Mode::Stopped;
                self.event("stop", format!("Stop seq {seq}"));
                self.outputs.push(Output::Ack {
                    command: ID_STOP,
                    seq,
                    status: ACK_OK,
                });
            }
            Input::SetPose {
                seq,
                x_mm,
                y_mm,
                theta_mrad,
            } => {
                let (x, y, th) = (
                    f64::from(x_mm) / 1000.0,
                    f64::from(y_mm) / 1000.0,
                    f64::from(theta_mrad) / 1000.0,
                );
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
                self.outputs.push(Output::Ack {
                    command: ID_SET_POSE,
                    seq,
                    status,
                });
            }
            Input::Actuator {
                seq,
                actuator,
                action,
                element,
            } => {
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
                self.outputs.push(Output::Ack {
                    command: ID_ACTUATOR,
                    seq,
                    status,
                });
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
        self.outputs.push(Output::ActuatorDone {
            seq: m.seq,
            actuator: id,
            action: m.action.code(),
            element: m.element,
            status,
            duration_ms: duration,
        });
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
        self.outputs.push(Output::Odometry {
            seq: self.odom_seq,
            x_mm: milli(self.odom.x),
            y_mm: milli(self.odom.y),
            theta_mrad: milli(self.odom.theta),
            linear_mm_s: milli(self.v),
            angular_mrad_s: milli(self.w),
            cmd_seq: self.cmd_seq,
            flags,
        });
        self.odom_seq = self.odom_seq.wrapping_add(1);
    }

    fn opponent_disc(&self, t_ms: u64) -> Option<Disc> {
        self.opponent.as_ref().map(|o| {
            let (x, y, _) = o.pose_at(t_ms as f64 / 1000.0);
            Disc {
                x_m: x,
                y_m: y,
                radius_m: o.radius_m,
            }
        })
    }

    fn sense(&mut self, i: usize) {
        let sensor = &self.s.sensors[i];
        let (range, bearing) = (sensor.range_m, sensor.bearing_rad);
        let radius = self.s.robot.radius_m;
        let angle = self.truth.theta + bearing;
        let mover = self.opponent_disc(self.now_ms);
        let hit = cast(
            &self.s,
            self.truth.x,
            self.truth.y,
            angle,
            radius + range,
            mover.as_ref(),
        );
        self.in_range[i] = hit.is_some();
        let Some((t, what)) = hit else {
            return;
        };
        // The hit point, true frame → odometry frame (the base's view).
        let (hx, hy) = (
            self.truth.x + t * angle.cos(),
            self.truth.y + t * angle.sin(),
        );
        let (dx, dy) = (hx - self.truth.x, hy - self.truth.y);
        let rel = dy.atan2(dx) - self.truth.theta;
        let dist = dx.hypot(dy);
        let oa = self.odom.theta + rel;
        let (ox, oy) = (self.odom.x + dist * oa.cos(), self.odom.y + dist * oa.sin());
        let edge_mm = ((t - radius).max(0.0) * 1000.0).round().min(65_535.0) as u16;
        self.outputs.push(Output::Obstacle {
            seq: self.obstacle_seq,
            sensor: u8::try_from(i).unwrap_or(u8::MAX),
            distance_mm: edge_mm,
            bearing_mrad: (wrap_angle(bearing) * 1000.0)
                .round()
                .clamp(-32768.0, 32767.0) as i16,
            x_mm: (ox * 1000.0) as f32,
            y_mm: (oy * 1000.0) as f32,
        });
        self.obstacle_seq = self.obstacle_seq.wrapping_add(1);
        if matches!(what, Hit::Mover) {
            self.event("sees_opponent", format!("sensor {i} at {edge_mm} mm"));
        }
    }

    /// Clearance of the robot's disc at `(x, y)`: distance from its centre to the nearest
    /// wall, fixed obstacle or opponent, minus nothing (compare with the radius).
    fn clearance(&self, x: f64, y: f64, t_ms: u64) -> f64 {
        let t = &self.s.table;
        let mut c = x.min(y).min(t.width_m - x).min(t.height_m - y);
        for o in &self.s.obstacles {
            c = c.min(shape_distance(&o.shape(), x, y));
        }
        if let Some(d) = self.opponent_disc(t_ms) {
            c = c.min(((x - d.x_m).hypot(y - d.y_m) - d.radius_m).max(0.0));
        }
        c
    }

    fn step(&mut self, dt_ms: u64) {
        if dt_ms == 0 {
            return;
        }
        let dt = dt_ms as f64 / 1000.0;
        let r = self.s.robot;
        let (acc_v, acc_w) = if self.mode == Mode::Stopped {
            let k = r.emergency_decel_m_s2 / r.max_linear_accel_m_s2;
            (
                r.emergency_decel_m_s2,
                r.max_angular_accel_rad_s2 * k.max(1.0),
            )
        } else {
            (r.max_linear_accel_m_s2, r.max_angular_accel_rad_s2)
        };
        self.v = approach(self.v, self.cmd_v, acc_v * dt);
        self.w = approach(self.w, self.cmd_w, acc_w * dt);
        if self.v == 0.0 && self.w == 0.0 {
            return;
        }
        let ds = self.v * dt;
        let dth = self.w * dt;
        let mid = self.truth.theta + dth / 2.0;
        let (nx, ny) = (self.truth.x + ds * mid.cos(), self.truth.y + ds * mid.sin());
        let t_next = self.now_ms + dt_ms;
        let before = self.clearance(self.truth.x, self.truth.y, t_next);
        let after = self.clearance(nx, ny, t_next);
        let blocked = ds != 0.0 && after < r.radius_m && after < before;
        let ds = if blocked {
            if !self.colliding {
                self.event(
                    "collision",
                    format!("at ({:.3}, {:.3})", self.truth.x, self.truth.y),
                );
            }
            self.colliding = true;
            self.v = 0.0;
            0.0
        } else {
            self.colliding = false;
            self.truth.x = nx;
            self.truth.y = ny;
            ds
        };
        self.truth.theta = wrap_angle(self.truth.theta + dth);
        // Odometry: the same increments with errors.
        let (ln, an) = self.noise;
        let ds_o = if ln > 0.0 && ds != 0.0 {
            ds + ln * ds.abs().sqrt() * self.rng.gauss()
        } else {
            ds
        };
        let dth_o = if an > 0.0 && dth != 0.0 {
            dth + an * dth.abs().sqrt() * self.rng.gauss()
        } else {
            dth
        };
        let mid_o = self.odom.theta + dth_o / 2.0;
        self.odom.x += ds_o * mid_o.cos();
        self.odom.y += ds_o * mid_o.sin();
        self.odom.theta = wrap_angle(self.odom.theta + dth_o);
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

/// A small seeded generator (SplitMix64) with Gaussian samples (Box-Muller).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal.
    pub fn gauss(&mut self) -> f64 {
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 m × 2 m table, robot at (0.5, 1.0) facing +x, one front sensor.
    fn scenario(extra: &str) -> Scenario {
        let base = r#"{"table":{"width_m":3,"height_m":2},
            "robot":{"start":{"x_m":0.5,"y_m":1.0,"theta_rad":0},"radius_m":0.15,
                     "max_linear_m_s":0.5,"max_angular_rad_s":3,"max_linear_accel_m_s2":1.0,
                     "max_angular_accel_rad_s2":10,"emergency_decel_m_s2":4,"watchdog_ms":300},
            "sensors":[{"name":"front","bearing_rad":0,"range_m":0.3,"rate_hz":20}],
            "actuators":[{"name":"clamp","id":0,"take_ms":600,"release_ms":400,"home_ms":300}],
            "tasks":[{"name":"t","points":5,"x_m":0.5,"y_m":1.0,"element":4}]}"#;
        let mut v: serde_json::Value = serde_json::from_str(base).expect("json");
        if !extra.is_empty() {
            let p: serde_json::Value = serde_json::from_str(extra).expect("json");
            for (k, x) in p.as_object().expect("obj") {
                v[k] = x.clone();
            }
        }
        Scenario::from_json(&v.to_string()).expect("valid")
    }

    fn board(extra: &str) -> Board {
        Board::new(
            scenario(extra),
            Options {
                noise_scale: 0.0,
                ..Options::default()
            },
        )
    }

    fn drive(seq: u16, v: i16, w: i16) -> Input {
        Input::Drive {
            seq,
            linear_mm_s: v,
            angular_mrad_s: w,
            watchdog_ms: 0,
        }
    }

    /// Keeps sending the command every 100 ms until `until_ms`; returns all outputs.
    fn hold(b: &mut Board, from_ms: u64, until_ms: u64, v: i16, w: i16) -> Vec<Output> {
        let mut out = Vec::new();
        let mut t = from_ms;
        let mut seq = 1;
        while t < until_ms {
            out.extend(b.input(t, drive(seq, v, w)));
            seq += 1;
            t += 100;
        }
        out.extend(b.advance(until_ms));
        out
    }

    #[test]
    fn drives_straight_with_acceleration_limit() {
        let mut b = board("");
        hold(&mut b, 0, 200, 500, 0);
        // After 0.2 s at 1 m/s² from rest: v = 0.2 m/s, x moved 0.02 m.
        let (v, _) = b.speeds();
        assert!((v - 0.2).abs() < 1e-9, "v {v}");
        assert!((b.truth().x - 0.52).abs() < 1e-3, "x {}", b.truth().x);
        hold(&mut b, 200, 1500, 500, 0);
        assert!((b.speeds().0 - 0.5).abs() < 1e-9, "reaches the command");
        // Distance: 0.125 m while accelerating to 0.5 in 0.5 s, then 0.5 m/s for 1 s.
        assert!(
            (b.truth().x - (0.5 + 0.125 + 0.5)).abs() < 2e-3,
            "x {}",
            b.truth().x
        );
        assert!((b.truth().y - 1.0).abs() < 1e-9);
        assert_eq!(b.odometry(), b.truth(), "no noise: odometry is the truth");
    }

    #[test]
    fn speeds_are_clamped_to_the_limits() {
        let mut b = board("");
        hold(&mut b, 0, 3000, 5000, 10000);
        let (v, w) = b.speeds();
        assert!((v - 0.5).abs() < 1e-9 && (w - 3.0).abs() < 1e-9, "{v} {w}");
    }

    #[test]
    fn turns_in_place() {
        let mut b = board("");
        hold(&mut b, 0, 2000, 0, 1000);
        // 1 rad/s after 0.1 s at 10 rad/s²: 0.05 + 1.9 = 1.95 rad.
        assert!(
            (b.truth().theta - 1.95).abs() < 5e-3,
            "theta {}",
            b.truth().theta
        );
        assert!((b.truth().x - 0.5).abs() < 1e-12);
    }

    #[test]
    fn watchdog_stops_the_robot() {
        let mut b = board("");
        b.input(0, drive(1, 400, 0));
        b.advance(290);
        assert!(b.speeds().0 > 0.0);
        let out = b.advance(2000);
        assert_eq!(b.speeds().0, 0.0, "stopped after the watchdog");
        let events = b.take_events();
        let wd: Vec<_> = events.iter().filter(|e| e.kind == "watchdog").collect();
        assert_eq!(wd.len(), 1);
        assert!(wd[0].time_ms > 300 && wd[0].time_ms <= 305, "{:?}", wd[0]);
        let last_flags = out.iter().rev().find_map(|o| match o {
            Output::Odometry { flags, .. } => Some(*flags),
            _ => None,
        });
        assert_eq!(last_flags, Some(FLAG_WATCHDOG));
        // A per-command watchdog: 1000 ms.
        b.input(
            2000,
            Input::Drive {
                seq: 2,
                linear_mm_s: 100,
                angular_mrad_s: 0,
                watchdog_ms: 1000,
            },
        );
        b.advance(2900);
        assert!(b.speeds().0 > 0.0, "still driving within its own watchdog");
        b.advance(3500);
        assert_eq!(b.speeds().0, 0.0);
    }

    #[test]
    fn stop_brakes_acks_and_ignores_the_stale_seq() {
        let mut b = board("");
        hold(&mut b, 0, 1000, 500, 0);
        let out = b.input(1000, Input::Stop { seq: 9 });
        assert!(out.contains(&Output::Ack {
            command: ID_STOP,
            seq: 9,
            status: ACK_OK
        }));
        b.advance(1100);
        // 0.5 m/s at 4 m/s²: stopped within 125 ms.
        assert!(b.speeds().0 > 0.0);
        b.advance(1130);
        assert_eq!(b.speeds().0, 0.0);
        b.input(1130, drive(10, 500, 0)); // hold() last used seq 10
        b.advance(1300);
        assert_eq!(b.speeds().0, 0.0, "the same seq after Stop is stale");
        b.input(1300, drive(11, 500, 0));
        b.advance(1400);
        assert!(b.speeds().0 > 0.0, "a new seq drives again");
    }

    #[test]
    fn odometry_at_its_rate_with_sequence() {
        let mut b = board("");
        let out = b.advance(1000);
        let odo: Vec<_> = out
            .iter()
            .filter_map(|o| match o {
                Output::Odometry { seq, .. } => Some(*seq),
                _ => None,
            })
            .collect();
        assert_eq!(odo.len(), 51, "t = 0, 20, ..., 1000 ms");
        assert!(odo.iter().enumerate().all(|(i, &s)| s as usize == i));
        assert_eq!(milli(1.2345), 1235);
        assert_eq!(milli(-40.0), i16::MIN, "saturated");
        assert_eq!(milli(f64::NAN), 0);
    }

    #[test]
    fn noise_is_seeded() {
        let run = |seed| {
            let mut b = Board::new(
                scenario(r#"{"odometry":{"linear_noise":0.02,"angular_noise":0.02,"seed":1}}"#),
                Options {
                    seed: Some(seed),
                    ..Options::default()
                },
            );
            hold(&mut b, 0, 3000, 300, 200);
            (b.odometry(), b.truth())
        };
        let (a, t) = run(5);
        assert_eq!(run(5).0, a, "same seed, same odometry");
        assert_ne!(run(6).0, a);
        assert_ne!(a, t, "noise moves the estimate off the truth");
        assert!(
            (a.x - t.x).hypot(a.y - t.y) < 0.1,
            "but not far: {a:?} vs {t:?}"
        );
    }

    #[test]
    fn sensors_see_walls_obstacles_and_the_opponent() {
        // Facing the left wall from 0.3 m: the wall is 0.15 m from the edge.
        let mut b = board(
            r#"{"robot":{"start":{"x_m":0.3,"y_m":1.0,"theta_rad":3.14159265},"radius_m":0.15}}"#,
        );
        let out = b.advance(0);
        let rep = out.iter().find_map(|o| match o {
            Output::Obstacle {
                sensor: 0,
                distance_mm,
                x_mm,
                ..
            } => Some((*distance_mm, *x_mm)),
            _ => None,
        });
        let (d, x) = rep.expect("the wall is seen");
        assert!(
            (d as i32 - 150).abs() <= 1 && x.abs() < 1.0,
            "{d} mm at x {x}"
        );
        // Facing an open table: nothing.
        let mut b = board("");
        assert!(!b
            .advance(0)
            .iter()
            .any(|o| matches!(o, Output::Obstacle { .. })));
        // A rock 0.4 m ahead (0.25 m from the edge): seen.
        let mut b =
            board(r#"{"obstacles":[{"name":"rock","disc":{"x_m":1.0,"y_m":1.0,"radius_m":0.1}}]}"#);
        let out = b.advance(0);
        assert!(
            out.iter().any(|o| matches!(
                o,
                Output::Obstacle {
                    distance_mm: 250,
                    ..
                }
            )),
            "{out:?}"
        );
        // The opponent drives in front of us at t ≈ 2 s.
        let mut b = board(
            r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.5,"waypoints":[{"x_m":0.9,"y_m":0.2},{"x_m":0.9,"y_m":1.8}]}}"#,
        );
        let seen_at = |b: &mut Board, t: u64| {
            b.advance(t)
                .iter()
                .any(|o| matches!(o, Output::Obstacle { .. }))
        };
        assert!(!seen_at(&mut b, 0), "far away at first");
        assert!(seen_at(&mut b, 1600), "in front at t 1.6 s");
        assert!(b.take_events().iter().any(|e| e.kind == "sees_opponent"));
        b.advance(3400);
        assert!(!seen_at(&mut b, 3500), "gone past");
    }

    #[test]
    fn walls_stop_the_robot() {
        let mut b =
            board(r#"{"robot":{"start":{"x_m":2.5,"y_m":1.0,"theta_rad":0},"radius_m":0.15}}"#);
        hold(&mut b, 0, 3000, 500, 0);
        assert!(
            b.truth().x <= 2.85 + 1e-9 && b.truth().x > 2.8,
            "x {}",
            b.truth().x
        );
        assert!(b.take_events().iter().any(|e| e.kind == "collision"));
        // Backing away works.
        hold(&mut b, 3000, 4000, -200, 0);
        assert!(b.truth().x < 2.8);
    }

    #[test]
    fn actuators_take_their_time() {
        let mut b = board("");
        let out = b.input(
            100,
            Input::Actuator {
                seq: 3,
                actuator: 0,
                action: 1,
                element: 4,
            },
        );
        let acks: Vec<_> = out
            .into_iter()
            .filter(|o| matches!(o, Output::Ack { .. }))
            .collect();
        assert_eq!(
            acks,
            vec![Output::Ack {
                command: ID_ACTUATOR,
                seq: 3,
                status: ACK_OK
            }]
        );
        let busy = b.input(
            200,
            Input::Actuator {
                seq: 4,
                actuator: 0,
                action: 0,
                element: 0,
            },
        );
        assert!(busy.contains(&Output::Ack {
            command: ID_ACTUATOR,
            seq: 4,
            status: ACK_BUSY
        }));
        let bad = b.input(
            200,
            Input::Actuator {
                seq: 5,
                actuator: 7,
                action: 0,
                element: 0,
            },
        );
        assert!(bad.contains(&Output::Ack {
            command: ID_ACTUATOR,
            seq: 5,
            status: ACK_INVALID
        }));
        let bad = b.input(
            200,
            Input::Actuator {
                seq: 6,
                actuator: 0,
                action: 9,
                element: 0,
            },
        );
        assert!(bad.contains(&Output::Ack {
            command: ID_ACTUATOR,
            seq: 6,
            status: ACK_INVALID
        }));
        let done = |out: &[Output]| {
            out.iter().find_map(|o| match o {
                Output::ActuatorDone {
                    seq,
                    status,
                    duration_ms,
                    ..
                } => Some((*seq, *status, *duration_ms)),
                _ => None,
            })
        };
        assert_eq!(done(&b.advance(699)), None, "not before 600 ms");
        assert_eq!(
            done(&b.advance(700)),
            Some((3, DONE_OK, 600)),
            "the robot stands at task t"
        );
        // Element 4 is gone now: a second take fails.
        b.input(
            800,
            Input::Actuator {
                seq: 7,
                actuator: 0,
                action: 1,
                element: 4,
            },
        );
        assert_eq!(done(&b.advance(1400)), Some((7, DONE_FAILED, 600)));
        assert!(b.taken().contains(&4));
        // Release needs no element.
        b.input(
            1500,
            Input::Actuator {
                seq: 8,
                actuator: 0,
                action: 0,
                element: 0,
            },
        );
        assert_eq!(done(&b.advance(1900)), Some((8, DONE_OK, 400)));
    }

    #[test]
    fn set_pose_moves_the_odometry_only() {
        let mut b = board("");
        let out = b.input(
            0,
            Input::SetPose {
                seq: 2,
                x_mm: 1000.0,
                y_mm: 500.0,
                theta_mrad: 0.0,
            },
        );
        assert!(out.contains(&Output::Ack {
            command: ID_SET_POSE,
            seq: 2,
            status: ACK_OK
        }));
        assert_eq!((b.odometry().x, b.truth().x), (1.0, 0.5));
        let out = b.input(
            0,
            Input::SetPose {
                seq: 3,
                x_mm: f32::NAN,
                y_mm: 0.0,
                theta_mrad: 0.0,
            },
        );
        assert!(out.contains(&Output::Ack {
            command: ID_SET_POSE,
            seq: 3,
            status: ACK_INVALID
        }));
    }
}
