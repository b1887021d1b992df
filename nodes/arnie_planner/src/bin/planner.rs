//! `planner`: grid path planning as a ROS 2 service (see nodes/arnie_planner/README.md).
//!
//! - map: the file named by `map_file` (PGM, PNG or Moving AI `.map`, loaded once at start),
//!   or, when `map_file` is "", `/map` (`nav_msgs/OccupancyGrid`, reliable +
//!   transient-local); every accepted map replaces the grid and the planner;
//! - service `/planner/plan_path` (`arnie_interfaces/srv/PlanPath`), world metres;
//! - publishes the last path on `/planner/path` (`nav_msgs/Path`, latched) and counters
//!   on `/diagnostics`;
//! - service `planner/update_map` (`arnie_interfaces/srv/UpdateMap`): marks with a ttl,
//!   and a file map republished on `map` (latched) for rviz: [`arnie_planner::ros`].
//!
//! One task owns the [`Planner`] and takes maps and requests in turn, so there is no
//! lock around it; the search runs in `block_in_place`, off the spin thread and without
//! stalling the runtime's other tasks. All decisions are in `arnie_planner::node`.
use std::path::Path as FsPath;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arnie_planner::node::{self, Answer, MapOptions, OccupancyMap, Query, Search};
use arnie_planner::ros::{MapState, UPDATE_MAP};
use arnie_planner::{Grid, MapFrame, PlanError, Planner};
use futures::{Stream, StreamExt};
use node_glue::diagnostics::{Level, Status};
use node_glue::r2r::{
    self,
    arnie_interfaces::srv::{PlanPath, UpdateMap},
    geometry_msgs::msg::Point,
    nav_msgs::msg::{OccupancyGrid, Path},
    RosParams, ServiceRequest,
};
use node_glue::{main_with, qos, time, topics, App, Error, Shutdown};

#[derive(RosParams, Clone, Debug)]
struct PlannerParams {
    /// Map file read at start: a PGM (P2/P5) or PNG (map_server thresholds) or a Moving AI .map; "" = use /map
    map_file: String,
    /// Edge length of one cell of the map file [m]
    resolution_m: f64,
    /// World x of the map file's lower-left corner [m]
    origin_x_m: f64,
    /// World y of the map file's lower-left corner [m]
    origin_y_m: f64,
    /// /map cells with a value above this (0..=100) are obstacles
    occupied_above: i64,
    /// Whether unknown cells (/map -1, PGM grey) are obstacles
    unknown_is_blocked: bool,
    /// Obstacles grow by this radius, 0 = none [m]
    robot_radius_m: f64,
    /// "jps" | "astar" | "dijkstra"
    algorithm: String,
    /// "only_when_no_obstacles" | "if_at_most_one_obstacle" | "always" | "never" (jps runs as astar for the last three)
    diagonal_mode: String,
    /// Frame of the published paths (the map's frame)
    frame_id: String,
    /// A start blocked only by the inflated margin is left through the nearest free cell within this distance, 0 = START_BLOCKED [m]
    start_escape_m: f64,
    /// Period of /diagnostics [ms]
    diagnostics_period_ms: i64,
}

impl Default for PlannerParams {
    fn default() -> Self {
        PlannerParams {
            map_file: String::new(),
            resolution_m: 0.05,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            occupied_above: 50,
            unknown_is_blocked: true,
            robot_radius_m: 0.0,
            algorithm: "jps".into(),
            diagonal_mode: "only_when_no_obstacles".into(),
            frame_id: topics::WORLD_FRAME.into(),
            start_escape_m: 0.0,
            diagnostics_period_ms: 1000,
        }
    }
}

/// The per-request settings, read from the live parameters (so `ros2 param set` applies
/// to the next request).
fn search_settings(p: &PlannerParams) -> Result<(Search, String), node::ParamError> {
    Ok((
        Search::resolve(&p.algorithm, &p.diagonal_mode)?.with_start_escape(p.start_escape_m)?,
        p.frame_id.clone(),
    ))
}

/// The per-map settings, read from the live parameters when a map arrives.
fn map_options(p: &PlannerParams) -> Result<MapOptions, node::ParamError> {
    MapOptions::new(p.occupied_above, p.unknown_is_blocked, p.robot_radius_m)
}

/// `error_code` names for /diagnostics, indexed by code.
const CODE_NAMES: [&str; 8] = [
    "ok",
    "no_map",
    "start_outside",
    "goal_outside",
    "start_blocked",
    "goal_blocked",
    "no_path",
    "invalid_request",
];

