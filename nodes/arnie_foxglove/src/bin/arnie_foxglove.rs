//! `arnie_foxglove`: serves the ROS 2 graph to Foxglove over WebSocket
//! (`ws://127.0.0.1:8765` by default). All behaviour is in the library and its `ros` module.

fn main() {
    std::process::exit(arnie_foxglove::ros::main())
}
