"""The simulated hardware (`sim`) on real UDP sockets and a real ROS graph.

Python plays the spine: it binds UDP sockets at the spine's arm and eyes inputs (the
ports of a temporary copy of params/spine_sim.json, all free ports), decodes the sim's
simulink encoder positions and csv observations with the config's transforms, and sends
arm targets the way the spine's arm output does (simulink, `T_arm⁻¹ · p_global`).
/sim/truth and the truth log tell what really happened.
"""
import json
import socket
import struct

import numpy as np
import pytest
from arnie_interfaces.msg import SimTruth
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import DescribeParameters, SetParameters

from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers import qos

SPINE_SIM = ROOT / "params" / "spine_sim.json"
SCENARIO = ROOT / "params" / "scenario_flame.json"
TRUTH_QOS = qos.latched(1)
PORT_OFFSET = 1000


def matrix(text):
    return np.array([[float(v) for v in row.split()] for row in text.split(";")])


def apply(t, p):
    return (t @ np.array([p[0], p[1], p[2], 1.0]))[:3]


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class FakeSpine:
    """The spine's side of the UDP links, on free ports, with the config's transforms."""

    def __init__(self, tmp_path):
        self.arm_in = self._bind()
        self.eyes_in = self._bind()
        self.arm_out_port = free_udp_port()
        config = json.loads(SPINE_SIM.read_text())
        inputs, outputs = config["interfaces"]["input"], config["interfaces"]["output"]
        # The file's ports are shifted down; the sim gets port_offset to shift them back.
        inputs["arm"]["port"] = self.arm_in.getsockname()[1] - PORT_OFFSET
        inputs["eyes"]["port"] = self.eyes_in.getsockname()[1] - PORT_OFFSET
        outputs["arm"]["port"] = self.arm_out_port - PORT_OFFSET
        self.config_path = tmp_path / "spine_sim.json"
        self.config_path.write_text(json.dumps(config))
        self.t_arm = matrix(config["transforms"]["arm"])
        self.t_eyes = matrix(config["transforms"]["eyes"])
        self.out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.positions = []  # global mm
        self.observations = []  # lists of (global xyz, confidence)

    @staticmethod
    def _bind():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        return s

    def drain(self):
        while True:
            try:
                data = self.arm_in.recv(65536)
            except BlockingIOError:
                break
            assert len(data) == 24, f"simulink position of {len(data)} bytes"
            self.positions.append(apply(self.t_arm, struct.unpack("<3d", data)))
        while True:
            try:
                data = self.eyes_in.recv(65536)
            except BlockingIOError:
                break
            items = [[float(v) for v in item.split(",")] for item in data.decode().split(";")]
            self.observations.append([(apply(self.t_eyes, i[:3]), i[3]) for i in items])
        return True

    def send_target(self, global_mm):
        device = apply(np.linalg.inv(self.t_arm), global_mm)
        self.out.sendto(struct.pack("<3d", *device), ("127.0.0.1", self.arm_out_port))

    def close(self):
        for s in (self.arm_in, self.eyes_in, self.out):
            s.close()


@pytest.fixture
def spine(tmp_path):
    s = FakeSpine(tmp_path)
    yield s
    s.close()


def scenario(tmp_path, **eyes):
    data = json.loads(SCENARIO.read_text())
    data["eyes"].update(eyes)
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data))
    return data, path


def start_sim(graph, spine, scenario_path, truth_log=None, params_file=None, **extra):
    params = {
        "spine_config": str(spine.config_path),
        "scenario_file": str(scenario_path),
        "port_offset": PORT_OFFSET,
        **extra,
    }
    if truth_log:
        params["truth_log"] = str(truth_log)
    return graph.start("sim", params=params, params_file=params_file)


def near(a, b, tol=1e-6):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_streams_positions_and_observations_in_device_frames(graph, spine, tmp_path):
    data, path = scenario(tmp_path)
    start_sim(graph, spine, path, tmp_path / "truth.jsonl")
    graph.spin_until(lambda: spine.drain() and len(spine.positions) >= 5 and len(spine.observations) >= 3,
                     what="encoder positions and observations over UDP")
    # The arm starts at the scenario's start; the source is the first (only) flame.
    assert near(spine.positions[-1], data["arm"]["start_mm"])
    source = spine.observations[-1][0]
    assert near(source[0], data["eyes"]["source_mm"], 1e-9)
    assert source[1] == data["eyes"]["confidence"]
    assert len(spine.observations[-1]) == 1, "no taper or candle before they are lit"
    # The raw packet really is in the eyes' own frame (the transform matters).
    raw = apply(np.linalg.inv(spine.t_eyes), data["eyes"]["source_mm"])
    assert not near(raw, data["eyes"]["source_mm"], 1.0)


