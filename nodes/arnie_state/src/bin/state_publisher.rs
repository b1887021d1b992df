//! `arnie_state`: the ROS 2 node around the [`arnie_state`] library: the arm's
//! `robot_description`, `/joint_states`, `/tf` and `/tf_static` (see README.md). The glue
//! lives in [`arnie_state::ros`].

fn main() {
    arnie_state::ros::run()
}
