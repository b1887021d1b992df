"""The rviz configs shipped in arnie_bringup (rviz/arnie.rviz, rviz/eurobot.rviz) against
the running stack (rviz itself is not on this machine: the configs are parsed as YAML).

- each config's fixed frame, and the launch file's `rviz:=true` command names a config
  that exists where `$(find-pkg-share arnie_bringup)` points (the dev tree or an install);
- every tool that publishes (Publish Point, 2D Pose Estimate, 2D Goal Pose) has a
  subscriber in the launched stack;
- every display that names a topic: the stack started by its launch file publishes that
  topic with the display's message type, and with the display's reliability and
  durability (what `get_publishers_info_by_topic` reports for every publisher), so the
  display both matches and gets what is published (a reliable display on the best-effort
  /arm/position would get nothing; a volatile one on a latched topic would miss the
  last value).
"""
import importlib
import re
import xml.etree.ElementTree as ET

import pytest
import yaml
from ament_index_python.packages import get_package_share_directory
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from helpers.graph import ROOT
from helpers.ports import free_udp_ports, spine_sim_config
from helpers.launch import STARTUP_S, any_launcher, launcher_cmd

RVIZ = ROOT / "nodes" / "arnie_bringup" / "rviz"
LAUNCH = ROOT / "launch"

# rviz display class -> the message type it subscribes to.
TYPES = {
    "rviz_default_plugins/PointStamped": "geometry_msgs/msg/PointStamped",
    "rviz_default_plugins/Path": "nav_msgs/msg/Path",
    "rviz_default_plugins/MarkerArray": "visualization_msgs/msg/MarkerArray",
    "rviz_default_plugins/Marker": "visualization_msgs/msg/Marker",
    "rviz_default_plugins/Map": "nav_msgs/msg/OccupancyGrid",
    "rviz_default_plugins/Odometry": "nav_msgs/msg/Odometry",
    "rviz_default_plugins/Pose": "geometry_msgs/msg/PoseStamped",
    "rviz_default_plugins/RobotModel": "std_msgs/msg/String",
    "rviz_default_plugins/Range": "sensor_msgs/msg/Range",
    "rviz_default_plugins/LaserScan": "sensor_msgs/msg/LaserScan",
}
# The key under which a display names its topic (RobotModel: "Description Topic").
TOPIC_KEYS = ("Topic", "Description Topic")
RELIABILITY = {"Reliable": ReliabilityPolicy.RELIABLE, "Best Effort": ReliabilityPolicy.BEST_EFFORT}
DURABILITY = {"Volatile": DurabilityPolicy.VOLATILE, "Transient Local": DurabilityPolicy.TRANSIENT_LOCAL}
# Latched topics that carry data from the start: their frame must be the fixed frame (rviz
# draws nothing in another frame without a transform, and there is no tf here).
FRAME_CHECKED = {"/sim/markers", "/map"}


def config(name):
    return yaml.safe_load((RVIZ / name).read_text())


def topic_of(display):
    """A display's topic settings (Value and QoS), or None."""
    for key in TOPIC_KEYS:
        if isinstance(display.get(key), dict):
            return display[key]
    return None


def topic_displays(cfg):
    """Every display with a topic, groups included."""
    out = []

    def walk(displays):
        for d in displays or []:
            if "Displays" in d:
                walk(d["Displays"])
            if topic_of(d) is not None:
                out.append(d)

    walk(cfg["Visualization Manager"]["Displays"])
    return out


@pytest.mark.parametrize("name,frame,launch", [("arnie.rviz", "world", "arnie.launch.xml"),
                                               ("eurobot.rviz", "map", "eurobot.launch.xml")])
def test_config_parses_and_the_launch_file_starts_rviz_with_it(name, frame, launch):
    cfg = config(name)
    assert cfg["Visualization Manager"]["Global Options"]["Fixed Frame"] == frame
    displays = topic_displays(cfg)
    assert displays, f"{name} shows no topic"
    for d in displays:
        assert d["Class"] in TYPES, f"{name}: display {d['Name']!r}: unknown class {d['Class']} (add it to TYPES)"
        t = topic_of(d)
        assert t["Reliability Policy"] in RELIABILITY and t["Durability Policy"] in DURABILITY, d
        assert t["Value"].startswith("/"), d
    # The launch file's rviz command, with $(find-pkg-share arnie_bringup) resolved as
    # ros2 launch resolves it, names this very file.
    root = ET.parse(LAUNCH / launch).getroot()
    cmds = [e.get("cmd") for e in root.iter("executable") if e.get("name") == "rviz"]
    assert len(cmds) == 1, cmds
    m = re.fullmatch(r"rviz2 -d \$\(find-pkg-share arnie_bringup\)/(\S+)", cmds[0])
    assert m, cmds[0]
    installed = get_package_share_directory("arnie_bringup") + "/" + m.group(1)
    assert open(installed).read() == (RVIZ / name).read_text(), installed


