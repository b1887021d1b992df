//! The scenario model (`params/eurobot/table.json`) and its loader.
//!
//! Everything is in the `map` frame: metres and radians, origin at the table's
//! lower-left corner, x along the long side, y up (REP 103). [`Scenario::load`] reads
//! and checks a file; every error names the field (`obstacles[2].rect.x_max_m: 3.5 is
//! outside the table (0 ..= 3 m)`).
use serde::Deserialize;
use std::fmt;
use std::path::Path;

/// Largest scenario file read [bytes].
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Caps on list lengths (a scenario is hand-written; anything bigger is a mistake).
pub const MAX_OBSTACLES: usize = 256;
pub const MAX_TASKS: usize = 64;
pub const MAX_STEPS: usize = 32;
pub const MAX_WAYPOINTS: usize = 1024;
pub const MAX_SENSORS: usize = 16;
pub const MAX_ACTUATORS: usize = 16;
/// Largest table side [m] (Eurobot's is 3 m × 2 m; 20 m leaves room for other games).
pub const MAX_TABLE_SIDE_M: f64 = 20.0;

/// A scenario that failed to load: the file (if any) and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub file: String,
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            write!(f, "scenario: {}", self.reason)
        } else {
            write!(f, "scenario {}: {}", self.file, self.reason)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The whole scenario file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for logs and the picture.
    #[serde(default)]
    pub name: String,
    /// Frame of every coordinate (the planner's and the base's `map`).
    #[serde(default = "default_frame")]
    pub frame_id: String,
    pub table: Table,
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    pub robot: Robot,
    #[serde(default)]
    pub odometry: Odometry,
    #[serde(default)]
    pub sensors: Vec<Sensor>,
    #[serde(default)]
    pub actuators: Vec<Actuator>,
    #[serde(default)]
    pub opponent: Option<Opponent>,
    #[serde(default)]
    pub tasks: Vec<Task>,
    #[serde(default)]
    pub r#match: Match,
}

fn default_frame() -> String {
    "map".into()
}

/// The playing area: `[0, width_m] × [0, height_m]`, walls all round.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub width_m: f64,
    pub height_m: f64,
}

/// A fixed obstacle: exactly one of `rect` and `disc`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub rect: Option<Rect>,
    #[serde(default)]
    pub disc: Option<Disc>,
}

/// An axis-aligned rectangle [m].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    pub x_min_m: f64,
    pub y_min_m: f64,
    pub x_max_m: f64,
    pub y_max_m: f64,
}

/// A disc [m].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Disc {
    pub x_m: f64,
    pub y_m: f64,
    pub radius_m: f64,
}

/// A checked obstacle's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Rect(Rect),
    Disc(Disc),
}

impl Obstacle {
    /// The shape (the loader guarantees exactly one is set).
    pub fn shape(&self) -> Shape {
        match (self.rect, self.disc) {
            (Some(r), _) => Shape::Rect(r),
            (None, Some(d)) => Shape::Disc(d),
            (None, None) => Shape::Rect(Rect {
                x_min_m: 0.0,
                y_min_m: 0.0,
                x_max_m: 0.0,
                y_max_m: 0.0,
            }),
        }
    }
}

/// A pose in the map frame [m, rad].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pose2 {
    pub x_m: f64,
    pub y_m: f64,
    #[serde(default)]
    pub theta_rad: f64,
}

/// Our robot: start pose, footprint and the motor board's limits.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Robot {
    pub start: Pose2,
    /// Footprint disc radius [m]; the planner inflates obstacles by it.
    pub radius_m: f64,
    #[serde(default = "d_max_linear")]
    pub max_linear_m_s: f64,
    #[serde(default = "d_max_angular")]
    pub max_angular_rad_s: f64,
    #[serde(default = "d_lin_acc")]
    pub max_linear_accel_m_s2: f64,
    #[serde(default = "d_ang_acc")]
    pub max_angular_accel_rad_s2: f64,
    /// Deceleration on `Stop` [m/s²] (the angular one scales with it).
    #[serde(default = "d_emergency")]
    pub emergency_decel_m_s2: f64,
    /// The board's default command watchdog [ms] (`DriveSpeed.watchdog_ms` = 0).
    #[serde(default = "d_watchdog")]
    pub watchdog_ms: u32,
}

