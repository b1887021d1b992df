//! The scenario model (`params/eurobot/table.json`) and its loader.
//!
//! Everything is in the `map` frame: metres and radians, origin at the table's
//! lower-left corner, x along the long side, y up (REP 103). [`Scenario::load`] reads
//! and checks a file; every error names the field (`obstacles[2].rect.x_max_m: 3.5 is
//! outside the table (0 ..= 3 m)`).
use serde::Deserialize;
use std::path::Path;

#[cfg(test)]
mod tests;
mod validate;

pub use validate::Invalid;

/// Largest scenario file read [bytes].
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Most fixed obstacles (a scenario is hand-written; anything bigger is a mistake).
pub const MAX_OBSTACLES: usize = 256;
/// Most tasks.
pub const MAX_TASKS: usize = 64;
/// Most actuator steps in one task.
pub const MAX_STEPS: usize = 32;
/// Most opponent waypoints.
pub const MAX_WAYPOINTS: usize = 1024;
/// Most proximity sensors.
pub const MAX_SENSORS: usize = 16;
/// Most actuators.
pub const MAX_ACTUATORS: usize = 16;
/// Largest table side [m] (Eurobot's is 3 m × 2 m; 20 m leaves room for other games).
pub const MAX_TABLE_SIDE_M: f64 = 20.0;

/// A scenario that failed to load: the file (if any) and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("scenario{}{}: {reason}", if .file.is_empty() { "" } else { " " }, .file)]
pub struct ScenarioError {
    /// The file's path as given; empty for text ([`Scenario::from_json`]).
    pub file: String,
    /// What is wrong, naming the field.
    pub reason: Problem,
}

/// What is wrong with a scenario ([`ScenarioError::reason`]).
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// The file cannot be read.
    #[error("cannot read: {0}")]
    Read(std::io::Error),
    /// The file or text is larger than [`MAX_FILE_BYTES`].
    #[error("{0} bytes is over the {MAX_FILE_BYTES}-byte limit")]
    TooLarge(u64),
    /// Not JSON of the scenario format.
    #[error("not a scenario: {0}")]
    Json(serde_json::Error),
    /// A field that does not pass [`Scenario::validate`].
    #[error("{0}")]
    Invalid(#[from] Invalid),
}

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
    /// The playing area.
    pub table: Table,
    /// Fixed obstacles (at most [`MAX_OBSTACLES`]).
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    /// Our robot.
    pub robot: Robot,
    /// The board's odometry (default: 50 Hz, exact).
    #[serde(default)]
    pub odometry: Odometry,
    /// Proximity sensors (at most [`MAX_SENSORS`]).
    #[serde(default)]
    pub sensors: Vec<Sensor>,
    /// The LD06 LiDAR on the robot, if any (`board_sim --lidar-link-file`).
    #[serde(default)]
    pub lidar: Option<Lidar>,
    /// The board's actuators (at most [`MAX_ACTUATORS`]).
    #[serde(default)]
    pub actuators: Vec<Actuator>,
    /// The opponent, if any.
    #[serde(default)]
    pub opponent: Option<Opponent>,
    /// Places to score (at most [`MAX_TASKS`]).
    #[serde(default)]
    pub tasks: Vec<Task>,
    /// The match's length and expected score (JSON key `match`).
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
    /// Length along x [m], in `(0, MAX_TABLE_SIDE_M]`.
    pub width_m: f64,
    /// Length along y [m], in `(0, MAX_TABLE_SIDE_M]`.
    pub height_m: f64,
}

/// A fixed obstacle: exactly one of `rect` and `disc`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    /// A label for errors and logs (may be empty).
    #[serde(default)]
    pub name: String,
    /// A rectangle, or
    #[serde(default)]
    pub rect: Option<Rect>,
    /// a disc.
    #[serde(default)]
    pub disc: Option<Disc>,
}

/// An axis-aligned rectangle [m].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    /// Left edge [m].
    pub x_min_m: f64,
    /// Bottom edge [m].
    pub y_min_m: f64,
    /// Right edge [m] (> `x_min_m`).
    pub x_max_m: f64,
    /// Top edge [m] (> `y_min_m`).
    pub y_max_m: f64,
}

/// A disc [m].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Disc {
    /// Centre x [m].
    pub x_m: f64,
    /// Centre y [m].
    pub y_m: f64,
    /// Radius [m] (> 0).
    pub radius_m: f64,
}

/// A checked obstacle's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// An axis-aligned rectangle.
    Rect(Rect),
    /// A disc.
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

/// A pose in the map frame [m, rad]: the shared planar pose (`arnie_math`).
pub use arnie_math::Pose2;

