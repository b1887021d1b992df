//! `sim`: the simulated xPC Targets of the ARNIE arm (arm with encoders, eyes seeing
//! flames) speaking UDP like the real hardware (see README.md). The glue lives in
//! [`arnie_sim::ros`].
use arnie_sim::ros::{setup, NODE};

fn main() {
    node_glue::main_with(NODE, setup)
}
