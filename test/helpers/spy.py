"""A standalone rclpy process for test/system/test_two_hosts_tls.py, run in a network
namespace with a host's (or an intruder's) environment:

    python spy.py SECONDS [--publish] [--marker TEXT]

It subscribes to the robot's topics (types known in advance: an intruder discovers
nothing) and counts what arrives (on /rosout and /parameter_events, what the robot's
nodes sent), optionally publishes on /arm/target and /cmd_vel at
20 Hz (frame_id / angular.z carry the marker), and prints one JSON line at the end:
{"received": {topic: n}, "marked": {topic: n}, "nodes": [...], "published": n}.
"marked" counts messages carrying `--count-marker` (the robot's-side check).
"""
import argparse
import json
import os
import time

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, Twist
from rcl_interfaces.msg import Log, ParameterEvent
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

from arnie_interfaces.msg import BrainState, Coordinates, SimTruth

BEST_EFFORT = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)
# /rosout and /parameter_events are everyone's: only the robot's nodes' messages count.
ROBOT_NODES = {"sim", "spine_bridge", "trajectory_server", "brain"}
TOPICS = {
    "/arm/position": PointStamped,
    "/arm/command": PointStamped,
    "/arm/target": PointStamped,
    "/cmd_vel": Twist,
    "/eyes/observations": Coordinates,
    "/sim/truth": SimTruth,
    "/brain/state": BrainState,
    "/diagnostics": DiagnosticArray,
    "/rosout": Log,
    "/parameter_events": ParameterEvent,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seconds", type=float)
    ap.add_argument("--publish", action="store_true", help="publish on /arm/target and /cmd_vel")
    ap.add_argument("--marker", default="intruder", help="frame_id of what it publishes")
    ap.add_argument("--count-marker", default="intruder", help="count received messages carrying it")
    ap.add_argument("--control", action="store_true", help="publish /cmd_vel only (a trusted control)")
    args = ap.parse_args()
    rclpy.init()
    node = rclpy.create_node(f"spy_{args.marker}")
    received = {t: 0 for t in TOPICS}
    marked = {"/arm/target": 0, "/cmd_vel": 0}

    def on(topic):
        def cb(msg):
            if topic == "/rosout" and msg.name.split(".")[-1] not in ROBOT_NODES:
                return
            if topic == "/parameter_events" and msg.node.rsplit("/", 1)[-1] not in ROBOT_NODES:
                return
            received[topic] += 1
            if topic == "/arm/target" and msg.header.frame_id == args.count_marker:
                marked[topic] += 1
            if topic == "/cmd_vel" and msg.angular.x == 4242.0 and msg.linear.x == hash_marker(args.count_marker):
                marked[topic] += 1
        return cb

    for topic, t in TOPICS.items():
        qos = qos_profile_sensor_data if topic == "/arm/position" else BEST_EFFORT
        node.create_subscription(t, topic, on(topic), qos)
    target = node.create_publisher(PointStamped, "/arm/target", 10) if args.publish else None
    cmd_vel = node.create_publisher(Twist, "/cmd_vel", 10) if (args.publish or args.control) else None
    published = 0
    nodes = set()
    end = time.monotonic() + args.seconds
    next_pub = time.monotonic()
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.02)
        if time.monotonic() >= next_pub:
            next_pub += 0.05
            if target:
                p = PointStamped()
                p.header.frame_id = args.marker
                p.point.x, p.point.y, p.point.z = 0.3, 0.0, 0.2
                target.publish(p)
                published += 1
            if cmd_vel:
                v = Twist()
                v.linear.x = hash_marker(args.marker)
                v.angular.x = 4242.0
                cmd_vel.publish(v)
                published += 1
            nodes.update(f"{ns.rstrip('/')}/{n}" for n, ns in node.get_node_names_and_namespaces())
    print(json.dumps({"received": received, "marked": marked, "nodes": sorted(nodes), "published": published}),
          flush=True)
    # No teardown: Fast DDS can take long to close TCP channels whose TLS handshakes keep
    # failing (it sleeps 5 s per failure in its I/O thread); the report is out.
    os._exit(0)


def hash_marker(text):
    """A number standing for the marker in a Twist (no string field there)."""
    return float(sum(text.encode()) % 1000)


if __name__ == "__main__":
    main()