fn d_max_linear() -> f64 {
    0.5
}
fn d_max_angular() -> f64 {
    3.0
}
fn d_lin_acc() -> f64 {
    0.8
}
fn d_ang_acc() -> f64 {
    6.0
}
fn d_emergency() -> f64 {
    2.0
}
fn d_watchdog() -> u32 {
    300
}

/// Odometry packets and their error model.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Odometry {
    /// `Odometry` packets per second.
    #[serde(default = "d_odom_rate")]
    pub rate_hz: f64,
    /// Standard deviation of the distance error, as a fraction of the distance driven.
    #[serde(default)]
    pub linear_noise: f64,
    /// Standard deviation of the heading error, as a fraction of the angle turned.
    #[serde(default)]
    pub angular_noise: f64,
    /// Seed of the noise (the same seed, commands and times give the same run).
    #[serde(default)]
    pub seed: u64,
}

fn d_odom_rate() -> f64 {
    50.0
}

impl Default for Odometry {
    fn default() -> Self {
        Odometry {
            rate_hz: d_odom_rate(),
            linear_noise: 0.0,
            angular_noise: 0.0,
            seed: 0,
        }
    }
}

/// A proximity sensor: a ray from the robot's centre at `bearing_rad` from its heading;
/// it reports what lies within `range_m` of the robot's edge.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sensor {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub bearing_rad: f64,
    pub range_m: f64,
    #[serde(default = "d_sensor_rate")]
    pub rate_hz: f64,
}

fn d_sensor_rate() -> f64 {
    20.0
}

/// An actuator of the board (`Actuator.actuator` = `id`) and how long its moves take.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Actuator {
    pub name: String,
    pub id: u8,
    pub take_ms: u32,
    pub release_ms: u32,
    pub home_ms: u32,
}

/// The opponent: a disc driving its waypoints in order at `speed_m_s`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Opponent {
    pub radius_m: f64,
    pub speed_m_s: f64,
    /// After the last waypoint: back to the first (true) or stay (false).
    #[serde(default)]
    pub r#loop: bool,
    /// Time at the first waypoint before moving [s].
    #[serde(default)]
    pub start_delay_s: f64,
    pub waypoints: Vec<Waypoint>,
}

/// One opponent waypoint; it waits `wait_s` on arrival.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    pub x_m: f64,
    pub y_m: f64,
    #[serde(default)]
    pub wait_s: f64,
}

/// A place to score: where the robot goes, what it does there, what it earns.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub name: String,
    pub points: u32,
    pub x_m: f64,
    pub y_m: f64,
    /// Heading to face at the task; absent = any.
    #[serde(default)]
    pub theta_rad: Option<f64>,
    /// The element taken there (`Actuator.element`); 0 = none.
    #[serde(default)]
    pub element: u8,
    /// How close the robot's centre must be for a `take` of this element to succeed [m].
    #[serde(default = "d_reach")]
    pub reach_m: f64,
    #[serde(default)]
    pub steps: Vec<Step>,
}

fn d_reach() -> f64 {
    0.15
}

/// One actuator step of a task: an actuator by name and an action.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub actuator: String,
    pub action: Action,
}

/// `Actuator.action` on the wire: 0 release, 1 take, 2 home.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Release,
    Take,
    Home,
}

impl Action {
    /// The wire value.
    pub fn code(self) -> u8 {
        match self {
            Action::Release => 0,
            Action::Take => 1,
            Action::Home => 2,
        }
    }

    /// From the wire value.
    pub fn from_code(code: u8) -> Option<Action> {
        match code {
            0 => Some(Action::Release),
            1 => Some(Action::Take),
            2 => Some(Action::Home),
            _ => None,
        }
    }
}

/// The match: its length and the score the scenario makes reachable (the demo's bar).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Match {
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    #[serde(default)]
    pub expected_points: u32,
}

fn d_duration() -> f64 {
    90.0
}

