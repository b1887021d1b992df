"""The rviz markers of the running stack (sim/markers, brain/markers), watched with rclpy.

The ARNIE launch file runs the flame-passing task (autostart, the demo's 2 s tick and
10 ms set-points) on free UDP ports. While it runs:
- every namespace of the simulator's and the brain's markers appears, and exactly the
  namespaces the shipped rviz config lists (so a user can toggle each one there);
- every marker is in `world` and stamped;
- the candle marker is grey while unlit and turns to the lit colour once the simulator
  reports the candle lit on /sim/truth (and never back).
"""
import yaml
from arnie_interfaces.msg import SimTruth
from visualization_msgs.msg import Marker, MarkerArray

from helpers.graph import ROOT
from helpers.ports import spine_sim_config
from helpers.launch import STARTUP_S, any_launcher, launcher_cmd
from helpers import qos

TASK_TIMEOUT_S = 120.0  # the candle lights ~20 s after the task starts (more under load)
LATCHED = qos.latched(100)


def config_namespaces(topic):
    cfg = yaml.safe_load((ROOT / "nodes" / "arnie_bringup" / "rviz" / "arnie.rviz").read_text())
    for d in cfg["Visualization Manager"]["Displays"]:
        if isinstance(d.get("Topic"), dict) and d["Topic"]["Value"] == topic:
            return set(d["Namespaces"])
    raise AssertionError(f"arnie.rviz has no display of {topic}")


class Watch:
    """Namespaces seen on a MarkerArray topic, and every ADDed marker's (ns, id) history."""

    def __init__(self, graph, topic):
        self.namespaces = set()
        self.bad = []
        self.arrays = 0
        self.last = {}
        graph.node.create_subscription(MarkerArray, topic, self.on_array, LATCHED)

    def on_array(self, msg):
        self.arrays += 1
        for m in msg.markers:
            if m.action != Marker.ADD:
                continue
            self.namespaces.add(m.ns)
            self.last[(m.ns, m.id)] = m
            if m.header.frame_id != "world" or (m.header.stamp.sec, m.header.stamp.nanosec) == (0, 0):
                self.bad.append(f"{m.ns}/{m.id}: frame {m.header.frame_id!r}, stamp {m.header.stamp}")


def test_namespaces_appear_and_the_candle_changes_colour_when_lit(graph, tmp_path):
    sim_ns, brain_ns = config_namespaces("/sim/markers"), config_namespaces("/brain/markers")
    truths = graph.collect(SimTruth, "/sim/truth", LATCHED)
    sim = Watch(graph, "/sim/markers")
    brain = Watch(graph, "/brain/markers")
    candle = []  # (candle colour, candle lit on /sim/truth at the time) per sim array

    def on_sim(msg):
        lit = bool(truths) and "candle" in truths[-1].lit
        for m in msg.markers:
            if (m.ns, m.id, m.action) == ("candle", 0, Marker.ADD):
                candle.append(((m.color.r, m.color.g, m.color.b, m.color.a), lit))

    graph.node.create_subscription(MarkerArray, "/sim/markers", on_sim, LATCHED)

    spine = spine_sim_config(tmp_path / "spine_sim.json")
    graph.launch(*launcher_cmd(any_launcher(), "arnie.launch.xml", f"spine_config:={spine}", "tick_period_s:=2.0",
                               "period_ms:=10", "run_task:=true"), name="arnie")
    graph.spin_until(lambda: candle, STARTUP_S, "the candle on /sim/markers")
    unlit = candle[0][0]
    assert not candle[0][1], "the candle was lit before the task ran"
    assert unlit[0] == unlit[1] == unlit[2], f"an unlit candle is grey, got {unlit}"

    def lit_seen():
        return bool(truths) and "candle" in truths[-1].lit and any(c != unlit for c, _ in candle)

    graph.spin_until(lit_seen, TASK_TIMEOUT_S, "the candle lit on /sim/truth and a new colour on /sim/markers")
    changed = [c for c, _ in candle if c != unlit]
    lit = changed[0]
    assert lit[0] > lit[1] > lit[2], f"a lit candle is orange, got {lit}"
    # Once lit, it stays lit (no flicker back to grey).
    first = next(i for i, (c, _) in enumerate(candle) if c != unlit)
    assert all(c == lit for c, _ in candle[first:]), candle[first:]

    graph.spin_until(lambda: sim.namespaces >= sim_ns and brain.namespaces >= brain_ns, 30.0,
                     f"every namespace: sim {sorted(sim_ns)}, brain {sorted(brain_ns)}")
    assert sim.namespaces == sim_ns, f"/sim/markers namespaces not in arnie.rviz: {sim.namespaces - sim_ns}"
    assert brain.namespaces == brain_ns, f"/brain/markers namespaces not in arnie.rviz: {brain.namespaces - brain_ns}"
    assert not sim.bad and not brain.bad, sim.bad + brain.bad
    # The brain draws the source it captured as a labelled variable sphere.
    labels = {m.text for (ns, _), m in brain.last.items() if ns == "variable_labels"}
    assert labels, brain.last.keys()
    assert all(m.type == Marker.TEXT_VIEW_FACING for (ns, _), m in brain.last.items() if ns == "variable_labels")
    assert all(m.type == Marker.SPHERE for (ns, _), m in brain.last.items() if ns == "variables")
