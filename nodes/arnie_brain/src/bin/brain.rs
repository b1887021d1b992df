//! `brain`: the ROS 2 node around the [`arnie_brain`] library: runs instructions.json
//! tasks, `RunTask` action server on `/brain/run_task` (see README.md). The glue lives in
//! [`arnie_brain::ros`].

fn main() {
    arnie_brain::ros::run()
}
