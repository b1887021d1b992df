"""The arm's robot description and state on a real graph (arnie_state, with the spine),
rclpy as the client.

- a subscriber that joins late gets `robot_description` (the URDF file's text,
  transient local);
- a simulink position packet (the arm's device frame, mm) → spine_bridge → /arm/position
  (world, m) → arnie_state → /joint_states holds the arm-frame coordinates in metres;
- over 2 s of /tf + /tf_static (a late subscriber to /tf_static) every link of the URDF
  has a path to `world`, and the tool frame's origin composed in this file (numpy, from
  the transforms as published) equals /arm/position within 1 µm;
- a URDF that does not parse (a file, or the robot_description parameter): exit code 2
  naming the file (or the parameter) and the line;
- a NaN position is counted on /diagnostics and never published; the next good one is.
"""
import json
import math
import socket
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers.ports import spine_sim_config
from geometry_msgs.msg import PointStamped
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

URDF = ROOT / "nodes" / "arnie_bringup" / "urdf" / "arnie_arm.urdf"
TOOL = "taper_holder"
LATCHED = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
# tf2's listener QoS.
TF_STATIC = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.VOLATILE)


# ------------------------------------------------------------------ own maths
def urdf_links(text):
    robot = ET.fromstring(text)
    return [link.get("name") for link in robot.findall("link")]