/// What /diagnostics shows. Written by the planner task only.
#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    /// Answers by `error_code` (0 = OK).
    by_code: [AtomicU64; CODE_NAMES.len()],
    maps_received: AtomicU64,
    map_updates: AtomicU64,
    maps_rejected: AtomicU64,
    /// UpdateMap requests answered.
    update_requests: AtomicU64,
    /// Marks live after the last update or plan.
    marks: AtomicU64,
    /// f64 bits of the last search time [s].
    last_plan_time_s: AtomicU64,
    last_expansions: AtomicU64,
    /// `width << 32 | height` of the current map (0 = none).
    map_size: AtomicU64,
    last_map_error: Mutex<String>,
}

impl Counters {
    fn count_code(&self, code: u16) {
        if let Some(c) = self.by_code.get(usize::from(code)) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn statuses(&self, source: &str) -> Vec<Status> {
        let size = self.map_size.load(Ordering::Relaxed);
        let (level, message) = if size == 0 {
            (Level::Warn, format!("no map yet ({source})"))
        } else {
            (
                Level::Ok,
                format!("map {}x{} ({source})", size >> 32, size & 0xffff_ffff),
            )
        };
        let mut s = Status {
            name: "planner".into(),
            level,
            message,
            values: vec![],
        }
        .with("requests", self.requests.load(Ordering::Relaxed));
        for (name, n) in CODE_NAMES.iter().zip(&self.by_code) {
            s = s.with(*name, n.load(Ordering::Relaxed));
        }
        let last_error = self
            .last_map_error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default();
        vec![s
            .with("maps_received", self.maps_received.load(Ordering::Relaxed))
            .with("map_updates", self.map_updates.load(Ordering::Relaxed))
            .with("maps_rejected", self.maps_rejected.load(Ordering::Relaxed))
            .with(
                "update_requests",
                self.update_requests.load(Ordering::Relaxed),
            )
            .with("marks", self.marks.load(Ordering::Relaxed))
            .with("last_map_error", last_error)
            .with(
                "last_plan_time_s",
                f64::from_bits(self.last_plan_time_s.load(Ordering::Relaxed)),
            )
            .with(
                "last_expansions",
                self.last_expansions.load(Ordering::Relaxed),
            )]
    }
}

fn main() {
    main_with("planner", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(PlannerParams::default())?;
    let (map_file, frame, opts, search, diagnostics_period, frame_id) = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        let frame = MapFrame::new(p.resolution_m, p.origin_x_m, p.origin_y_m)
            .map_err(|e| Error::Parameter(format!("map file frame: {e}")))?;
        let opts = map_options(&p).map_err(|e| Error::Parameter(e.to_string()))?;
        let (search, _) = search_settings(&p).map_err(|e| Error::Parameter(e.to_string()))?;
        if p.diagnostics_period_ms < 1 {
            return Err(Error::Parameter(format!(
                "diagnostics_period_ms must be >= 1, got {}",
                p.diagnostics_period_ms
            )));
        }
        (
            p.map_file.clone(),
            frame,
            opts,
            search,
            Duration::from_millis(p.diagnostics_period_ms as u64),
            p.frame_id.clone(),
        )
    };
    let name = app.name().to_owned();
    if search.fell_back() {
        r2r::log_warn!(&name, "algorithm jps supports only diagonal_mode only_when_no_obstacles: running astar for {:?}", search.diagonal);
    }
    let counters = Arc::new(Counters::default());

    // A file map is loaded before anything is served: a bad file stops the node (exit 2).
    let (initial, maps, source, map_state) = if map_file.is_empty() {
        let maps = app.subscribe::<OccupancyGrid>(topics::MAP, qos::latched())?;
        (
            None,
            Some(maps),
            topics::MAP.to_string(),
            MapState::new(None, &frame_id, &name),
        )
    } else {
        let raw = node::load_map_file_raw(FsPath::new(&map_file), frame, &opts)
            .map_err(|e| Error::Setup(format!("map_file {map_file}: {e}")))?;
        let grid = opts
            .inflate(raw.clone())
            .map_err(|e| Error::Setup(format!("map_file {map_file}: {e}")))?;
        let map_pub = app
            .node
            .create_publisher::<OccupancyGrid>(topics::MAP, qos::latched())?;
        let mut state = MapState::new(Some(map_pub), &frame_id, &name);
        state.set_map(raw, grid.clone(), opts.robot_radius_m);
        r2r::log_info!(
            &name,
            "loaded {map_file}: {}x{} cells, {} blocked (after inflation)",
            grid.width(),
            grid.height(),
            grid.blocked_count()
        );
        counters.map_updates.fetch_add(1, Ordering::Relaxed);
        counters.map_size.store(map_size(&grid), Ordering::Relaxed);
        (
            Some(Planner::new(&grid)),
            None,
            format!("file {map_file}"),
            state,
        )
    };
    let updates = app
        .node
        .create_service::<UpdateMap::Service>(UPDATE_MAP, qos::commands())?;
    let requests = app
        .node
        .create_service::<PlanPath::Service>(topics::PLAN_PATH, qos::commands())?;
    let path_pub = app
        .node
        .create_publisher::<Path>(topics::PLANNER_PATH, qos::latched())?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let task = PlannerTask {
        planner: initial,
        map_state,
        params,
        counters: counters.clone(),
        path_pub,
        log: name,
        fallback_logged: search.fell_back(),
    };
    tokio::spawn(task.run(maps, requests, updates, shutdown.clone()));
    diagnostics.spawn_periodic(diagnostics_period, shutdown, move || {
        counters.statuses(&source)
    });
    Ok(())
}

fn map_size(grid: &Grid) -> u64 {
    (grid.width() as u64) << 32 | grid.height() as u64
}

/// Owns the planner: every map and every request passes through [`PlannerTask::run`].
struct PlannerTask {
    planner: Option<Planner>,
    /// The map as drawn and its marks (`planner/update_map`); rebuilds `planner` on a change.
    map_state: MapState,
    params: Arc<Mutex<PlannerParams>>,
    counters: Arc<Counters>,
    path_pub: r2r::Publisher<Path>,
    log: String,
    /// The JPS → A* fallback was logged for the current settings (log once per change).
    fallback_logged: bool,
}

impl PlannerTask {
    async fn run(
        mut self,
        maps: Option<impl Stream<Item = OccupancyGrid> + Unpin>,
        mut requests: impl Stream<Item = ServiceRequest<PlanPath::Service>> + Unpin,
        mut updates: impl Stream<Item = ServiceRequest<UpdateMap::Service>> + Unpin,
        shutdown: Shutdown,
    ) {
        let mut maps = maps.map(|m| m.fuse());
        loop {
            let next_map = async {
                match maps.as_mut() {
                    Some(m) => m.next().await,
                    None => futures::future::pending().await,
                }
            };
            tokio::select! {
                _ = shutdown.wait() => break,
                Some(map) = next_map => self.on_map(&map),
                req = requests.next() => match req {
                    Some(req) => self.on_request(req),
                    None => break,
                },
                Some(req) = updates.next() => {
                    self.counters.update_requests.fetch_add(1, Ordering::Relaxed);
                    if let Some(p) = tokio::task::block_in_place(|| self.map_state.on_update(req)) {
                        self.planner = Some(p);
                    }
                    self.counters.marks.store(self.map_state.marks() as u64, Ordering::Relaxed);
                }
            }
        }
    }

