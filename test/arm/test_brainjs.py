"""The original lab tools drive our stack: the ORIGINAL BrainJS (node.js, read from
../shared/reference/arnie/brainjs) runs the original instructions.json against the
simulator, through spine_bridge and trajectory_server, over legacy UDP only. Our brain
node is not started.

BrainJS sends its targets as csv to the spine's `brain` input, which params/spine_brainjs.json
maps to /arm/target (the legacy PYT command path of the trajectory server); it reads the
arm's position and the eyes' observations from the spine's legacy routes `arm -> brain`
and `eyes -> brain-env`. The trajectory server moves the simulated arm through
/arm/command -> spine -> UDP. Success is the simulator's ground truth (/sim/truth): the
taper, then the candle, lit.

BrainJS runs from a copy of its folder in the test's temp dir in which exactly one line
is changed, its tick (`thought.think(10000)` -> TICK_MS), with a BrainJS config in that
dir naming 127.0.0.1 and free ports (the reference files are never edited, and nothing
is sent to the lab's 192.168.x.x addresses). BrainJS needs only node.js built-ins; the
tests skip, saying so, when `node` is not installed.

- the lab's order (BrainJS listening before the stack starts): the candle lights; the
  legacy targets reached the trajectory server; no node saw an incompatible QoS peer;
- a late BrainJS (started once the arm is at rest and the flame still, so de-duplication
  forwards nothing new): it gets the state from the spine's re-send
  (`resendIntervalMs`, on in the shipped config) and the candle lights.
"""
import json
import os
import re
import shutil
import subprocess
import time

import pytest
from arnie_interfaces.msg import SimTruth
from geometry_msgs.msg import PointStamped
from rclpy.qos import qos_profile_sensor_data

from helpers.diagnostics import Diagnostics
from helpers.graph import REFERENCE, ROOT
from helpers.ports import free_udp_ports
from helpers import qos

PARAMS = ROOT / "params"
SPINE_BRAINJS = PARAMS / "spine_brainjs.json"
BRAINJS = REFERENCE / "arnie" / "brainjs"
INSTRUCTIONS = REFERENCE / "arnie" / "instructions.json"

TICK_LINE = "thought.think(10000);"  # brain.js: the lab's 10 s tick
TICK_MS = 2500  # the copy's: a move (<= 100 mm at 10 ms per mm) and the 1 s hold fit in one tick
PERIOD_MS = 10  # the trajectory server's set-point period (the demo's)
STARTUP_TIMEOUT_S = 60.0
TASK_TIMEOUT_S = 180.0  # the candle lights about 13 ticks (~35 s) after BrainJS starts

RELIABLE = qos.reliable(100)
TRUTH = qos.latched(1000)


def node_js():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node.js is not installed (`node` not on PATH): the original BrainJS cannot run")
    return node


