"""The arm's whole stack as real processes: sim + spine_bridge + trajectory_server + brain,
started like launch/arnie.launch.xml starts them (each with its params/*.yaml, plus the
demo's fast `tick_period_s` 2.0 and `period_ms` 10), on a temporary copy of
params/spine_sim.json whose three UDP ports are free ones and on a temporary copy of
params/scenario_flame.json, changed per test; and what a test watches of it.
"""
import json
import math

from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import BrainState, SimTruth
from geometry_msgs.msg import PointStamped
from nav_msgs.msg import Path
from rclpy.action import ActionClient
from rclpy.qos import qos_profile_sensor_data

from helpers import qos
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers.ports import free_udp_ports


PARAMS = ROOT / "params"


SPINE_SIM = PARAMS / "spine_sim.json"


SCENARIO = PARAMS / "scenario_flame.json"


TASK = PARAMS / "tasks" / "flame_passing.json"


TICK_PERIOD_S = 2.0  # the demo's (launch default: the lab's 10 s)


PERIOD_MS = 10  # the demo's (launch default: the original 35 ms)


STARTUP_TIMEOUT_S = 60.0


TASK_TIMEOUT_S = 90.0  # the demo lights the candle ~20 s after the goal


RELIABLE = qos.reliable(1000)


LATCHED = qos.latched(100)


def close_mm(p, q_mm, tol_mm=1.0):
    """p (message point, metres) within tol_mm of q_mm on every axis."""
    return all(abs(a * 1000.0 - b) <= tol_mm for a, b in zip((p.x, p.y, p.z), q_mm))


def subsequence(wanted, seen):
    it = iter(seen)
    return all(any(w == s for s in it) for w in wanted)


