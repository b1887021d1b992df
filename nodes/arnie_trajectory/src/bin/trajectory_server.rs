//! `trajectory_server`: the ROS 2 node around the [`arnie_trajectory`] library: `MoveTo`
//! action server on `/trajectory/move_to` (see README.md). The glue lives in
//! [`arnie_trajectory::ros`].
use arnie_trajectory::ros::{setup, NODE};

fn main() {
    node_glue::main_with(NODE, setup)
}