def matrix(t):
    """4x4 of a geometry_msgs/Transform (the child's pose in the parent)."""
    q = t.rotation
    x, y, z, w = q.x, q.y, q.z, q.w
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    m = np.eye(4)
    m[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    m[:3, 3] = [t.translation.x, t.translation.y, t.translation.z]
    return m


def in_world(edges, frame):
    """The pose of `frame` in `world` composed along its parents, or None (no path)."""
    m = np.eye(4)
    seen = set()
    while frame != "world":
        if frame in seen or frame not in edges:
            return None
        seen.add(frame)
        parent, t = edges[frame]
        m = matrix(t) @ m
        frame = parent
    return m


# ------------------------------------------------------------------ the graph
def simulink(*values):
    return struct.pack(f"<{len(values)}d", *values)


def state_counter(diagnostics, key):
    """A counter of the latest `/arnie_state: state` status (-1 before the first)."""
    return diagnostics.counter("/state_publisher: state", key, -1)


@pytest.fixture
def stack(graph, tmp_path):
    """spine_bridge on the simulator's config (free ports) and arnie_state on the URDF."""
    config = spine_sim_config(tmp_path / "spine.json")
    arm_port = json.loads(config.read_text())["interfaces"]["input"]["arm"]["port"]
    graph.start("spine_bridge", params={"config_file": str(config), "loopback": True})
    graph.start("state_publisher", params={"robot_description_file": str(URDF)})
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    yield {"arm_port": arm_port, "sender": sender}
    sender.close()


def test_late_subscriber_gets_the_description_and_the_tree_reaches_world(graph, stack):
    text = URDF.read_text()
    graph.wait_for_nodes(["/state_publisher", "/spine_bridge"])
    graph.wait_for_publisher("/robot_description")
    graph.settle_discovery()
    descriptions = graph.collect(String, "/robot_description", LATCHED)
    graph.spin_until(lambda: descriptions, what="robot_description (transient local) for a late subscriber")
    assert descriptions[0].data == text

    # A position from the arm (its device frame, mm) until a joint state comes back.
    device_mm = (120.0, -40.0, 75.0)
    positions = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    joints = graph.collect(JointState, "/joint_states", 10)
    graph.wait_for_subscriber("/joint_states")

    def send():
        stack["sender"].sendto(simulink(*device_mm), ("127.0.0.1", stack["arm_port"]))

    graph.spin_until(lambda: send() or (joints and positions), what="a joint state from a simulink packet")
    # The joints are the arm frame's coordinates, in metres.
    assert list(joints[-1].name) == ["arm_x", "arm_y", "arm_z"]
    assert np.allclose(joints[-1].position, [v / 1000.0 for v in device_mm], atol=1e-12, rtol=0), joints[-1]

    # 2 s of /tf and /tf_static (this subscriber to /tf_static joins late).
    statics = graph.collect(TFMessage, "/tf_static", TF_STATIC)
    dynamic = graph.collect(TFMessage, "/tf", TF)
    for _ in range(100):
        send()
        graph.spin_for(0.02)
    edges = {}
    for msg in statics + dynamic:
        for t in msg.transforms:
            edges[t.child_frame_id] = (t.header.frame_id, t.transform)
    # Static: the spine's world -> arm (and eyes), the URDF's fixed joint.
    static_children = {t.child_frame_id for m in statics for t in m.transforms}
    assert {"arm", "eyes", TOOL} <= static_children, static_children
    dynamic_children = {t.child_frame_id for m in dynamic for t in m.transforms}
    assert dynamic_children == {"arm_x_carriage", "arm_y_carriage", "arm_z_carriage"}
    for link in urdf_links(text):
        assert in_world(edges, link) is not None, f"link {link} has no path to world: {sorted(edges)}"

    # The tool's origin in world is /arm/position (every packet sent the same point).
    tool = in_world(edges, TOOL)[:3, 3]
    p = positions[-1]
    assert p.header.frame_id == "world"
    measured = np.array([p.point.x, p.point.y, p.point.z])
    assert np.max(np.abs(tool - measured)) < 1e-6, (tool, measured)
    # And that point is not trivial: the arm frame is turned 90° about z in world.
    assert np.allclose(measured, [0.04, 0.12, 0.075], atol=1e-12), measured


BROKEN = """<?xml version="1.0"?>
<robot name="broken">
  <link name="arm"/>
  <link name="tool">
</robot>
"""


def test_a_urdf_that_does_not_parse_exits_2_naming_the_file_and_line(graph, tmp_path):
    path = tmp_path / "broken.urdf"
    path.write_text(BROKEN)
    graph.start_refused("state_publisher", params={"robot_description_file": str(path)},
                        expect=[f"robot_description_file {path}", "line 5"])
    # A link a joint names that does not exist: the joint's line.
    bad_link = URDF.read_text().replace('<child link="arm_y_carriage"/>', '<child link="arm_q"/>')
    line = next(i for i, l in enumerate(bad_link.splitlines(), 1) if "arm_q" in l)
    path = tmp_path / "bad_link.urdf"
    path.write_text(bad_link)
    graph.start_refused("state_publisher", params={"robot_description_file": str(path)},
                        expect=[str(path), f"line {line}", "child link 'arm_q' is not defined"])
    # robot_state_publisher's way: the text in the robot_description parameter.
    params = tmp_path / "params.yaml"
    params.write_text("/**:\n  ros__parameters:\n    robot_description: " + json.dumps(BROKEN) + "\n")
    graph.start_refused("state_publisher", params_file=params, expect=["parameter robot_description", "line 5"])


def test_the_description_parameter_is_served_as_robot_state_publisher_does(graph, tmp_path):
    text = URDF.read_text()
    params = tmp_path / "params.yaml"
    params.write_text("/**:\n  ros__parameters:\n    robot_description: " + json.dumps(text) + "\n")
    graph.start("state_publisher", params_file=params)
    graph.wait_for_publisher("/robot_description")
    graph.settle_discovery()
    got = graph.collect(String, "/robot_description", LATCHED)
    graph.spin_until(lambda: got, what="robot_description")
    assert got[0].data == text


def test_a_nan_position_is_counted_and_not_published(graph):
    graph.start("state_publisher", params={"robot_description_file": str(URDF)})
    diags = Diagnostics(graph)
    joints = graph.collect(JointState, "/joint_states", 10)
    tf = graph.collect(TFMessage, "/tf", TF)
    pub = graph.node.create_publisher(PointStamped, "/arm/position", qos_profile_sensor_data)
    graph.wait_for_subscriber("/arm/position")
    graph.wait_for_subscriber("/joint_states")
    graph.wait_for_subscriber("/tf")

    def point(x, y, z, frame):
        m = PointStamped()
        m.header.frame_id = frame
        m.point.x, m.point.y, m.point.z = x, y, z
        return m

    graph.spin_until(lambda: pub.publish(point(0.1, float("nan"), 0.2, "arm")) or state_counter(diags, "positions_not_finite") >= 1,
                     what="positions_not_finite >= 1 on /diagnostics")
    # In the root link's frame (no mount needed): the next good position is published.
    graph.spin_until(lambda: pub.publish(point(0.01, 0.02, 0.03, "arm")) or (joints and tf),
                     what="a joint state after the NaN")
    # A frame the node cannot place: dropped and counted too.
    graph.spin_until(lambda: pub.publish(point(0.5, 0.5, 0.5, "elsewhere")) or state_counter(diags, "positions_unknown_frame") >= 1,
                     what="positions_unknown_frame >= 1 on /diagnostics")
    graph.spin_for(0.5)
    for m in joints:
        assert np.allclose(m.position, [0.01, 0.02, 0.03], atol=1e-12, rtol=0), m
    for m in tf:
        for t in m.transforms:
            v = t.transform.translation
            assert all(math.isfinite(c) for c in (v.x, v.y, v.z)), t
            assert abs(v.x) < 0.1 and abs(v.y) < 0.1 and abs(v.z) < 0.1, t
    assert state_counter(diags, "positions_not_finite") >= 1
    assert state_counter(diags, "joint_states_published") >= 1
