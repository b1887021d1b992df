//! Sequences of asynchronous steps and points-per-distance task selection.
