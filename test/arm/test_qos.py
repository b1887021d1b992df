"""QoS on a real graph (issue 18: a best-effort publisher never matches a reliable
subscriber, and DDS says nothing).

- the spine chooses each topic's QoS by its kind (measurements best effort, commands
  such as a legacy input mapped to /arm/target reliable) or as the config's `qos` says;
- the trajectory server's /arm/target takes legacy targets from best-effort and reliable
  publishers alike, and neither is reported as incompatible;
- a publisher whose QoS a node's subscription cannot match is logged once, with both
  profiles, and counted in the node's /diagnostics (`<node>: qos`,
  `incompatible_qos_peers`); a compatible one is not.
"""
import json

import pytest

from geometry_msgs.msg import PointStamped
from rclpy.qos import QoSProfile, ReliabilityPolicy

from helpers.diagnostics import Diagnostics
from helpers.ports import free_udp_ports
from helpers import qos

RELIABLE = qos.reliable(10)
BEST_EFFORT = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)
IDENTITY = "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1"


def start_spine(graph, tmp_path):
    arm_in, target_in, custom_in, arm_out, custom_out = free_udp_ports(5)
    config = {
        "host": "127.0.0.1",
        "transforms": {"default": IDENTITY},
        "interfaces": {
            "input": {
                "arm": {"port": arm_in, "format": "simulink", "topic": "arm/position", "kind": "point"},
                "brain": {"port": target_in, "format": "csv", "topic": "arm/target", "kind": "point"},
                "custom": {"port": custom_in, "format": "csv", "topic": "qos_test/latched", "qos": "latched"},
            },
            "output": {
                "arm": {"host": "127.0.0.1", "port": arm_out, "format": "simulink", "topic": "arm/command",
                        "kind": "point"},
                "custom": {"host": "127.0.0.1", "port": custom_out, "format": "csv", "topic": "qos_test/any",
                           "qos": "sensor"},
            },
        },
        "connections": [],
    }
    path = tmp_path / "spine.json"
    path.write_text(json.dumps(config))
    return graph.start("spine_bridge", params={"config_file": str(path), "diagnostics_period_ms": 100})


def endpoint_qos(graph, topic, publishers=True):
    """The QoS of the (single) spine endpoint on `topic`, as the graph reports it."""
    def infos():
        get = graph.node.get_publishers_info_by_topic if publishers else graph.node.get_subscriptions_info_by_topic
        return [i for i in get(topic) if i.node_name == "spine_bridge"]
    graph.spin_until(lambda: infos(), what=f"the spine's endpoint on {topic}")
    return infos()[0].qos_profile


def test_spine_topic_qos_by_kind_or_as_configured(graph, tmp_path):
    start_spine(graph, tmp_path)
    assert endpoint_qos(graph, "/arm/position").reliability == ReliabilityPolicy.BEST_EFFORT  # a measurement
    assert endpoint_qos(graph, "/arm/target").reliability == ReliabilityPolicy.RELIABLE  # a command (default)
    latched = endpoint_qos(graph, "/qos_test/latched")
    assert latched.reliability == ReliabilityPolicy.RELIABLE and latched.durability.name == "TRANSIENT_LOCAL"
    assert endpoint_qos(graph, "/arm/command", publishers=False).reliability == ReliabilityPolicy.RELIABLE
    assert endpoint_qos(graph, "/qos_test/any", publishers=False).reliability == ReliabilityPolicy.BEST_EFFORT


def test_an_incompatible_publisher_is_logged_and_counted(graph, tmp_path):
    spine = start_spine(graph, tmp_path)
    diag = Diagnostics(graph, 100)
    graph.spin_until(lambda: diag.counter("/spine_bridge: qos", "watched_subscriptions", -1) == 2,
                     what="the spine's qos status with its two subscriptions")
    assert diag.counter("/spine_bridge: qos", "incompatible_qos_peers", -1) == 0
    # A compatible publisher first, matched (so it is on the graph for every later check) ...
    good = graph.node.create_publisher(PointStamped, "/arm/command", RELIABLE)
    graph.spin_until(lambda: good.get_subscription_count() > 0, what="the reliable publisher matched")
    # ... then one the spine's reliable /arm/command subscription cannot match.
    bad = graph.node.create_publisher(PointStamped, "/arm/command", BEST_EFFORT)
    graph.spin_until(lambda: diag.counter("/spine_bridge: qos", "incompatible_qos_peers", -1) >= 1,
                     what="incompatible_qos_peers counted on /diagnostics")
    assert diag.counter("/spine_bridge: qos", "incompatible_qos_peers", -1) == 1, diag.values("/spine_bridge: qos")
    assert bad.get_subscription_count() == 0  # DDS really did not match them
    graph.spin_until(lambda: "incompatible QoS on /arm/command" in graph.output(spine), what="the log line")
    lines = [line for line in graph.output(spine).splitlines() if "incompatible QoS on" in line]
    assert len(lines) == 1, lines  # logged once, not at every check
    line = lines[0]
    assert "publisher /arnie_test_client" in line, line
    assert "offers [best effort, volatile]" in line, line
    assert "requests [reliable, volatile, keep last 10]" in line, line
    assert "reliability: offered best effort, requested reliable" in line, line
    assert "WARN" in line, line
    assert graph.stop(spine) == 0


@pytest.mark.parametrize("qos", [BEST_EFFORT, RELIABLE], ids=["best_effort", "reliable"])
def test_legacy_targets_arrive_from_best_effort_and_reliable_publishers(graph, qos):
    graph.start("trajectory_server")
    diag = Diagnostics(graph, 100)
    # /arm/position, /arm/target, /clicked_point, /tf, /tf_static.
    graph.spin_until(lambda: diag.counter("/trajectory_server: qos", "watched_subscriptions", -1) == 5,
                     what="the trajectory server's qos status with its five subscriptions")
    pub = graph.node.create_publisher(PointStamped, "/arm/target", qos)
    graph.spin_until(lambda: pub.get_subscription_count() > 0, what="/arm/target matched")
    msg = PointStamped()
    msg.header.frame_id = "world"
    msg.point.x = 0.01

    def arrived():
        if diag.counter("/trajectory_server: move_to", "legacy_targets", -1) >= 1:
            return True
        pub.publish(msg)  # best effort may lose one; every arrival is counted
        graph.spin_for(0.1)
        return False

    graph.spin_until(arrived, what="the legacy target counted by the trajectory server")
    # Without an arm position the target is refused, but it arrived: that is the point.
    assert diag.counter("/trajectory_server: move_to", "legacy_rejected", -1) >= 1
    assert diag.counter("/trajectory_server: qos", "incompatible_qos_peers", -1) == 0, diag.values("/trajectory_server: qos")