class Stack:
    """The four nodes of the launch file on free ports, and what the test watches.

    `spine_edit` edits the spine config (a dict, after the free ports), `netns` places nodes
    in network namespaces (node name -> namespace, test/system/test_two_hosts.py) and `params`
    adds parameters per node (node name -> dict)."""

    def __init__(self, graph, tmp_path, scenario=None, spine_edit=None, netns=None, params=None):
        self.graph = graph
        self.tmp = tmp_path
        self.netns = netns or {}
        self.params = params or {}
        # Spine config: the shipped file with its three ports replaced by free ones.
        config = json.loads(SPINE_SIM.read_text())
        arm_in, eyes_in, arm_out = free_udp_ports(3)
        config["interfaces"]["input"]["arm"]["port"] = arm_in
        config["interfaces"]["input"]["eyes"]["port"] = eyes_in
        config["interfaces"]["output"]["arm"]["port"] = arm_out
        if spine_edit:
            spine_edit(config)
        self.spine_config = tmp_path / "spine_sim.json"
        self.spine_config.write_text(json.dumps(config, indent=2))
        # Scenario: the shipped one, changed by the test.
        self.scenario = json.loads(SCENARIO.read_text())
        if scenario:
            scenario(self.scenario)
        self.scenario_file = tmp_path / "scenario.json"
        self.scenario_file.write_text(json.dumps(self.scenario, indent=2))

        # Watchers first, so nothing of the run is missed.
        self.truths = graph.collect(SimTruth, "/sim/truth", qos.latched(1000))
        self.states = graph.collect(BrainState, "/brain/state", RELIABLE)
        self.commands = graph.collect(PointStamped, "/arm/command", RELIABLE)
        self.positions = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
        self.plans = graph.collect(Path, "/trajectory/plan", LATCHED)
        self.diagnostics = Diagnostics(graph, RELIABLE)
        self.feedback = []
        self.client = ActionClient(graph.node, RunTask, "/brain/run_task")

        self.sim = self.start("sim", {
            "spine_config": str(self.spine_config),
            "scenario_file": str(self.scenario_file),
            "truth_log": str(tmp_path / "truth.jsonl"),
        })
        self.spine = self.start_spine()
        self.trajectory = self.start("trajectory_server", {"period_ms": PERIOD_MS})
        self.brain = self.start("brain", {"tick_period_s": TICK_PERIOD_S})

    def start(self, name, params):
        """Starts a node with params/<name>.yaml, `params` and the test's own for it."""
        return self.graph.start(name, params_file=PARAMS / f"{name}.yaml", params={**params, **self.params.get(name, {})},
                                netns=self.netns.get(name))

    def start_spine(self):
        return self.start("spine_bridge", {"config_file": str(self.spine_config)})

    def count(self, status, key):
        """The latest /diagnostics counter `key` of status `status` (e.g. "/brain: arm"), 0 before."""
        return self.diagnostics.counter(status, key, 0)

    # ------------------------------------------------------------------ readiness
    def ready(self):
        """Everything wired, seen on the graph: the RunTask server, the ground truth,
        positions through the spine on /arm/position, and both the trajectory server and
        the brain counting those positions."""
        g = self.graph
        g.wait_for_action(self.client, "/brain/run_task", STARTUP_TIMEOUT_S)
        g.spin_until(lambda: self.truths, STARTUP_TIMEOUT_S, "/sim/truth")
        g.spin_until(lambda: self.positions, STARTUP_TIMEOUT_S, "/arm/position (sim -> spine over UDP)")
        g.spin_until(lambda: self.count("/trajectory_server: move_to", "positions") > 0
                     and self.count("/brain: inputs", "positions") > 0
                     and self.count("/brain: inputs", "observation_messages") > 0,
                     STARTUP_TIMEOUT_S, "arm positions and observations counted by the trajectory server and brain")

    # ------------------------------------------------------------------ the task
    def run_task(self):
        goal = RunTask.Goal(task_file=str(TASK))
        self.handle = self.graph.wait_future(
            self.client.send_goal_async(goal, feedback_callback=lambda fb: self.feedback.append(fb.feedback.state)),
            what="the RunTask goal response")
        assert self.handle.accepted, "the brain refused the RunTask goal"
        self.result = self.handle.get_result_async()
        return self.handle

    def running(self):
        """False (and the test fails) if the task ended by itself: it loops forever."""
        if self.result.done():
            r = self.result.result().result
            raise AssertionError(f"the task ended: outcome {r.outcome}, {r.message}\n" + self.graph.logs())
        return True

    def lit(self, name):
        return bool(self.truths) and name in self.truths[-1].lit

    def wait(self, predicate, what, timeout=TASK_TIMEOUT_S):
        self.graph.spin_until(lambda: self.running() and predicate(), timeout, what)

    def wait_lit(self, name, timeout=TASK_TIMEOUT_S):
        self.wait(lambda: self.lit(name), f'"{name}" lit on /sim/truth', timeout)

    def assert_flame_passed_taper_first(self):
        """The flame went source -> taper -> candle in the simulator's truth: the taper
        was lit before the candle, never the candle first."""
        first_lit = {}
        for i, t in enumerate(self.truths):
            for name in t.lit:
                first_lit.setdefault(name, i)
        assert first_lit.get("taper", math.inf) < first_lit["candle"], first_lit

    def cancel(self):
        self.graph.wait_future(self.handle.cancel_goal_async(), what="the RunTask cancel response")
        return self.graph.wait_future(self.result, what="the RunTask result after cancel")

    def actions(self):
        """Names of the actions the brain ran, in order, without repeats in a row."""
        seq = []
        for s in self.states:
            for a in s.active:
                if not seq or seq[-1] != a.name:
                    seq.append(a.name)
        return seq

    def events(self):
        return [e for s in self.states for e in s.events]

    def summary(self):
        t = self.truths[-1] if self.truths else None
        return (f"actions {self.actions()}, lit {list(t.lit) if t else None}, "
                f"trajectory_server {self.counters('/trajectory_server: move_to')}, brain arm {self.counters('/brain: arm')}")

    def counters(self, status):
        return self.diagnostics.values(status)
