//! The strategy node's library: sequences of asynchronous steps, tasks as data, and
//! points-per-distance task selection (the RobotikUTT robot's match logic, on tokio).
//!
//! Layout:
//! - [`sequence`]: [`Sequence`] of [`Step`]s (futures, delays, nested sequences,
//!   parallel groups), each with a timeout and an [`ErrorPolicy`]; `run` in place or
//!   `start` a [`Running`] that `stop` cancels; the event order is documented there.
//! - [`stop`]: [`StopSource`] / [`StopToken`], the cancellation every run takes.
//! - [`event`]: [`Event`] (1:1 with `StrategyEvent.msg`), [`TaskScore`]
//!   (`TaskScore.msg`), and the [`EventSink`] channel.
//! - [`task`]: strategy files, raw JSON then checked into a [`Strategy`] (errors name
//!   the field); positions in metres, frame `world`.
//! - [`condition`]: `wait_for` conditions on a topic's messages (as JSON).
//! - [`robot`]: the [`Robot`] trait the node implements with ROS clients; [`Driver`]
//!   turns task steps into sequence steps and computes costs.
//! - [`mod@select`]: the pure selection rule ([`score`], [`select()`]) and the pure
//!   bookkeeping of a match ([`MatchState`]).
//! - [`runner`]: [`Runner`] runs a match: default order, re-scoring after trouble,
//!   drops, deadlines, replan requests, the match timer, the end-of-match task; returns
//!   a [`Report`] (the `RunStrategy` result).
//! - [`error`]: the one [`Error`] enum, plus [`MoveOutcome`] and [`PlanCode`] (1:1 with
//!   `MoveTo.action` and `PlanPath.srv` constants).
//! - [`progress`]: the current task and step of a run, from its events (the node's
//!   `RunStrategy` feedback).
//! - [`clock`]: [`MatchClock`], the match's phase and clock, started by the start cord
//!   (the node publishes it on `match/state`).
//! - `ros` (feature `ros`, the only module that uses r2r): the [`Robot`] over ROS
//!   clients and the `/strategy/run` action server; `src/bin/strategy.rs` wires them.
//!
//! Time: the selection rule and the match bookkeeping take time as an argument; the
//! sequence and runner are tokio futures using tokio's clock, so tests pause it
//! (`#[tokio::test(start_paused = true)]`) and a 90 s match runs in no time, exactly.
//!
//! Improvements on the original scheduler: `stop` cancels the step in flight (its
//! future is dropped, which cancels the ROS goal in the glue); a sequence can be
//! restarted; per-step timeouts; per-step error policies; parallel groups with a
//! success quorum; every run ends with exactly one terminal event.

#![deny(missing_docs)]

pub mod clock;
pub mod condition;
pub mod error;
pub mod event;
pub mod progress;
pub mod robot;
#[cfg(feature = "ros")]
pub mod ros;
pub mod runner;
pub mod select;
pub mod sequence;
pub mod stop;
pub mod task;

pub use clock::{Cord, CordEvent, MatchClock, Phase as MatchPhase};
pub use error::{Error, MoveOutcome, PlanCode};
pub use event::{Event, EventKind, EventSink, TaskScore};
pub use robot::{Driver, PlannedPath, Robot};
pub use runner::{EndReason, ReplanHandle, Report, Runner};
pub use select::{score, select, MatchState, Pick};
pub use sequence::{ErrorPolicy, Outcome, Running, Sequence, Step};
pub use stop::{StopSource, StopToken};
pub use task::{Point, Strategy};
