//! `arnie_foxglove`: serves the ROS 2 graph to Foxglove over WebSocket
//! (`ws://127.0.0.1:8765` by default). The glue lives in [`arnie_foxglove::ros`].

fn main() {
    arnie_foxglove::ros::run()
}
