//! The ROS 2 side of the brain node (feature `ros`): the only module that uses r2r. The
//! binary only calls [`run`].
//!
//! - action server `/brain/run_task` (`arnie_interfaces/action/RunTask`);
//! - publishes `/brain/state` (`arnie_interfaces/BrainState`, reliable, keep-last 10)
//!   every tick, `brain/markers` (when `markers_rate_hz` > 0) and `/diagnostics`;
//! - client of `/trajectory/move_to` (`MoveTo`), or publisher of the legacy `/arm/target`
//!   (`command_mode: topic`);
//! - subscribes `/arm/position` (`PointStamped`) and `/eyes/observations`
//!   (`Coordinates`), sensor QoS, metres in `world`.
//!
//! Layout:
//! - here: [`setup`] (every entity and task, created before the node spins) and [`run`];
//!   `params`: the node's ROS parameters, declared once, checked at start and on every
//!   `ros2 param set` (with [`crate::config`]), and when a change takes effect.
//! - [`inputs`]: the latest `/arm/position` and `/eyes/observations`, with the instant
//!   each arrived (stale ones are not handed to the brain).
//! - [`mover`]: [`Mover`], where targets go: `MoveTo` goals on `/trajectory/move_to`
//!   (default) or the legacy `/arm/target` topic.
//! - [`server`]: [`BrainServer`], the `/brain/run_task` action server and the tick loop of
//!   a run; publishes `/brain/state` every tick.
//! - [`state`]: [`crate::Snapshot`] → `arnie_interfaces/BrainState`.
//! - [`counters`]: the node's `/diagnostics` counters.
//! - [`markers`]: `brain/markers`, what the brain sees and wants, for rviz.
//!
//! Units: the library works in the units of instructions.json (mm, legacy frame); topics
//! are in metres, frame `world`. [`Scale`] converts, once, at this edge.

pub mod counters;
pub mod inputs;
pub mod markers;
pub mod mover;
mod params;
pub mod server;
pub mod state;

use std::sync::Arc;
use std::time::Duration;

use node_glue::lifecycle::{Failed, Managed, Outcome, State};
use node_glue::params::SettingsError;
use node_glue::r2r::{
    arnie_interfaces::action::RunTask, arnie_interfaces::msg::BrainState,
    arnie_interfaces::msg::Coordinates, geometry_msgs::msg::PointStamped,
};
use node_glue::{qos, topics, App, Error, ParameterError};

pub use crate::config::CommandMode;
pub use counters::Counters;
pub use inputs::Inputs;
pub use mover::Mover;
pub use server::BrainServer;

use params::{rules, BrainParams};

/// Why the node cannot start, beyond ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `autostart` without a task to start (a parameter error).
    #[error("autostart needs instructions_file")]
    AutostartWithoutTask,
    /// `instructions_file` does not load: the rejection a goal naming it would get
    /// (the file, the key and the reason).
    #[error("instructions_file {0}")]
    Instructions(#[from] server::LoadError),
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        match e {
            SetupError::AutostartWithoutTask => ParameterError::node(e).into(),
            e => Error::node(e),
        }
    }
}

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "brain";
/// History of the `/brain/state` publisher (reliable).
const STATE_HISTORY: usize = 10;
/// Period of `/diagnostics`.
const DIAGNOSTICS_PERIOD: Duration = Duration::from_secs(1);

/// Runs the brain node until shutdown, then exits the process (exit 2 on bad parameters
/// or a bad `instructions_file`, naming the reason). A managed node: see [`Lifecycle`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The brain as a managed node:
/// - configure loads `instructions_file` (a file that does not load fails it, with the
///   loader's reason: the node stays unconfigured; fix the file and configure again);
/// - the autostart run starts at the first activation;
/// - while not active, `RunTask` goals are refused (REJECTED, with the reason), a run in
///   progress does not tick (it is paused, not ended: deactivation stops its move,
///   activation resumes it), and `/brain/state`, `brain/markers` and `/arm/target` are
///   silent.
struct Lifecycle {
    server: Arc<BrainServer>,
    /// Whether the first activation starts the autostart run.
    autostart: bool,
    /// The `instructions_file` task loaded by the last configure.
    loaded: Option<server::Task>,
    handle: tokio::runtime::Handle,
}

impl Managed for Lifecycle {
    fn on_configure(&mut self, _: State) -> Outcome {
        let settings = (self.server.settings_fn())().map_err(Failed::failure)?;
        self.loaded = None;
        if !settings.instructions_file.trim().is_empty() {
            let task = self
                .handle
                .block_on(self.server.load(&RunTask::Goal::default()))
                .map_err(|e| Failed::failure(SetupError::Instructions(e)))?;
            node_glue::log_info!("instructions_file {}: loaded", settings.instructions_file);
            self.loaded = Some(task);
        }
        Ok(())
    }

    fn on_activate(&mut self, _: State) -> Outcome {
        if self.autostart {
            if let Some(task) = self.loaded.take() {
                self.autostart = false;
                self.handle.spawn(self.server.clone().autostart(task));
            }
        }
        Ok(())
    }