def test_the_world_objects_are_frames_on_tf_static(graph, spine, tmp_path):
    """source_flame, candle and obstacle_<name> (each box's centre) under world, in
    metres, for a subscriber that joins late (transient local, as tf2's listener)."""
    from tf2_msgs.msg import TFMessage
    data, path = scenario(tmp_path)
    start_sim(graph, spine, path)
    graph.wait_for_nodes(["/sim"])
    graph.wait_for_publisher("/tf_static")
    late = qos.latched(100)
    statics = graph.collect(TFMessage, "/tf_static", late)
    graph.spin_until(lambda: statics, what="the world's frames on /tf_static")
    got = {t.child_frame_id: (t.header.frame_id, t.transform.translation) for m in statics for t in m.transforms}
    expected = {"source_flame": data["eyes"]["source_mm"], "candle": data["eyes"]["candle_mm"]}
    for o in data["arm"]["obstacles"]:
        expected[f"obstacle_{o['name']}"] = [(lo + hi) / 2 for lo, hi in zip(o["min_mm"], o["max_mm"])]
    assert set(got) == set(expected), got
    for name, mm in expected.items():
        parent, v = got[name]
        assert parent == "world"
        assert near([v.x, v.y, v.z], [c / 1000.0 for c in mm], 1e-12), (name, v)


def test_arm_moves_to_a_target_sent_in_its_frame(graph, spine, tmp_path):
    _, path = scenario(tmp_path)
    start_sim(graph, spine, path, tmp_path / "truth.jsonl")
    truths = graph.collect(SimTruth, "/sim/truth", TRUTH_QOS)
    graph.spin_until(lambda: spine.drain() and spine.positions, what="the first encoder position")
    target = [0.0, 40.0, 20.0]
    # A malformed datagram first: rejected and counted, the sim keeps going.
    spine.out.sendto(b"\x01\x02\x03", ("127.0.0.1", spine.arm_out_port))

    def moved():
        spine.send_target(target)
        spine.drain()
        return near(spine.positions[-1], target, 1e-6)

    graph.spin_until(moved, what=f"the arm at {target} mm")
    graph.spin_until(lambda: truths and truths[-1].has_target and near(
        [truths[-1].arm.x, truths[-1].arm.y, truths[-1].arm.z], [v / 1000 for v in target], 1e-9),
        what="/sim/truth showing the arm at the target")
    t = truths[-1]
    assert t.header.frame_id == "world"
    assert near([t.target.x, t.target.y, t.target.z], [v / 1000 for v in target], 1e-12)
    assert t.commands_received >= 1 and t.commands_dropped == 0
    assert not t.blocked
    assert list(t.lit) == ["source"]
    diagnostics = Diagnostics(graph)

    def rejected_counted():
        return any(v.get("rejected_not_multiple_of_8") == "1" for v in diagnostics.history("/sim: sim"))

    graph.spin_until(rejected_counted, what="the malformed datagram counted on /diagnostics")


def test_taper_lights_when_held_at_the_source(graph, spine, tmp_path):
    data, path = scenario(tmp_path, hold_s=0.5)
    log = tmp_path / "truth.jsonl"
    start_sim(graph, spine, path, log)
    truths = graph.collect(SimTruth, "/sim/truth", TRUTH_QOS)
    graph.spin_until(lambda: spine.drain() and spine.positions, what="the first encoder position")
    f = data["eyes"]["source_mm"]
    # Near the source but beyond the light radius: nothing lights.
    beside = [f[0], f[1] - 3 * data["eyes"]["light_radius_mm"], f[2]]

    def at(p):
        def check():
            spine.send_target(p)
            spine.drain()
            return near(spine.positions[-1], p, 1e-6)
        return check

    graph.spin_until(at(beside), what="the arm beside the source")
    seen = len(spine.observations)
    graph.spin_until(lambda: spine.drain() and len(spine.observations) >= seen + 20,
                     what="observations while waiting beside the source")  # ≥ 2 hold times at 20 Hz
    assert all(len(o) == 1 for o in spine.observations[seen:]), "the taper lit away from the source"
    graph.spin_until(at(f), what="the arm at the source")
    graph.spin_until(lambda: spine.drain() and len(spine.observations[-1]) == 2,
                     what="the lit taper in the observations")
    source, taper = spine.observations[-1]
    assert near(source[0], f, 1e-9) and near(taper[0], f, 1e-6)
    # Take the taper away: it is reported where the arm is.
    away = [0.0, f[1], 0.0]
    graph.spin_until(at(away), what="the arm back at (0, F.y, 0)")
    graph.spin_until(lambda: spine.drain() and near(spine.observations[-1][1][0], away, 1e-6),
                     what="the taper seen at the arm")
    graph.spin_until(lambda: truths and "taper" in truths[-1].lit, what="/sim/truth: taper lit")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    lit = [e for e in lines if e["kind"] == "event" and e["event"] == "lit"]
    assert [e["flame"] for e in lit] == ["taper"]


def test_bad_scenario_fails_naming_the_field(graph, spine, tmp_path):
    data = json.loads(SCENARIO.read_text())
    data["arm"]["max_speed_mm_s"] = -5
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    proc = start_sim(graph, spine, path)
    proc.must_live = False
    assert proc.wait(30) == 2
    assert "arm.max_speed_mm_s" in graph.output(proc)


