//! `lidar`: the ROS 2 node around the [`arnie_lidar`] library: an LD06 on a serial port to
//! `scan` (see README.md). The glue lives in [`arnie_lidar::ros`].

fn main() {
    arnie_lidar::ros::run()
}
