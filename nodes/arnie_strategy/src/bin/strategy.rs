//! `strategy`: the ROS 2 node around the [`arnie_strategy`] library: runs strategy files on
//! the robot, `RunStrategy` action server on `/strategy/run` (see README.md). The glue
//! lives in [`arnie_strategy::ros`].

fn main() {
    arnie_strategy::ros::run()
}