    fn on_deactivate(&mut self, _: State) -> Outcome {
        self.server.hold();
        Ok(())
    }

    fn on_shutdown(&mut self, from: State) -> Outcome {
        if from == State::Active {
            self.server.hold();
        }
        Ok(())
    }
}

/// Creates the node's action server, subscriptions, publishers and tasks.
///
/// # Errors
/// Invalid parameters (the reason names the parameter, its range and the value), or a
/// ROS entity that could not be created.
pub fn setup(
    app: &mut App,
    lc: &node_glue::lifecycle::Lifecycle,
) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(BrainParams::default(), rules())?;
    let (settings, mode, autostart, markers_period) = {
        let p = params.lock()?;
        let config = p.config()?;
        (
            p.settings()?,
            config.command_mode,
            p.autostart,
            config.markers_period,
        )
    };
    if autostart && settings.instructions_file.trim().is_empty() {
        return Err(SetupError::AutostartWithoutTask.into());
    }
    let counters = Arc::new(Counters::default());
    let inputs = Arc::new(Inputs::default());
    let positions = app.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    let observations = app.subscribe::<Coordinates>(topics::EYES_OBSERVATIONS, qos::sensor())?;
    let state = lc.publisher::<BrainState>(
        &mut app.node,
        topics::BRAIN_STATE,
        qos::commands().keep_last(STATE_HISTORY),
    )?;
    let goals = app
        .node
        .create_action_server::<RunTask::Action>(topics::RUN_TASK)?;
    let markers = match markers_period {
        Some(period) => Some((markers::publisher(&mut app.node, lc)?, period)),
        None => None,
    };
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let mover = match mode {
        CommandMode::MoveTo => Mover::move_to(&mut app.node, counters.clone())?,
        CommandMode::Topic => Mover::topic(&mut app.node, lc, counters.clone())?,
    };
    node_glue::log_info!(
        "targets go to {}",
        match mode {
            CommandMode::MoveTo => topics::MOVE_TO,
            CommandMode::Topic => topics::ARM_TARGET,
        }
    );

    tokio::spawn(inputs::track_arm(
        positions,
        inputs.clone(),
        counters.clone(),
    ));
    tokio::spawn(inputs::track_observations(
        observations,
        inputs.clone(),
        counters.clone(),
    ));

    // Parameters are read again for every run: `ros2 param set` applies to the next one.
    let live = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| SettingsError::Poisoned)?;
        Ok(p.settings()?)
    });
    let server = BrainServer::new(
        inputs.clone(),
        mover,
        state,
        settings_fn.clone(),
        counters.clone(),
        shutdown.clone(),
        lc.clone(),
    );
    if let Some((publisher, period)) = markers {
        tokio::spawn(markers::run(
            publisher,
            server.clone(),
            inputs,
            settings_fn,
            period,
            shutdown.clone(),
        ));
    }
    tokio::spawn(server.clone().serve(goals));

    diagnostics.spawn_periodic(DIAGNOSTICS_PERIOD, shutdown, move || counters.statuses());
    // A bad instructions_file fails the configure (naming file, key and reason), not the
    // first goal that falls back on it.
    Ok(Box::new(Lifecycle {
        server,
        autostart,
        loaded: None,
        handle: app.handle(),
    }))
}

/// Metres per instructions unit (`m_per_unit`; 0.001 for the millimetres of
/// instructions.json): the one length scale every node shares.
pub use arnie_constants::units::Scale;

/// The node's settings for one run, checked (`params` converts the parameters).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Run by goals that name no task, and by `autostart`; may be empty.
    pub instructions_file: String,
    /// Time between two ticks.
    pub tick_period: Duration,
    /// Tick limit for goals that give `max_ticks = 0` (0 = none).
    pub max_ticks: u64,
    /// An arm position older than this is stale (the brain pauses).
    pub position_timeout: Duration,
    /// Observations older than this are dropped.
    pub observation_timeout: Duration,
    /// Trajectory verification tolerance per axis, instructions units.
    pub verify_tolerance_mm: f64,
    /// Metres per instructions unit.
    pub scale: Scale,
    /// Where task files may be read from and how large they (and inline tasks) may be
    /// (`allowed_dirs`, `max_file_bytes`).
    pub files: node_glue::files::FileRules,
}

/// Reads the current settings (the live parameters), so `ros2 param set` applies to
/// the next run.
pub type SettingsFn = Arc<dyn Fn() -> Result<Settings, SettingsError> + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    #[test]
    fn scale_round_trips_and_refuses_nonsense() {
        let s = Scale::new(0.001).unwrap();
        assert_eq!(
            s.to_m(Point3::new(-95.0, 30.0, 45.0)),
            Point3::new(-0.095, 0.03, 0.045)
        );
        let p = Point3::new(0.08, 0.06, 0.04);
        assert!((s.from_m(p) - Point3::new(80.0, 60.0, 40.0)).norm() < 1e-9);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Scale::new(bad).is_none(), "{bad}");
        }
    }
}
