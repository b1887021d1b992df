//! `comms_bridge`: the robot's serial / CAN link as a ROS 2 node (`/comms/rx`,
//! `/comms/tx`, `/comms/send`, `/diagnostics`; see README.md). The glue lives in
//! [`arnie_comms::ros`], the behaviour in the library.

fn main() {
    arnie_comms::ros::run()
}
