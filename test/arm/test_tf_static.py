"""spine_bridge's static frames on a real graph, rclpy as the client.

- tf2_msgs imports (built from msg/tf2_msgs where the ROS install lacks it);
- the ORIGINAL Spine config (loopback, port offset): a subscriber that joins late (after
  the node is up and discovery done) gets ONE tf2_msgs/TFMessage on /tf_static (reliable,
  transient local) holding world -> <interface> for every interface with a rigid transform
  of its own, translation in metres and rotation as a unit quaternion, checked against
  this file's own maths on the config's matrices; the non-rigid ones (kinect: pixels to
  millimetres) are absent and named in the node's log, once each;
- the project's params/spine_sim.json: arm and eyes.
"""
import json
import math

import numpy as np
from helpers.graph import REFERENCE, ROOT
from helpers.ports import free_port_offset
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from tf2_msgs.msg import TFMessage

ORIGINAL = REFERENCE / "arnie" / "spine-config.json"
SIM = ROOT / "params" / "spine_sim.json"
TOLERANCE = 1e-4  # max |R'R - I| (arnie_spine::frames::TOLERANCE)


def test_tf2_msgs_imports():
    from tf2_msgs.action import LookupTransform
    from tf2_msgs.msg import TF2Error
    from tf2_msgs.srv import FrameGraph

    assert TF2Error.TRANSFORM_ERROR == 6
    assert hasattr(FrameGraph.Response(), "frame_yaml")
    assert hasattr(LookupTransform.Goal(), "fixed_frame")
    assert TFMessage().transforms == []


# ------------------------------------------------------------------ own maths
def matrix(text):
    return np.array([[float(v) for v in row.split()] for row in text.split(";")])


def why_not_rigid(m):
    """None for a rigid motion, else a word for why not (independent of the node's code)."""
    if not np.all(np.isfinite(m)):
        return "not finite"
    if list(m[3]) != [0.0, 0.0, 0.0, 1.0]:
        return "projective"
    r = m[:3, :3]
    if abs(np.linalg.det(r)) < 1e-12:
        return "singular"
    if np.max(np.abs(r.T @ r - np.eye(3))) > TOLERANCE:
        return "not orthonormal"
    if np.linalg.det(r) < 0:
        return "reflection"
    return None


def quaternion(r):
    """(x, y, z, w) of a rotation matrix (the largest-diagonal branch), w >= 0."""
    t = np.trace(r)
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(r)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = [0.0] * 4
        q[i] = s / 4
        q[j] = (r[j, i] + r[i, j]) / s
        q[k] = (r[k, i] + r[i, k]) / s
        q[3] = (r[k, j] - r[j, k]) / s
    q = np.array(q) / np.linalg.norm(q)
    return q if q[3] >= 0 else -q


def rotation_of(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def expected_frames(config):
    """{name: 4x4} of the interfaces with a rigid transform of their own, and
    {name: why} of those without."""
    names = set(config["interfaces"]["input"]) | set(config["interfaces"]["output"])
    rigid, skipped = {}, {}
    for name, text in config["transforms"].items():
        if name == "default" or name not in names:
            continue
        m = matrix(text)
        why = why_not_rigid(m)
        if why is None:
            rigid[name] = m
        else:
            skipped[name] = why
    return rigid, skipped


# ------------------------------------------------------------------ graph helpers
def pick_offset(config):
    ports = {i["port"] for i in config["interfaces"]["input"].values()}
    ports |= {o["port"] for o in config["interfaces"]["output"].values()}
    return free_port_offset(ports)


def late_static_frames(graph, config_file):
    """Starts spine_bridge on `config_file` (loopback), waits until it is up and
    discovered, THEN subscribes to /tf_static as tf2's listener does; returns the
    messages received and the node's process."""
    config = json.loads(config_file.read_text())
    proc = graph.start("spine_bridge", params={"config_file": str(config_file), "loopback": True,
                                               "port_offset": pick_offset(config)})
    graph.wait_for_nodes({"/spine_bridge"})
    graph.wait_for_publisher("/tf_static")
    graph.settle_discovery()
    qos = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
    got = graph.collect(TFMessage, "/tf_static", qos)
    graph.spin_until(lambda: got, timeout=20.0, what="the static frames on /tf_static (late subscriber)")
    graph.spin_for(1.0)  # nothing more comes: one message holds every frame
    return config, got, proc


def check_frames(msg, rigid):
    by_child = {t.child_frame_id: t for t in msg.transforms}
    assert len(by_child) == len(msg.transforms), "a frame published twice"
    assert set(by_child) == set(rigid), sorted(by_child)
    for name, m in rigid.items():
        t = by_child[name]
        assert t.header.frame_id == "world", name
        assert t.header.stamp.sec > 0, name
        tr = t.transform.translation
        np.testing.assert_allclose([tr.x, tr.y, tr.z], m[:3, 3] * 0.001, atol=1e-12, err_msg=name)
        rot = t.transform.rotation
        q = np.array([rot.x, rot.y, rot.z, rot.w])
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12, name
        assert rot.w >= 0.0, name
        np.testing.assert_allclose(q, quaternion(m[:3, :3]), atol=1e-12, err_msg=name)
        # The transform maps the device's points exactly as the config does (in metres).
        for p in ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [120.0, -35.5, 7.0]):
            world_mm = m @ np.array([*p, 1.0])
            world_m = rotation_of(q) @ (np.array(p) * 0.001) + np.array([tr.x, tr.y, tr.z])
            np.testing.assert_allclose(world_m, world_mm[:3] * 0.001, atol=1e-12, err_msg=name)


def test_original_config_static_frames_for_a_late_subscriber(graph):
    config, got, proc = late_static_frames(graph, ORIGINAL)
    rigid, skipped = expected_frames(config)
    # Own maths agrees with the README: arm, arm-logger, head published; kinect,
    # kinect-logger, eyes scale.
    assert sorted(rigid) == ["arm", "arm-logger", "head"]
    assert sorted(skipped) == ["eyes", "kinect", "kinect-logger"]
    assert set(skipped.values()) == {"not orthonormal"}
    assert len(got) == 1, got
    check_frames(got[0], rigid)
    h = math.sqrt(0.5)
    arm = next(t for t in got[0].transforms if t.child_frame_id == "arm").transform.rotation
    np.testing.assert_allclose([arm.x, arm.y, arm.z, arm.w], [0, 0, h, h], atol=1e-15)  # +90 deg about z
    log = graph.output(proc)
    for name in skipped:
        lines = [ln for ln in log.splitlines() if f"transforms.{name}: not published on /tf_static" in ln]
        assert len(lines) == 1, f"{name}: {lines}\n{log}"
        assert "WARN" in lines[0] and "not orthonormal" in lines[0], lines[0]
    for name in rigid:
        assert f"transforms.{name}: not published" not in log, log
    assert "panicked" not in log


def test_project_config_publishes_arm_and_eyes(graph):
    config, got, proc = late_static_frames(graph, SIM)
    rigid, skipped = expected_frames(config)
    assert sorted(rigid) == ["arm", "eyes"] and not skipped
    assert len(got) == 1, got
    check_frames(got[0], rigid)
    assert "not published on /tf_static" not in graph.output(proc)