impl Default for Match {
    fn default() -> Self {
        Match {
            duration_s: d_duration(),
            expected_points: 0,
        }
    }
}

impl Scenario {
    /// Reads and checks a scenario file.
    ///
    /// # Errors
    /// A missing, unreadable or too large file, JSON that is not the format, or a check
    /// that fails ([`Scenario::validate`]); the message names the file and the field.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let err = |reason: String| ScenarioError {
            file: file.clone(),
            reason,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read: {e}")))?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(err(format!(
                "{} bytes is over the {MAX_FILE_BYTES}-byte limit",
                meta.len()
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        Scenario::from_json(&text).map_err(|e| ScenarioError {
            file,
            reason: e.reason,
        })
    }

    /// Parses and checks scenario text.
    ///
    /// # Errors
    /// As [`Scenario::load`], with an empty `file`.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let err = |reason: String| ScenarioError {
            file: String::new(),
            reason,
        };
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(err(format!(
                "{} bytes is over the {MAX_FILE_BYTES}-byte limit",
                text.len()
            )));
        }
        let s: Scenario =
            serde_json::from_str(text).map_err(|e| err(format!("not a scenario: {e}")))?;
        s.validate().map_err(err)?;
        Ok(s)
    }

    /// Checks every number (finite, in range), every position (on the table; the robot's
    /// start, tasks and opponent waypoints at least a radius from the walls), names and
    /// ids (unique, referenced ones existing) and list lengths.
    ///
    /// # Errors
    /// The first problem, naming the field.
    pub fn validate(&self) -> Result<(), String> {
        let t = self.table;
        positive("table.width_m", t.width_m, MAX_TABLE_SIDE_M)?;
        positive("table.height_m", t.height_m, MAX_TABLE_SIDE_M)?;
        let on_table_x = |f: &str, v: f64| in_range(f, v, 0.0, t.width_m, "outside the table");
        let on_table_y = |f: &str, v: f64| in_range(f, v, 0.0, t.height_m, "outside the table");
        cap("obstacles", self.obstacles.len(), MAX_OBSTACLES)?;
        for (i, o) in self.obstacles.iter().enumerate() {
            let p = format!("obstacles[{i}]");
            match (o.rect, o.disc) {
                (Some(r), None) => {
                    on_table_x(&format!("{p}.rect.x_min_m"), r.x_min_m)?;
                    on_table_x(&format!("{p}.rect.x_max_m"), r.x_max_m)?;
                    on_table_y(&format!("{p}.rect.y_min_m"), r.y_min_m)?;
                    on_table_y(&format!("{p}.rect.y_max_m"), r.y_max_m)?;
                    if r.x_min_m >= r.x_max_m || r.y_min_m >= r.y_max_m {
                        return Err(format!("{p}.rect: min must be below max on both axes"));
                    }
                }
                (None, Some(d)) => {
                    on_table_x(&format!("{p}.disc.x_m"), d.x_m)?;
                    on_table_y(&format!("{p}.disc.y_m"), d.y_m)?;
                    positive(&format!("{p}.disc.radius_m"), d.radius_m, MAX_TABLE_SIDE_M)?;
                }
                _ => return Err(format!("{p}: give exactly one of \"rect\" and \"disc\"")),
            }
        }
        let r = &self.robot;
        positive(
            "robot.radius_m",
            r.radius_m,
            t.width_m.min(t.height_m) / 2.0,
        )?;
        self.check_pose("robot.start", r.start.x_m, r.start.y_m, r.radius_m)?;
        finite("robot.start.theta_rad", r.start.theta_rad)?;
        positive("robot.max_linear_m_s", r.max_linear_m_s, 10.0)?;
        positive("robot.max_angular_rad_s", r.max_angular_rad_s, 100.0)?;
        positive(
            "robot.max_linear_accel_m_s2",
            r.max_linear_accel_m_s2,
            100.0,
        )?;
        positive(
            "robot.max_angular_accel_rad_s2",
            r.max_angular_accel_rad_s2,
            1000.0,
        )?;
        positive("robot.emergency_decel_m_s2", r.emergency_decel_m_s2, 100.0)?;
        in_range(
            "robot.watchdog_ms",
            f64::from(r.watchdog_ms),
            1.0,
            65_535.0,
            "out of range",
        )?;
        if self.blocked_at(r.start.x_m, r.start.y_m, r.radius_m) {
            return Err("robot.start: the robot overlaps a fixed obstacle there".into());
        }
        let o = &self.odometry;
        positive("odometry.rate_hz", o.rate_hz, 1000.0)?;
        in_range(
            "odometry.linear_noise",
            o.linear_noise,
            0.0,
            1.0,
            "out of range",
        )?;
        in_range(
            "odometry.angular_noise",
            o.angular_noise,
            0.0,
            1.0,
            "out of range",
        )?;
        cap("sensors", self.sensors.len(), MAX_SENSORS)?;
        if self.sensors.len() > 256 {
            return Err("sensors: at most 256".into());
        }
        for (i, s) in self.sensors.iter().enumerate() {
            finite(&format!("sensors[{i}].bearing_rad"), s.bearing_rad)?;
            positive(&format!("sensors[{i}].range_m"), s.range_m, 10.0)?;
            positive(&format!("sensors[{i}].rate_hz"), s.rate_hz, 1000.0)?;
        }
        cap("actuators", self.actuators.len(), MAX_ACTUATORS)?;
        for (i, a) in self.actuators.iter().enumerate() {
            if self.actuators[..i]
                .iter()
                .any(|b| b.name == a.name || b.id == a.id)
            {
                return Err(format!(
                    "actuators[{i}]: name {:?} or id {} used twice",
                    a.name, a.id
                ));
            }
            for (f, v) in [
                ("take_ms", a.take_ms),
                ("release_ms", a.release_ms),
                ("home_ms", a.home_ms),
            ] {
                if v > 65_535 {
                    return Err(format!("actuators[{i}].{f}: {v} is over 65535"));
                }
            }
        }
        if let Some(op) = &self.opponent {
            positive(
                "opponent.radius_m",
                op.radius_m,
                t.width_m.min(t.height_m) / 2.0,
            )?;
            positive("opponent.speed_m_s", op.speed_m_s, 10.0)?;
            in_range(
                "opponent.start_delay_s",
                op.start_delay_s,
                0.0,
                3600.0,
                "out of range",
            )?;
            if op.waypoints.is_empty() {
                return Err("opponent.waypoints: at least one".into());
            }
            cap("opponent.waypoints", op.waypoints.len(), MAX_WAYPOINTS)?;
            for (i, w) in op.waypoints.iter().enumerate() {
                self.check_pose(
                    &format!("opponent.waypoints[{i}]"),
                    w.x_m,
                    w.y_m,
                    op.radius_m,
                )?;
                in_range(
                    &format!("opponent.waypoints[{i}].wait_s"),
                    w.wait_s,
                    0.0,
                    3600.0,
                    "out of range",
                )?;
            }
        }
        cap("tasks", self.tasks.len(), MAX_TASKS)?;
        for (i, task) in self.tasks.iter().enumerate() {
            let p = format!("tasks[{i}]");
            if task.name.is_empty() || self.tasks[..i].iter().any(|u| u.name == task.name) {
                return Err(format!("{p}.name: {:?} is empty or used twice", task.name));
            }
            self.check_pose(&p, task.x_m, task.y_m, r.radius_m)?;
            if let Some(th) = task.theta_rad {
                finite(&format!("{p}.theta_rad"), th)?;
            }
            positive(&format!("{p}.reach_m"), task.reach_m, 10.0)?;
            if self.blocked_at(task.x_m, task.y_m, r.radius_m) {
                return Err(format!(
                    "{p}: the robot would overlap a fixed obstacle at ({}, {})",
                    task.x_m, task.y_m
                ));
            }
            cap(&format!("{p}.steps"), task.steps.len(), MAX_STEPS)?;
            for (j, st) in task.steps.iter().enumerate() {
                if self.actuator(&st.actuator).is_none() {
                    return Err(format!(
                        "{p}.steps[{j}].actuator: no actuator named {:?}",
                        st.actuator
                    ));
                }
            }
        }
        positive("match.duration_s", self.r#match.duration_s, 3600.0)?;
        Ok(())
    }

    /// The actuator named `name`.
    pub fn actuator(&self, name: &str) -> Option<&Actuator> {
        self.actuators.iter().find(|a| a.name == name)
    }

    /// The actuator whose wire id is `id`.
    pub fn actuator_by_id(&self, id: u8) -> Option<&Actuator> {
        self.actuators.iter().find(|a| a.id == id)
    }

    /// The task named `name`.
    pub fn task(&self, name: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.name == name)
    }

    /// Is the point inside the table, `clearance_m` from every wall?
    pub fn inside_table(&self, x_m: f64, y_m: f64, clearance_m: f64) -> bool {
        x_m.is_finite()
            && y_m.is_finite()
            && x_m >= clearance_m
            && y_m >= clearance_m
            && x_m <= self.table.width_m - clearance_m
            && y_m <= self.table.height_m - clearance_m
    }

    /// Does a disc of `radius_m` at the point overlap a fixed obstacle (not the walls)?
    pub fn blocked_at(&self, x_m: f64, y_m: f64, radius_m: f64) -> bool {
        self.obstacles
            .iter()
            .any(|o| crate::geometry::shape_distance(&o.shape(), x_m, y_m) < radius_m)
    }

    /// Why a disc of `radius_m` cannot stand at the point (a goal check for the base):
    /// not finite, off the table or too close to a wall, or overlapping an obstacle
    /// (named). `None` when it can.
    pub fn pose_problem(&self, x_m: f64, y_m: f64, radius_m: f64) -> Option<String> {
        if !x_m.is_finite() || !y_m.is_finite() {
            return Some(format!("({x_m}, {y_m}) is not a finite point"));
        }
        if !self.inside_table(x_m, y_m, radius_m) {
            return Some(format!(
                "({x_m:.3}, {y_m:.3}) is outside the table or closer than {radius_m:.3} m to a wall (table {} × {} m)",
                self.table.width_m, self.table.height_m
            ));
        }
        self.obstacles.iter().find(|o| crate::geometry::shape_distance(&o.shape(), x_m, y_m) < radius_m).map(|o| {
            format!("({x_m:.3}, {y_m:.3}) is inside obstacle {:?} (with the robot's {radius_m:.3} m radius)", o.name)
        })
    }

    fn check_pose(&self, field: &str, x: f64, y: f64, radius: f64) -> Result<(), String> {
        finite(&format!("{field}.x_m"), x)?;
        finite(&format!("{field}.y_m"), y)?;
        if !self.inside_table(x, y, radius) {
            return Err(format!(
                "{field}: ({x}, {y}) is outside the table or closer than the radius {radius} m to a wall (table {} × {} m)",
                self.table.width_m, self.table.height_m
            ));
        }
        Ok(())
    }
}