/// A [`Pose2`] as the scenario file writes it: `{"x_m", "y_m", "theta_rad"}` (heading
/// counter-clockwise from +x, default 0).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoseInFile {
    x_m: f64,
    y_m: f64,
    #[serde(default)]
    theta_rad: f64,
}

fn pose_in_file<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Pose2, D::Error> {
    let p = PoseInFile::deserialize(d)?;
    Ok(Pose2::new(p.x_m, p.y_m, p.theta_rad))
}

/// Our robot: start pose, footprint and the motor board's limits.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Robot {
    /// Where the robot stands at the start (at least `radius_m` from the walls); in the
    /// file `{"x_m", "y_m", "theta_rad"}`.
    #[serde(deserialize_with = "pose_in_file")]
    pub start: Pose2,
    /// Footprint disc radius [m]; the planner inflates obstacles by it.
    pub radius_m: f64,
    /// Top forward speed [m/s] (default 0.5).
    #[serde(default = "d_max_linear")]
    pub max_linear_m_s: f64,
    /// Top turn rate [rad/s] (default 3).
    #[serde(default = "d_max_angular")]
    pub max_angular_rad_s: f64,
    /// Forward acceleration limit [m/s²] (default 0.8).
    #[serde(default = "d_lin_acc")]
    pub max_linear_accel_m_s2: f64,
    /// Angular acceleration limit [rad/s²] (default 6).
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
    /// A label for logs (may be empty).
    #[serde(default)]
    pub name: String,
    /// Direction of the ray from the robot's heading [rad] (default 0).
    #[serde(default)]
    pub bearing_rad: f64,
    /// How far beyond the robot's edge it sees [m].
    pub range_m: f64,
    /// Casts per second (default 20).
    #[serde(default = "d_sensor_rate")]
    pub rate_hz: f64,
}

fn d_sensor_rate() -> f64 {
    20.0
}

/// The LD06 LiDAR the simulated board streams (`board_sim --lidar-*`): where it sits on
/// the robot and how it measures. Rays are cast from it against the walls, the fixed
/// obstacles and the opponent (not the robot itself).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Lidar {
    /// Its `laser` frame in the robot's `base_link`: x, y [m] and yaw [rad] (the URDF's
    /// `laser_joint`; default the robot's centre, facing forward).
    #[serde(default)]
    pub mount: Mount,
    /// Where the device's 0° mark points in the laser frame [rad] (the driver's
    /// `angle_offset_rad`).
    #[serde(default)]
    pub angle_offset_rad: f64,
    /// The device turns clockwise in the laser frame (upright; the driver's `clockwise`).
    #[serde(default = "d_true")]
    pub clockwise: bool,
    /// Revolutions per second (the LD06: 10; 5 ..= 15).
    #[serde(default = "d_lidar_rate")]
    pub rate_hz: f64,
    /// Measurements per second (the LD06: 4500).
    #[serde(default = "d_lidar_samples")]
    pub samples_per_s: f64,
    /// Nothing nearer is measured (a distance of 0 is sent) [m].
    #[serde(default = "d_lidar_min")]
    pub range_min_m: f64,
    /// Nothing farther is measured (0 is sent) [m].
    #[serde(default = "d_lidar_max")]
    pub range_max_m: f64,
    /// Standard deviation of a measured distance [m].
    #[serde(default)]
    pub noise_m: f64,
    /// Probability that a measurement is lost (distance 0, intensity 0).
    #[serde(default)]
    pub dropout: f64,
    /// Seed of its noise and dropouts (`board_sim --seed` replaces it).
    #[serde(default)]
    pub seed: u64,
}

fn d_true() -> bool {
    true
}
fn d_lidar_rate() -> f64 {
    10.0
}
fn d_lidar_samples() -> f64 {
    4500.0
}
fn d_lidar_min() -> f64 {
    0.02
}
fn d_lidar_max() -> f64 {
    12.0
}

/// A frame on the robot: x, y [m], yaw [rad] in `base_link`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Mount {
    /// Forward of the robot's centre [m].
    #[serde(default)]
    pub x_m: f64,
    /// Left of the robot's centre [m].
    #[serde(default)]
    pub y_m: f64,
    /// Counter-clockwise from the robot's heading [rad].
    #[serde(default)]
    pub yaw_rad: f64,
}

/// An actuator of the board (`Actuator.actuator` = `id`) and how long its moves take.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Actuator {
    /// Its name, as tasks' steps refer to it (unique).
    pub name: String,
    /// Its wire id (`Actuator.actuator`, unique).
    pub id: u8,
    /// How long a `take` lasts [ms].
    pub take_ms: u32,
    /// How long a `release` lasts [ms].
    pub release_ms: u32,
    /// How long a `home` lasts [ms].
    pub home_ms: u32,
}