    fn on_map(&mut self, msg: &OccupancyGrid) {
        self.counters.maps_received.fetch_add(1, Ordering::Relaxed);
        let opts = match self
            .params
            .lock()
            .map_err(|_| "parameters poisoned".to_string())
            .and_then(|p| map_options(&p).map_err(|e| e.to_string()))
        {
            Ok(o) => o,
            Err(e) => return self.reject_map(format!("map not used: {e}")),
        };
        let o = &msg.info.origin;
        let map = OccupancyMap {
            width: msg.info.width,
            height: msg.info.height,
            resolution_m: node::f32_as_decimal(msg.info.resolution),
            origin_x_m: o.position.x,
            origin_y_m: o.position.y,
            orientation: (
                o.orientation.x,
                o.orientation.y,
                o.orientation.z,
                o.orientation.w,
            ),
            data: &msg.data,
        };
        // Inflating and indexing a large map takes a while: keep the runtime's other
        // tasks running meanwhile.
        // The map as drawn (no inflation) is kept for the marks; the planner searches it inflated.
        let raw_opts = MapOptions {
            robot_radius_m: 0.0,
            ..opts.clone()
        };
        let built = tokio::task::block_in_place(|| {
            let raw = node::grid_from_occupancy(&map, &raw_opts)?;
            let g = opts.inflate(raw.clone()).map_err(node::MapRejected::from)?;
            Ok::<_, node::MapRejected>((Planner::new(&g), g, raw))
        });
        match built {
            Ok((planner, grid, raw)) => {
                self.map_state
                    .set_map(raw, grid.clone(), opts.robot_radius_m);
                r2r::log_info!(
                    &self.log,
                    "new map {}x{} at {} m/cell, origin ({}, {}): {} cells blocked (after inflation by {} m)",
                    grid.width(),
                    grid.height(),
                    grid.frame().resolution_m,
                    grid.frame().origin_x_m,
                    grid.frame().origin_y_m,
                    grid.blocked_count(),
                    opts.robot_radius_m
                );
                self.counters.map_updates.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .map_size
                    .store(map_size(&grid), Ordering::Relaxed);
                self.planner = Some(planner);
            }
            Err(e) => self.reject_map(format!("map rejected, keeping the previous one: {e}")),
        }
    }