fn finite(field: &str, v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("{field}: {v} is not a finite number"))
    }
}

fn positive(field: &str, v: f64, max: f64) -> Result<(), String> {
    finite(field, v)?;
    if v > 0.0 && v <= max {
        Ok(())
    } else {
        Err(format!("{field}: {v} must be > 0 and <= {max}"))
    }
}

fn in_range(field: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<(), String> {
    finite(field, v)?;
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{field}: {v} is {what} ({lo} ..= {hi})"))
    }
}

fn cap(field: &str, n: usize, max: usize) -> Result<(), String> {
    if n <= max {
        Ok(())
    } else {
        Err(format!("{field}: {n} entries, at most {max}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = r#"{"table":{"width_m":3,"height_m":2},"robot":{"start":{"x_m":0.3,"y_m":1},"radius_m":0.15}}"#;

    fn with(patch: &str) -> Result<Scenario, ScenarioError> {
        let mut v: serde_json::Value = serde_json::from_str(MIN).expect("json");
        let p: serde_json::Value = serde_json::from_str(patch).expect("patch json");
        for (k, x) in p.as_object().expect("object") {
            v[k] = x.clone();
        }
        Scenario::from_json(&v.to_string())
    }

    #[test]
    fn the_shipped_scenario_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../params/eurobot/table.json");
        let s = Scenario::load(&path).expect("params/eurobot/table.json loads");
        assert_eq!((s.table.width_m, s.table.height_m), (3.0, 2.0));
        assert!(s.opponent.is_some() && s.tasks.len() >= 3 && !s.sensors.is_empty());
        assert!(s.r#match.expected_points > 0);
    }

    #[test]
    fn minimal_defaults() {
        let s = with("{}").expect("minimal");
        assert_eq!(s.frame_id, "map");
        assert_eq!(s.odometry.rate_hz, 50.0);
        assert_eq!(s.robot.watchdog_ms, 300);
    }

    #[test]
    fn bad_scenarios_name_the_field() {
        let cases = [
            (r#"{"table":{"width_m":0,"height_m":2}}"#, "table.width_m"),
            (
                r#"{"table":{"width_m":3,"height_m":2,"depth":1}}"#,
                "unknown field",
            ),
            (
                r#"{"obstacles":[{"rect":{"x_min_m":1,"y_min_m":0,"x_max_m":3.5,"y_max_m":1}}]}"#,
                "obstacles[0].rect.x_max_m",
            ),
            (r#"{"obstacles":[{"name":"a"}]}"#, "exactly one"),
            (
                r#"{"obstacles":[{"disc":{"x_m":0.3,"y_m":1,"radius_m":0.1}}]}"#,
                "robot.start",
            ),
            (
                r#"{"robot":{"start":{"x_m":0.1,"y_m":1},"radius_m":0.15}}"#,
                "robot.start",
            ),
            (
                r#"{"robot":{"start":{"x_m":0.5,"y_m":1},"radius_m":-1}}"#,
                "robot.radius_m",
            ),
            (
                r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.3,"waypoints":[]}}"#,
                "opponent.waypoints",
            ),
            (
                r#"{"opponent":{"radius_m":0.1,"speed_m_s":0.3,"waypoints":[{"x_m":4,"y_m":1}]}}"#,
                "opponent.waypoints[0]",
            ),
            (
                r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1,"steps":[{"actuator":"claw","action":"take"}]}]}"#,
                "no actuator",
            ),
            (
                r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1,"steps":[{"actuator":"claw","action":"eat"}]}]}"#,
                "unknown variant",
            ),
            (
                r#"{"tasks":[{"name":"a","points":1,"x_m":1,"y_m":1},{"name":"a","points":1,"x_m":1,"y_m":1}]}"#,
                "used twice",
            ),
            (r#"{"match":{"duration_s":-1}}"#, "match.duration_s"),
        ];
        for (patch, want) in cases {
            let e = with(patch).expect_err(patch).to_string();
            assert!(e.contains(want), "{patch}: {e}");
        }
        let many: Vec<String> = (0..300)
            .map(|_| r#"{"disc":{"x_m":2,"y_m":1,"radius_m":0.1}}"#.to_string())
            .collect();
        let e = with(&format!(r#"{{"obstacles":[{}]}}"#, many.join(","))).expect_err("too many");
        assert!(e.reason.contains("at most 256"), "{e}");
        let e = Scenario::from_json(&MIN.replace("0.15}", "1e400}")).expect_err("inf");
        assert!(e.reason.contains("not a scenario"), "{e}");
        let e = Scenario::load(Path::new("/nonexistent/table.json")).expect_err("missing");
        assert!(e.to_string().contains("/nonexistent/table.json"), "{e}");
    }

    #[test]
    fn pose_problems() {
        let s =
            with(r#"{"obstacles":[{"name":"rock","disc":{"x_m":1.5,"y_m":1,"radius_m":0.1}}]}"#)
                .expect("ok");
        assert!(s.pose_problem(1.0, 1.0, 0.15).is_none());
        assert!(s
            .pose_problem(f64::NAN, 1.0, 0.15)
            .expect("nan")
            .contains("finite"));
        assert!(s
            .pose_problem(3.5, 1.0, 0.15)
            .expect("off")
            .contains("outside"));
        assert!(s
            .pose_problem(1.6, 1.0, 0.15)
            .expect("rock")
            .contains("rock"));
    }
}
