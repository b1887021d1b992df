//! MoveTo action server core: minimum-jerk arm moves with obstacle detection and
//! reverse to start (the original was PYT, in C#). Pure library: no ROS, no clock.
//!
//! # Layout
//! - [`minjerk`]: `plan(start, goal, factor)` returns N + 1 points,
//!   N = ceil(distance_mm) · factor, the last always exactly `goal` (PYT skipped it:
//!   `tests/golden.rs`, `pyt_emits_end_point`); sample-time helpers.
//! - [`executor`]: one move as a state machine stepped once per period with the latest
//!   measured position: send / wait / done, ±tolerance per axis, hold, reverse to start.
//! - [`outcome`]: [`Outcome`] and [`Phase`], 1:1 with `MoveTo.action`; [`End`], why a
//!   move ended (the result message).
//! - [`config`]: [`RawTrajectoryConfig`] (as written) → [`TrajectoryConfig`] (checked).
//! - [`goal`]: accept or reject a target (NaN, workspace, no/stale arm position).
//! - [`legacy`]: the plain target topic: repeats ignored, newest target preempts.
//! - [`obstructions`]: the arm's memory of what stopped it: [`KnownObstruction`]s
//!   (centre, clearance radius, recorded-at / expires-at ms) in an
//!   [`ObstructionMemory`] with a TTL and a cap (oldest dropped and counted).
//! - [`detour`]: the detour planner: A* on a 3D grid (26-connected, Euclidean) around
//!   the remembered obstructions and fixed boxes inside the workspace, shortcut to few
//!   via-points; complete and optimal at its resolution, with an expansion budget;
//!   [`detour::plan_motion`] turns the path into set-points.
//! - [`spline`]: [`SmoothPath`], one C² motion through via-points (cubic spline in chord
//!   length, minimum-jerk time law); with no via-point exactly [`minjerk::plan`].
//! - [`units`]: the one mm ↔ m scale ([`units::SCALE`], the shared `arnie_constants::units::Scale`).
//! - [`error`]: [`TrajectoryError`], the crate's one error enum.
//! - `ros` (feature `ros`, the node's glue; the only module that uses r2r): parameters,
//!   the `MoveTo` server, the arm position, `/diagnostics` counters.
//!
//! Units: millimetres everywhere in this crate; the node converts metres ↔ millimetres
//! at the topic edge with [`units`]. Frame: `world`.
//!
//! # Node loop (sketch for the glue)
//! ```
//! use nalgebra::Point3;
//! use arnie_trajectory::{goal, Action, ArmSample, TrajectoryConfig};
//!
//! let config = TrajectoryConfig::default();
//! let arm = Some(ArmSample { position_mm: Point3::origin(), age_ms: 5 });
//! let accepted = goal::validate_goal(Point3::new(0.0, 30.0, 0.0), arm, &config)?;
//! let mut exec = accepted.into_executor(&config)?;
//! let mut measured = accepted.start_mm; // a perfect arm, one period behind
//! let end = loop {
//!     // every period_ms: pass the latest fresh position (None if stale)
//!     match exec.step(Some(measured)).action {
//!         Action::Send(p) => measured = p, // publish p (mm → m) on /arm/command
//!         Action::Wait => {}
//!         Action::Done(end) => break end,
//!     }
//! };
//! assert_eq!(end.outcome().code(), 0); // REACHED
//! # Ok::<(), arnie_trajectory::TrajectoryError>(())
//! ```
#![deny(missing_docs)]

pub mod config;
pub mod detour;
pub mod error;
pub mod executor;
pub mod goal;
pub mod legacy;
pub mod minjerk;
pub mod obstructions;
pub mod outcome;
#[cfg(feature = "ros")]
pub mod ros;
pub mod spline;
pub mod units;

pub use config::{RawTrajectoryConfig, TrajectoryConfig};
pub use detour::{
    plan_motion, plan_motion_with, plan_path, plan_path_with, Approach, DetourConfig, DetourMotion,
    DetourPath, FixedBox, PlanOptions, RawDetourConfig, Scene, Smoothing, Workspace,
};
pub use error::{MotionBlocked, TrajectoryError};
pub use executor::{Action, DetourPlanning, Executor, Feedback, Step, Stop};
pub use goal::{validate_goal, AcceptedGoal, ArmSample};
pub use legacy::{LegacyTargets, LegacyVerdict};
pub use obstructions::{
    Contact, ContactModel, KnownObstruction, ObstructionConfig, ObstructionMemory, PassEffect,
    Passed, Recorded, Region,
};
pub use outcome::{Approached, End, Obstruction, Outcome, Phase};
pub use spline::{MotionState, SmoothPath};
