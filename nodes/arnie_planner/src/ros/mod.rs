//! The ROS 2 side of the `planner` node (feature `ros`): the only module that uses r2r.
//! The binary only calls [`run`] (`node_glue::main_with(NODE, setup)`); every decision
//! is in the ROS-free [`crate::node`].
//!
//! - map: the file named by `map_file` (PGM, PNG, Moving AI `.map` or table scenario
//!   `.json`, loaded once at start; a bad file stops the node, exit 2), or, when
//!   `map_file` is "", `/map` (`nav_msgs/OccupancyGrid`, reliable + transient-local);
//!   every accepted map replaces the grid and the planner;
//! - service `/planner/plan_path` (`arnie_interfaces/srv/PlanPath`), world metres;
//! - service `planner/update_map` (`arnie_interfaces/srv/UpdateMap`): marks with a ttl;
//! - publishes the last path on `/planner/path` (`nav_msgs/Path`, latched), a file map
//!   with its marks on `map` (latched, for rviz) and counters on `/diagnostics`.
//!
//! Layout:
//! - `params`: the ROS parameters (declared once: type, default, range, description,
//!   when a change takes effect), the check at start and on every `ros2 param set`.
//! - `counters`: the `/diagnostics` counters and the rate limits of input-driven logs.
//! - `task`: the task that owns the planner: maps in, the select loop.
//! - `plan`: the `PlanPath` service.
//! - `map_state`: the marks (`planner/update_map`) and the `map` republication.

mod counters;
mod map_state;
mod nav2;
mod params;
mod plan;
mod task;

use std::path::Path as FsPath;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use node_glue::lifecycle::{Lifecycle, Managed};
use node_glue::r2r::{
    arnie_interfaces::srv::{PlanPath, UpdateMap},
    nav2_msgs::{
        action::{ComputePathThroughPoses, ComputePathToPose},
        srv::ClearEntireCostmap,
    },
    nav_msgs::msg::{OccupancyGrid, Path},
};
use node_glue::{qos, topics, App, Error, ParameterError};

use crate::node;
use crate::Planner;
use counters::{Counters, Gates};
use map_state::{MapState, UPDATE_MAP};
use nav2::Nav2Request;
use params::PlannerParams;
use task::PlannerTask;

