//! `trajectory_server`: the ROS 2 node around the [`arnie_trajectory`] library: `MoveTo`
//! action server on `/trajectory/move_to` (see README.md). The glue lives in
//! [`arnie_trajectory::ros`].

fn main() {
    arnie_trajectory::ros::run()
}