/// The opponent: a disc driving its waypoints in order at `speed_m_s`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Opponent {
    /// Its disc's radius [m].
    pub radius_m: f64,
    /// Its speed between waypoints [m/s].
    pub speed_m_s: f64,
    /// After the last waypoint: back to the first (true) or stay (false).
    #[serde(default)]
    pub r#loop: bool,
    /// Time at the first waypoint before moving [s], counted from its start.
    #[serde(default)]
    pub start_delay_s: f64,
    /// When its script starts: with our robot's first motion (default), or when the
    /// board starts.
    #[serde(default)]
    pub start_on: OpponentStart,
    /// Where it drives, in order (at least one; at most [`MAX_WAYPOINTS`]).
    pub waypoints: Vec<Waypoint>,
}

/// When the opponent's script starts (its time 0).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OpponentStart {
    /// With the first `DriveSpeed` that asks our robot to move: a real match starts both
    /// robots at one signal, and the board has no start cord, so our robot's first
    /// motion stands for it. Until then the opponent stands at its first waypoint. The
    /// script's timing is then the same however long the stack took to come up.
    #[default]
    FirstMotion,
    /// When the board starts (time 0 of the board).
    BoardStart,
    /// When the start cord is pulled (`StartCord`): the match's own start signal.
    Cord,
}

/// One opponent waypoint; it waits `wait_s` on arrival.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    /// x [m].
    pub x_m: f64,
    /// y [m].
    pub y_m: f64,
    /// Time spent there on arrival [s] (default 0).
    #[serde(default)]
    pub wait_s: f64,
}

/// A place to score: where the robot goes, what it does there, what it earns.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Its name, unique (the strategy's and the demo's label).
    pub name: String,
    /// Points earned when done.
    pub points: u32,
    /// Where the robot's centre goes: x [m].
    pub x_m: f64,
    /// Where the robot's centre goes: y [m].
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
    /// Actuator steps done there, in order (at most [`MAX_STEPS`]).
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
    /// The actuator's name (one of the scenario's `actuators`).
    pub actuator: String,
    /// What it does.
    pub action: Action,
}

/// `Actuator.action` on the wire: 0 release, 1 take, 2 home.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Let go of the element (wire 0).
    Release,
    /// Grab the element (wire 1).
    Take,
    /// Back to the rest position (wire 2).
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
    /// Length of a match [s] (default 90).
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    /// The score a good run reaches (0 = not given).
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
        let err = |reason: Problem| ScenarioError {
            file: file.clone(),
            reason,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(Problem::Read(e)))?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(err(Problem::TooLarge(meta.len())));
        }
        let text = std::fs::read_to_string(path).map_err(|e| err(Problem::Read(e)))?;
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
        let err = |reason: Problem| ScenarioError {
            file: String::new(),
            reason,
        };
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(err(Problem::TooLarge(text.len() as u64)));
        }
        let s: Scenario = serde_json::from_str(text).map_err(|e| err(Problem::Json(e)))?;
        s.validate().map_err(|e| err(e.into()))?;
        Ok(s)
    }

    /// The scenario as `colour` plays it: for yellow everything on the table mirrored
    /// about its middle (`x → width − x`, headings `θ → π − θ`: obstacles, the start
    /// pose, tasks, the opponent's waypoints), for blue as written. What is in the robot's
    /// own frame (sensors, the LiDAR's mount) stays. The result passes the same checks.
    pub fn for_colour(&self, colour: arnie_math::Colour) -> Scenario {
        if !colour.mirrored() {
            return self.clone();
        }
        let w = self.table.width_m;
        let x = |v: f64| colour.x(v, w);
        let mut s = self.clone();
        for o in &mut s.obstacles {
            if let Some(r) = o.rect.as_mut() {
                (r.x_min_m, r.x_max_m) = (x(r.x_max_m), x(r.x_min_m));
            }
            if let Some(d) = o.disc.as_mut() {
                d.x_m = x(d.x_m);
            }
        }
        s.robot.start = Pose2::new(
            x(s.robot.start.x),
            s.robot.start.y,
            colour.heading(s.robot.start.theta),
        );
        for t in &mut s.tasks {
            t.x_m = x(t.x_m);
            t.theta_rad = t.theta_rad.map(|th| colour.heading(th));
        }
        if let Some(op) = s.opponent.as_mut() {
            for wp in &mut op.waypoints {
                wp.x_m = x(wp.x_m);
            }
        }
        s
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
}