def check_live(graph, name):
    """Every topic display of `name` against the publishers on `graph`."""
    problems = []
    cfg = config(name)
    fixed = cfg["Visualization Manager"]["Global Options"]["Fixed Frame"]
    for d in topic_displays(cfg):
        t = topic_of(d)
        topic = t["Value"]
        graph.spin_until(lambda: graph.node.get_publishers_info_by_topic(topic), STARTUP_S,
                         f"a publisher on {topic} ({name}: {d['Name']})")
        for info in graph.node.get_publishers_info_by_topic(topic):
            who = f"{name}: {d['Name']}: {topic} from {info.node_namespace.rstrip('/')}/{info.node_name}"
            if info.topic_type != TYPES[d["Class"]]:
                problems.append(f"{who}: type {info.topic_type}, display wants {TYPES[d['Class']]}")
            q = info.qos_profile
            if q.reliability != RELIABILITY[t["Reliability Policy"]]:
                problems.append(f"{who}: published {q.reliability.name}, display {t['Reliability Policy']}")
            if q.durability != DURABILITY[t["Durability Policy"]]:
                problems.append(f"{who}: published {q.durability.name}, display {t['Durability Policy']}")
        if topic in FRAME_CHECKED:
            pkg, _, cls = TYPES[d["Class"]].split("/")
            msg_type = getattr(importlib.import_module(f"{pkg}.msg"), cls)
            got = graph.collect(msg_type, topic, QoSProfile(depth=1, reliability=RELIABILITY[t["Reliability Policy"]],
                                                            durability=DURABILITY[t["Durability Policy"]]))
            graph.spin_until(lambda: got, STARTUP_S, f"a message on {topic}")
            headers = [m.header for m in got[0].markers] if hasattr(got[0], "markers") else [got[0].header]
            frames = {h.frame_id for h in headers}
            if frames != {fixed}:
                problems.append(f"{name}: {topic} is in {sorted(frames)}, the fixed frame is {fixed}")
    # Every tool that publishes (Publish Point, 2D Pose Estimate, 2D Goal Pose) has a node
    # of the stack listening on its topic.
    for tool in cfg["Visualization Manager"].get("Tools", []):
        topic = (tool.get("Topic") or {}).get("Value")
        if topic:
            graph.spin_until(lambda: graph.node.get_subscriptions_info_by_topic(topic), STARTUP_S,
                             f"a subscriber on {topic} ({name}: tool {tool['Class']})")
    assert not problems, "\n".join(problems)


def test_every_topic_of_arnie_rviz_is_published_with_its_type_and_qos(graph, tmp_path):
    spine = spine_sim_config(tmp_path / "spine_sim.json")
    graph.launch(*launcher_cmd(any_launcher(), "arnie.launch.xml", f"spine_config:={spine}"), name="arnie")
    graph.wait_for_nodes(["/sim", "/spine_bridge", "/trajectory_server", "/brain", "/state_publisher"], STARTUP_S)
    check_live(graph, "arnie.rviz")


def test_every_topic_of_eurobot_rviz_is_published_with_its_type_and_qos(graph, tmp_path):
    link, board = free_udp_ports(2)
    graph.launch(*launcher_cmd(any_launcher(), "eurobot.launch.xml", f"link_port:={link}", f"board_port:={board}",
                               f"truth_log:={tmp_path / 'truth.jsonl'}", f"lidar_port:={tmp_path / 'lidar'}",
                               f"board_control:={tmp_path / 'board.ctl'}", "lidar:=true"),
                 name="eurobot")  # lidar: eurobot.rviz shows the scan
    graph.wait_for_nodes(["/planner"], STARTUP_S)
    check_live(graph, "eurobot.rviz")
