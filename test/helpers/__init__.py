"""Helpers shared by the real-graph tests (pytest; rclpy is the independent client).

Tests import from here, never from one another:
- `graph`: paths (ROOT, REFERENCE, binaries), one ROS domain per test, `Graph` (node
  processes, the rclpy client, waiting on the graph), the ros2 CLI;
- `ports`: free UDP/TCP ports on loopback and the simulator's spine config on them;
- `diagnostics`: one way to read a status or a counter from /diagnostics;
- `qos`: the profiles the tests subscribe and publish with (reliable, latched);
- `launch`: `ros2 launch` / `cargo xtask launch` command lines;
- `stack`: the arm's whole stack (sim, spine, trajectory server, brain) as the launch
  file starts it;
- `scenes`: the flame task on generated scenes (one box across one of its moves,
  `flame_scene`), several stacks side by side;
- `brain`: scripted arm and eyes peers for a lone brain, and its RunTask goal;
- `trajectory`: a simulated arm and the trajectory server's test rig;
- `comms`: comms_bridge against the simulated device, and its client side;
- `bags`: bags written with rosbags, read back, played and recorded;
- `foxglove`: a minimal Foxglove WebSocket client;
- `netns`: network namespaces on a veth LAN (test/system/test_two_hosts.py).
The fixtures (`graph`, the session's clean-up) are in test/conftest.py.
"""