    fn reject_map(&self, why: String) {
        r2r::log_error!(&self.log, "{why}");
        self.counters.maps_rejected.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut last) = self.counters.last_map_error.lock() {
            *last = why;
        }
    }

    fn on_request(&mut self, req: ServiceRequest<PlanPath::Service>) {
        self.counters.requests.fetch_add(1, Ordering::Relaxed);
        // Marks whose ttl is up are forgotten before the search.
        if let Some(p) = tokio::task::block_in_place(|| self.map_state.expire()) {
            self.planner = Some(p);
            self.counters
                .marks
                .store(self.map_state.marks() as u64, Ordering::Relaxed);
        }
        let m = &req.message;
        let query = Query {
            start_m: (m.start.x, m.start.y),
            goal_m: (m.goal.x, m.goal.y),
            simplify: m.simplify,
            smooth: m.smooth,
        };
        let settings = self
            .params
            .lock()
            .map_err(|_| PlanError::InvalidRequest("parameters poisoned".into()))
            .and_then(|p| {
                search_settings(&p).map_err(|e| PlanError::InvalidRequest(e.to_string()))
            });
        let frame_id = settings
            .as_ref()
            .map(|(_, f)| f.clone())
            .unwrap_or_else(|_| topics::WORLD_FRAME.into());
        let t0 = Instant::now();
        let result = settings.and_then(|(search, _)| {
            if search.fell_back() != self.fallback_logged {
                if search.fell_back() {
                    r2r::log_warn!(&self.log, "algorithm jps supports only diagonal_mode only_when_no_obstacles: running astar for {:?}", search.diagonal);
                }
                self.fallback_logged = search.fell_back();
            }
            tokio::task::block_in_place(|| node::answer(self.planner.as_mut(), &search, &query))
        });
        let time_s = t0.elapsed().as_secs_f64();
        self.counters
            .last_plan_time_s
            .store(time_s.to_bits(), Ordering::Relaxed);
        let resp = match result {
            Ok(a) => {
                self.counters
                    .last_expansions
                    .store(a.expansions, Ordering::Relaxed);
                self.counters.count_code(PlanError::OK);
                let path = path_msg(&a, &frame_id);
                if let Err(e) = self.path_pub.publish(&path) {
                    r2r::log_warn!(&self.log, "could not publish {}: {e}", topics::PLANNER_PATH);
                }
                r2r::log_debug!(
                    &self.log,
                    "path of {} poses, {:.3} m, {} expansions, {:.6} s",
                    a.cells.len(),
                    a.length_m,
                    a.expansions,
                    time_s
                );
                PlanPath::Response {
                    error_code: PlanError::OK,
                    error_msg: String::new(),
                    path,
                    length_m: a.length_m,
                    length_cells: a.length_cells,
                    expansions: a.expansions,
                    time_s,
                }
            }
            Err(e) => {
                let expansions = if let PlanError::NoPath { expansions } = e {
                    expansions
                } else {
                    0
                };
                self.counters
                    .last_expansions
                    .store(expansions, Ordering::Relaxed);
                self.counters.count_code(e.code());
                r2r::log_info!(
                    &self.log,
                    "plan ({}, {}) -> ({}, {}) failed: {e}",
                    query.start_m.0,
                    query.start_m.1,
                    query.goal_m.0,
                    query.goal_m.1
                );
                PlanPath::Response {
                    error_code: e.code(),
                    error_msg: e.to_string(),
                    path: Path {
                        header: time::header(&frame_id),
                        poses: vec![],
                    },
                    length_m: 0.0,
                    length_cells: 0.0,
                    expansions,
                    time_s,
                }
            }
        };
        if let Err(e) = req.respond(resp) {
            r2r::log_warn!(&self.log, "could not answer a PlanPath request: {e}");
        }
    }
}

/// The answer as a `nav_msgs/Path`: one pose per kept cell, at its centre, z = 0,
/// identity orientation.
fn path_msg(a: &Answer, frame_id: &str) -> Path {
    node_glue::msgs::path(
        time::header(frame_id),
        a.points_m.iter().map(|&(x, y)| Point { x, y, z: 0.0 }),
    )
}