class LabStack:
    """sim + spine_bridge (params/spine_brainjs.json on free ports) + trajectory_server,
    and the original BrainJS, as the lab ran them."""

    def __init__(self, graph, tmp_path):
        self.graph = graph
        self.tmp = tmp_path
        self.node = node_js()
        config = json.loads(SPINE_BRAINJS.read_text())
        ins, outs = config["interfaces"]["input"], config["interfaces"]["output"]
        (ins["arm"]["port"], ins["eyes"]["port"], ins["brain"]["port"], outs["arm"]["port"],
         outs["brain"]["port"], outs["brain-env"]["port"]) = free_udp_ports(6)
        self.spine_config = tmp_path / "spine_brainjs.json"
        self.spine_config.write_text(json.dumps(config, indent=2))
        self.config = config

        self.truths = []
        self.first_lit = {}  # flame -> monotonic time it was first seen lit
        graph.node.create_subscription(SimTruth, "/sim/truth", self._on_truth, TRUTH)
        self.positions = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
        self.diagnostics = Diagnostics(graph, RELIABLE)
        self.brainjs = None

    def _on_truth(self, msg):
        self.truths.append(msg)
        for name in msg.lit:
            self.first_lit.setdefault(name, time.monotonic())

    def count(self, status, key):
        return self.diagnostics.counter(status, key, 0)

    # ------------------------------------------------------------------ processes
    def start_stack(self):
        g = self.graph
        self.sim = g.start("sim", params_file=PARAMS / "sim.yaml", params={
            "spine_config": str(self.spine_config),
            "truth_log": str(self.tmp / "truth.jsonl"),
        })
        self.spine = g.start("spine_bridge", params_file=PARAMS / "spine_bridge.yaml",
                             params={"config_file": str(self.spine_config)})
        self.trajectory = g.start("trajectory_server", params_file=PARAMS / "trajectory_server.yaml",
                                  params={"period_ms": PERIOD_MS})

    def stack_ready(self):
        """Positions flow sim -> spine -> /arm/position, both nodes report, and the
        trajectory server counts positions and listens on /arm/target."""
        g = self.graph
        g.spin_until(lambda: self.truths, STARTUP_TIMEOUT_S, "/sim/truth")
        g.spin_until(lambda: self.positions, STARTUP_TIMEOUT_S, "/arm/position (sim -> spine over UDP)")
        g.spin_until(lambda: self.count("/trajectory_server: move_to", "positions") > 0
                     and "/spine_bridge: output.brain" in self.diagnostics, STARTUP_TIMEOUT_S,
                     "the trajectory server counting positions and the spine's diagnostics")
        g.spin_until(lambda: g.node.count_publishers("/arm/target") > 0
                     and g.node.count_subscribers("/arm/target") > 0, STARTUP_TIMEOUT_S,
                     "the spine's /arm/target publisher and the trajectory server's subscription")

    def start_brainjs(self):
        """The original BrainJS from a temp copy of its folder with one line changed."""
        folder = self.tmp / "brainjs"
        shutil.copytree(BRAINJS, folder)
        brain_js = folder / "brain.js"
        os.chmod(folder, 0o755)
        os.chmod(brain_js, 0o644)
        text = brain_js.read_text()
        assert text.count(TICK_LINE) == 1, f"{BRAINJS / 'brain.js'} no longer has exactly one `{TICK_LINE}`"
        brain_js.write_text(text.replace(TICK_LINE, f"thought.think({TICK_MS});"))
        original = (BRAINJS / "brain.js").read_text().splitlines()
        changed = [(a, b) for a, b in zip(original, brain_js.read_text().splitlines()) if a != b]
        assert len(changed) == 1, changed

        outs, ins = self.config["interfaces"]["output"], self.config["interfaces"]["input"]
        config = {
            "connections": {
                "incoming": {
                    "position": {"host": "127.0.0.1", "port": outs["brain"]["port"]},
                    "observation": {"host": "127.0.0.1", "port": outs["brain-env"]["port"]},
                },
                "outgoing": {"spine": {"host": "127.0.0.1", "port": ins["brain"]["port"]}},
            },
            "instructions": str(INSTRUCTIONS),
        }
        config_file = self.tmp / "brainjs_config.json"
        config_file.write_text(json.dumps(config, indent=1))
        log = open(self.tmp / "brainjs.log", "w+")
        proc = subprocess.Popen([self.node, "brain.js", "-c", str(config_file)], cwd=folder, env=self.graph.env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        proc.log, proc.name = log, "brainjs"
        self.graph.procs.append(proc)
        self.brainjs = proc
        self.brainjs_started = time.monotonic()
        return proc

    # ------------------------------------------------------------------ results
    def lit(self, name):
        return bool(self.truths) and name in self.truths[-1].lit

    def wait_lit(self, name):
        self.graph.spin_until(lambda: self.lit(name), TASK_TIMEOUT_S, f'"{name}" lit on /sim/truth')

    def dispatched(self):
        """The targets BrainJS sent, in order (its own log lines `Dispatching x,y,z`)."""
        return re.findall(r"Dispatching (\S+)", self.graph.output(self.brainjs))

    def check_success(self):
        self.wait_lit("taper")
        self.wait_lit("candle")
        first = {}
        for i, t in enumerate(self.truths):
            for name in t.lit:
                first.setdefault(name, i)
        assert first["taper"] < first["candle"], first
        t = {name: self.first_lit[name] - self.brainjs_started for name in ("taper", "candle")}
        print(f"\nBrainJS (tick {TICK_MS} ms) started -> taper lit after {t['taper']:.1f} s, candle after {t['candle']:.1f} s")
        # BrainJS found the flame, dispatched the way to it, and its targets reached the
        # trajectory server through the spine (counted there, not only sent).
        sent = self.dispatched()
        assert "0,40,0" in sent and "60,40,30" in sent, sent[-20:]
        g = self.graph
        g.spin_until(lambda: self.count("/trajectory_server: move_to", "legacy_targets") >= 4,
                     what="legacy targets counted by the trajectory server")
        assert self.count("/spine_bridge: input.brain", "received") >= len(set(sent)), self.diagnostics.values("/spine_bridge: input.brain")
        # No node saw an incompatible QoS peer.
        for node in ("spine_bridge", "trajectory_server", "sim"):
            g.spin_until(lambda: f"/{node}: qos" in self.diagnostics, what=f"{node}'s qos status")
            assert self.count(f"/{node}: qos", "incompatible_qos_peers") == 0, (node, self.diagnostics.values(f"/{node}: qos"))


def test_original_brainjs_passes_the_flame_through_spine_and_trajectory_server(graph, tmp_path):
    lab = LabStack(graph, tmp_path)
    # The lab's order: BrainJS listens first, so it sees the first position and flame.
    lab.start_brainjs()
    lab.start_stack()
    lab.stack_ready()
    lab.check_success()
    assert lab.brainjs.poll() is None, graph.output(lab.brainjs)[-3000:]


def test_a_late_brainjs_gets_the_state_from_the_resend(graph, tmp_path):
    lab = LabStack(graph, tmp_path)
    outs = lab.config["interfaces"]["output"]
    assert outs["brain"].get("resendIntervalMs") and outs["brain-env"].get("resendIntervalMs"), \
        "params/spine_brainjs.json should re-send the arm and eyes routes"
    lab.start_stack()
    lab.stack_ready()
    # The arm rests and the flame is still: the spine has forwarded both once and now
    # de-duplicates every datagram, so a client starting now learns nothing new from
    # the routes themselves; and no re-send has happened since (silent < 1 interval
    # does not count: only a re-send tells the state again).
    g = graph
    g.spin_until(lambda: lab.count("/spine_bridge: input.arm", "deduplicated") > 0
                 and lab.count("/spine_bridge: input.eyes", "deduplicated") > 0,
                 what="the still arm and flame de-duplicated by the spine")
    resent_before = lab.count("/spine_bridge: output.brain-env", "resent")
    lab.start_brainjs()
    g.spin_until(lambda: lab.count("/spine_bridge: output.brain-env", "resent") > resent_before
                 and lab.count("/spine_bridge: output.brain", "resent") > 0,
                 what="the spine re-sending the last arm position and observation")
    lab.check_success()