/// The node's name (and the log target).
pub const NODE: &str = "planner";

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `map_file` does not load.
    #[error("map_file {file}: {source}")]
    MapFile {
        /// The file.
        file: String,
        /// Why.
        source: node::MapRejected,
    },
    /// `map_file` loads but cannot be inflated by the robot's radius.
    #[error("map_file {file}: {source}")]
    Inflate {
        /// The file.
        file: String,
        /// Why.
        source: crate::MapError,
    },
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls. A managed node (`node_glue::lifecycle`):
/// the map file is loaded at start (a bad file stops the node, as before); while the
/// node is not active, `PlanPath` and `UpdateMap` requests are answered
/// `INVALID_REQUEST` with the reason (counted `inactive_refused`) and nothing is
/// published on `map` or `planner/path` (the file's map goes out on activation).
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// Creates the node's services, subscriptions, publishers and tasks
/// (`node_glue::lifecycle::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, a map file that cannot be used, or a ROS entity that could not be
/// created.
pub fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(PlannerParams::default(), params::rules())?;
    let p = params.lock()?.clone();
    let settings = p.settings().map_err(ParameterError::node)?;
    let map_file = p.map_file().to_owned();
    if settings.search.fell_back() {
        node_glue::log_warn!("algorithm jps supports only diagonal_mode only_when_no_obstacles: running astar for {:?}", settings.search.diagonal);
    }
    let counters = Arc::new(Counters::default());
    let costmap =
        lc.latched_publisher::<OccupancyGrid>(&mut app.node, nav2::GLOBAL_COSTMAP, qos::latched())?;

    // A file map is loaded before anything is served: a bad file stops the node (exit 2).
    let (initial, maps, source, map_state) = if map_file.is_empty() {
        let maps = app.subscribe::<OccupancyGrid>(topics::MAP, qos::latched())?;
        let state = MapState::new(None, &settings.frame_id, counters.clone()).with_costmap(costmap);
        (None, Some(maps), topics::MAP.to_string(), state)
    } else {
        let opts = &settings.map;
        let raw = node::load_map_file_raw(FsPath::new(&map_file), settings.file_frame, opts)
            .map_err(|source| SetupError::MapFile {
                file: map_file.clone(),
                source,
            })?;
        let colour = p.colour();
        let raw = if colour.mirrored() {
            node_glue::log_info!(
                "colour {colour}: {map_file} mirrored about its middle (x -> width - x)"
            );
            raw.mirrored_x()
        } else {
            raw
        };
        let grid = opts
            .inflate(raw.clone())
            .map_err(|source| SetupError::Inflate {
                file: map_file.clone(),
                source,
            })?;
        let map_pub =
            lc.latched_publisher::<OccupancyGrid>(&mut app.node, topics::MAP, qos::latched())?;
        let mut state = MapState::new(Some(map_pub), &settings.frame_id, counters.clone())
            .with_costmap(costmap);
        state.set_map(raw, grid.clone(), opts.robot_radius_m);
        node_glue::log_info!(
            "loaded {map_file}: {}x{} cells, {} blocked (after inflation)",
            grid.width(),
            grid.height(),
            grid.blocked_count()
        );
        counters.map_updates.inc();
        counters.set_map_size(grid.width(), grid.height());
        let source = format!("file {map_file}");
        (Some(Planner::new(&grid)), None, source, state)
    };
    let updates = app
        .node
        .create_service::<UpdateMap::Service>(UPDATE_MAP, qos::commands())?;
    let requests = app
        .node
        .create_service::<PlanPath::Service>(topics::PLAN_PATH, qos::commands())?;
    let path_pub = lc.publisher::<Path>(&mut app.node, topics::PLANNER_PATH, qos::latched())?;
    let node = &mut app.node;
    let nav2: Vec<std::pin::Pin<Box<dyn Stream<Item = Nav2Request> + Send>>> = vec![
        Box::pin(
            node.create_action_server::<ComputePathToPose::Action>(nav2::COMPUTE_PATH_TO_POSE)?
                .map(Nav2Request::ToPose),
        ),
        Box::pin(
            node.create_action_server::<ComputePathThroughPoses::Action>(
                nav2::COMPUTE_PATH_THROUGH_POSES,
            )?
            .map(Nav2Request::Through),
        ),
        Box::pin(
            node.create_service::<ClearEntireCostmap::Service>(
                nav2::CLEAR_GLOBAL,
                qos::commands(),
            )?
            .map(|r| Nav2Request::Clear(r, nav2::CLEAR_GLOBAL)),
        ),
        Box::pin(
            node.create_service::<ClearEntireCostmap::Service>(nav2::CLEAR_LOCAL, qos::commands())?
                .map(|r| Nav2Request::Clear(r, nav2::CLEAR_LOCAL)),
        ),
    ];
    let tf = node_glue::tf::Listener::new(app, std::time::Duration::from_secs(10))?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let task = PlannerTask {
        planner: initial,
        map_state,
        params,
        counters: counters.clone(),
        gates: Gates::new(),
        path_pub,
        fallback_logged: settings.search.fell_back(),
        tf,
        lc: lc.clone(),
    };
    tokio::spawn(task.run(
        maps,
        requests,
        updates,
        futures::stream::select_all(nav2),
        shutdown.clone(),
    ));
    diagnostics.spawn_periodic(settings.diagnostics_period, shutdown, move || {
        counters.statuses(&source)
    });
    Ok(Box::new(node_glue::lifecycle::Plain))
}
