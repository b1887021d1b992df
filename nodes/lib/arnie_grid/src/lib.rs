//! Grid path planning (A*, Jump Point Search) without ROS: the planner node's library,
//! shared with the base.
//!
//! Layout:
//! - [`grid`]: [`Grid`] (x = column, (0, 0) = top-left; `Debug` draws `#`/`.` rows),
//!   [`Cell`], [`MapFrame`] and world ⇄ cell conversion (metres, lower-left origin).
//! - [`formats`]: loaders — Moving AI `.map`/`.scen`, PGM (P2/P5) and PNG with `map_server`
//!   thresholds, `nav_msgs/OccupancyGrid` data given as plain numbers.
//! - [`inflate`]: grow obstacles by a robot radius (a disc, not a square).
//! - [`search`]: [`Planner`] with reusable per-cell buffers: Jump Point Search (default),
//!   A*, Dijkstra; four diagonal modes.
//! - [`simplify`]: keep turning points, any-angle smoothing with an exact line-of-sight
//!   check, path lengths.
//! - [`marks`]: [`MarkedMap`], obstacles marked at run time (`UpdateMap`: discs, ttl).
//! - [`node`]: the planner node's ROS-free half: parameter values → checked settings,
//!   map files and `OccupancyGrid` fields → grid (yaw-0 check), one `PlanPath` query
//!   checked and answered in metres.
//! - [`error`]: [`PlanError`] (one variant per `PlanPath.srv` error code) and [`MapError`].
//!
//! ```
//! use arnie_grid::{Algorithm, Cell, DiagonalMode, Grid, Planner};
//! let grid = Grid::from_ascii(".#.\n.#.\n...").unwrap();
//! let mut planner = Planner::new(&grid);
//! let path = planner.plan(Cell::new(0, 0), Cell::new(2, 0), Algorithm::Jps, DiagonalMode::OnlyWhenNoObstacles).unwrap();
//! assert_eq!(path.cells.len(), 7); // down, across, up: no corner cutting
//! assert_eq!(path.length_cells, 6.0);
//! ```
//!
//! No module here uses ROS: the planner node (`nodes/arnie_planner`) converts messages at
//! its edge.
#![deny(missing_docs)]

pub mod error;
pub mod formats;
pub mod grid;
pub mod inflate;
pub mod marks;
pub mod node;
pub mod search;
pub mod simplify;

pub use error::{MapError, PlanError};
pub use formats::{parse_scen, OccupancyOptions, PgmOptions, Scenario};
pub use grid::{Cell, Grid, MapFrame};
pub use inflate::inflate;
pub use marks::{Mark, MarkError, MarkedMap};
pub use search::{Algorithm, DiagonalMode, PathResult, Planner};
pub use simplify::{has_line_of_sight, path_length, simplify, smooth};