def sim_status(diagnostics):
    """The key/values of the last `sim: sim` status seen, or None."""
    return diagnostics.values("/sim: sim") or None


def test_a_bad_period_at_start_stops_the_node_naming_it(graph, spine, tmp_path):
    _, path = scenario(tmp_path)
    # A params file asking for a /sim/truth period of 1e-12 s.
    params_file = tmp_path / "sim.yaml"
    params_file.write_text("/**:\n  ros__parameters:\n    truth_rate_hz: 1.0e12\n")
    proc = start_sim(graph, spine, path, params_file=params_file)
    proc.must_live = False
    assert proc.wait(30) == 2
    out = graph.output(proc)
    assert "truth_rate_hz: must be in [0.01, 1000], got 1000000000000" in out, out
    assert "panicked" not in out
    # A zero physics step on the command line, the same way.
    proc = start_sim(graph, spine, path, step_ms=0)
    proc.must_live = False
    assert proc.wait(30) == 2
    out = graph.output(proc)
    assert "step_ms: must be in [1, 1000], got 0" in out, out


def set_param(graph, name, value):
    """`ros2 param set /sim NAME VALUE` through the node's own service; the result."""
    client = graph.node.create_client(SetParameters, "/sim/set_parameters")
    graph.wait_for_service(client, "/sim/set_parameters")
    if isinstance(value, float):
        v = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
    else:
        v = ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=value)
    req = SetParameters.Request(parameters=[Parameter(name=name, value=v)])
    return graph.wait_future(client.call_async(req), what=f"set {name}").results[0]


def test_param_set_refuses_a_bad_period_and_start_only_parameters(graph, spine, tmp_path):
    _, path = scenario(tmp_path)
    start_sim(graph, spine, path)
    truths = graph.collect(SimTruth, "/sim/truth", TRUTH_QOS)
    graph.spin_until(lambda: truths, what="/sim/truth")
    # The descriptor carries the range (floating_point_range / integer_range), the policy
    # (read_only for start-only parameters) and when a change takes effect.
    client = graph.node.create_client(DescribeParameters, "/sim/describe_parameters")
    graph.wait_for_service(client, "/sim/describe_parameters")
    names = ["truth_rate_hz", "step_ms"]
    described = graph.wait_future(client.call_async(DescribeParameters.Request(names=names)),
                                  what="describe_parameters").descriptors
    rate, step = described
    assert [(r.from_value, r.to_value) for r in rate.floating_point_range] == [(0.01, 1000.0)], rate
    assert not rate.read_only and rate.description.endswith("(At once)"), rate
    assert [(r.from_value, r.to_value) for r in step.integer_range] == [(1, 1000)], step
    assert step.read_only and step.description.endswith("(Start only)"), step

    r = set_param(graph, "truth_rate_hz", 1e12)
    assert not r.successful
    assert "truth_rate_hz: must be in [0.01, 1000], got 1000000000000" in r.reason, r.reason
    r = set_param(graph, "step_ms", 1)
    assert not r.successful and "read only at start" in r.reason, r.reason
    r = set_param(graph, "truth_rate_hz", 20.0)
    assert r.successful, r.reason
    # Still alive and publishing after the refusals.
    seen = len(truths)
    graph.spin_until(lambda: len(truths) >= seen + 5, what="/sim/truth after the parameter changes")


def test_the_truth_log_is_written_off_the_runtime_and_counted(graph, spine, tmp_path):
    _, path = scenario(tmp_path)
    log = tmp_path / "truth.jsonl"
    proc = start_sim(graph, spine, path, log, truth_rate_hz=50.0)
    diagnostics = Diagnostics(graph)

    def written(n):
        s = sim_status(diagnostics)
        return s is not None and int(s["truth_log_written"]) >= n

    graph.spin_until(lambda: written(20), what="20 truth lines counted on /diagnostics")
    s = sim_status(diagnostics)
    assert s["truth_log_dropped"] == "0" and s["truth_log_errors"] == "0", s
    assert graph.stop(proc) == 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    truths = [x for x in lines if x["kind"] == "truth"]
    # Every line counted while running is in the file (and the last ones written at stop).
    assert len(lines) >= int(s["truth_log_written"]) and len(truths) >= 20
    assert all("arm_mm" in x and "t_s" in x for x in truths)
    times = [x["t_s"] for x in truths]
    assert times == sorted(times), "truth lines out of order"


def test_a_truth_log_that_cannot_be_created_stops_the_node(graph, spine, tmp_path):
    _, path = scenario(tmp_path)
    proc = start_sim(graph, spine, path, tmp_path / "no" / "such" / "dir" / "truth.jsonl")
    proc.must_live = False
    assert proc.wait(30) == 2
    assert "truth_log" in graph.output(proc) and "truth.jsonl" in graph.output(proc)
