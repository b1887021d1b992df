//! Sequences of asynchronous steps and points-per-distance task selection.
pub mod condition;
pub mod error;
pub mod event;
pub mod robot;
pub mod runner;
pub mod select;
pub mod sequence;
pub mod stop;
pub mod task;
