//! `trajectory_server`: the ROS 2 node around the [`trajectory_server`] library: `MoveTo`
//! action server on `/trajectory/move_to` (see README.md). The glue lives in
//! [`trajectory_server::ros`].
use trajectory_server::ros::{setup, NODE};

fn main() {
    arnie_ros::main_with(NODE, setup)
}
