"""Speak ROS: logs on /rosout, parameters as ROS tools expect them, diagnostics apart.

- /rosout: records (rcl_interfaces/Log) under the node's logger name as launched: a node in
  /left logs as `left.trajectory_server`, a renamed one under its new name; level, file,
  function and line filled; `--log-level debug` adds DEBUG records, `warn` removes the INFO
  ones, the per-logger form `--log-level NAME:=debug` works; an unknown level stops the
  node with exit code 2 naming it.
- Parameters: `ros2 param describe` shows ranges and read_only (real ros2 CLI); a set
  outside the range and a set of a read-only parameter are refused with the reason;
  `/parameter_events` carries the declarations at start and every accepted set;
  parameter files keyed `/**`, `/**/NODE`, `/NS/NODE` and `NODE` apply as in rclcpp
  (a later key overrides an earlier one; `NODE` is `/NODE`, not `/left/NODE`); a value of
  the wrong type in a file, or an undeclared parameter under a key naming the node, stops
  the node (exit 2) naming it.
- /diagnostics: two trajectory servers under /left and /right publish distinct status
  names; the aggregator analyzers shipped in arnie_bringup sort every status name.
"""
import re

import pytest
import yaml
from rcl_interfaces.msg import Log, ParameterEvent, Parameter, ParameterValue, ParameterType
from rcl_interfaces.srv import GetParameters, SetParameters

from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers.ports import spine_sim_config
from helpers import qos

NODE = "trajectory_server"
ROSOUT_QOS = qos.latched(1000)


def rosout(graph):
    return graph.collect(Log, "/rosout", qos=ROSOUT_QOS)


def records_of(records, name):
    return [r for r in records if r.name == name]


def wait_running(graph, records, name):
    """Waits for the node's `... running` INFO record (its start is over)."""
    graph.spin_until(lambda: any(r.name == name and r.msg.endswith(" running") for r in records),
                     what=f"{name}'s 'running' record on /rosout")


def test_rosout_carries_the_namespaced_logger_name_level_file_and_line(graph):
    records = rosout(graph)
    graph.start(NODE, ros_args=["-r", "__ns:=/left"])
    wait_running(graph, records, "left.trajectory_server")
    mine = records_of(records, "left.trajectory_server")
    param_lines = [r for r in mine if r.msg == "param period_ms = 35"]
    assert param_lines, [r.msg for r in mine]
    r = param_lines[0]
    assert r.level == Log.INFO
    assert r.file.endswith(".rs") and r.line > 0 and r.function, r
    assert r.stamp.sec > 0
    # Nothing under the old constant name.
    assert not records_of(records, NODE)


def test_rosout_of_a_renamed_node_and_the_log_levels(graph):
    records = rosout(graph)
    graph.start(NODE, ros_args=["-r", "__node:=mover", "--log-level", "debug"])
    graph.start(NODE, ros_args=["-r", "__node:=quiet", "--log-level", "warn"])
    graph.start(NODE, ros_args=["-r", "__node:=picky", "--log-level", "picky:=debug"])
    wait_running(graph, records, "mover")
    wait_running(graph, records, "picky")
    assert any(r.level == Log.DEBUG for r in records_of(records, "mover")), [r.msg for r in records_of(records, "mover")]
    assert any(r.level == Log.DEBUG for r in records_of(records, "picky"))
    # `quiet` logs no INFO at all; a refused set is a WARN, which it does log.
    client = graph.node.create_client(SetParameters, "/quiet/set_parameters")
    graph.wait_for_service(client, "/quiet/set_parameters")
    req = SetParameters.Request(parameters=[Parameter(name="period_ms", value=ParameterValue(
        type=ParameterType.PARAMETER_INTEGER, integer_value=0))])
    res = graph.wait_future(client.call_async(req), what="the refused set")
    assert not res.results[0].successful and "period_ms`: 0 is not in 1..=60000" in res.results[0].reason, res
    graph.spin_until(lambda: any(r.level == Log.WARN for r in records_of(records, "quiet")), what="quiet's WARN")
    assert not [r for r in records_of(records, "quiet") if r.level <= Log.INFO], "quiet logged INFO or DEBUG"


def test_an_unknown_log_level_stops_the_node_naming_it(graph):
    graph.start_refused(NODE, ros_args=["--log-level", "loud"], expect="loud")


@pytest.mark.long(40)
def test_describe_shows_ranges_and_read_only_and_sets_are_refused_with_the_reason(graph):
    graph.start(NODE, ros_args=["-r", "__ns:=/left"])
    graph.wait_for_nodes({"/left/trajectory_server"})
    r = graph.param("describe", "/left/trajectory_server", "period_ms", "use_sim_time")
    out = r.stdout
    assert "Parameter name: period_ms" in out and "Min value: 1" in out and "Max value: 60000" in out, out
    assert re.search(r"Parameter name: use_sim_time.*Read only: true", out, re.S), out
    graph.param_refused("/left/trajectory_server", "period_ms", "0", "period_ms`: 0 is not in 1..=60000")
    # Where the library accepts and the declared range does not, the range's words.
    graph.param_refused("/left/trajectory_server", "tracking_tolerance_mm", "2000000.0",
                        "tracking_tolerance_mm must be in 0.001..=1000000, not 2000000")
    graph.param_refused("/left/trajectory_server", "use_sim_time", "true",
                        "parameter 'use_sim_time' cannot be set because it is read-only")
    graph.param_refused("/left/trajectory_server", "period_ms", "fast", "Wrong parameter type")
    r = graph.param("set", "/left/trajectory_server", "period_ms", "40")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr
    assert "40" in graph.param("get", "/left/trajectory_server", "period_ms").stdout


def test_parameter_events_carry_every_set(graph):
    """(The declarations are published at start too, as rclcpp does at each declaration;
    a subscriber that discovers the node later cannot see them: /parameter_events is
    volatile, so that event is not asserted here.)"""
    events = graph.collect(ParameterEvent, "/parameter_events",
                           qos=qos.reliable(1000))
    graph.start(NODE, ros_args=["-r", "__ns:=/right"])
    graph.wait_for_nodes({"/right/trajectory_server"})
    graph.spin_until(lambda: any(i.node_namespace == "/right" and i.node_name == NODE
                                 for i in graph.node.get_publishers_info_by_topic("/parameter_events")),
                     what="the node's /parameter_events publisher")
    graph.settle_discovery()
    r = graph.param("set", "/right/trajectory_server", "tracking_tolerance_mm", "30.0")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr
    graph.spin_until(lambda: any(e.node == "/right/trajectory_server" and e.changed_parameters for e in events),
                     what="the set on /parameter_events")
    changed = [p for e in events if e.node == "/right/trajectory_server" for p in e.changed_parameters]
    assert [(p.name, p.value.double_value) for p in changed] == [("tracking_tolerance_mm", 30.0)]
    # A refused set publishes nothing.
    graph.param_refused("/right/trajectory_server", "tracking_tolerance_mm", "-1.0", "tracking_tolerance_mm")
    graph.spin_for(0.5)
    changed = [p for e in events if e.node == "/right/trajectory_server" for p in e.changed_parameters]
    assert len(changed) == 1


def get_param(graph, node, name):
    out = graph.param("get", node, name).stdout
    return out.strip().split(":", 1)[1].strip()


@pytest.mark.parametrize("key,namespace,applies", [
    ("/**", "/left", True),
    ("/**/trajectory_server", "/left", True),
    ("/left/trajectory_server", "/left", True),
    ("/right/trajectory_server", "/left", False),
    ("trajectory_server", "", True),
    ("trajectory_server", "/left", False),  # rclcpp: `NODE` is `/NODE`
])
def test_the_four_yaml_key_forms_apply_as_in_rclcpp(graph, tmp_path, key, namespace, applies):
    f = tmp_path / "p.yaml"
    f.write_text(yaml.safe_dump({key: {"ros__parameters": {"period_ms": 44}}}))
    ra = ["-r", f"__ns:={namespace}"] if namespace else []
    fqn = f"{namespace}/{NODE}"
    if not applies:
        # A file none of whose keys applies would set nothing: the node says so and stops.
        graph.start_refused(NODE, params_file=f, ros_args=ra,
                            expect=[f"no key of this parameter file applies to {fqn}", key])
        return
    graph.start(NODE, params_file=f, ros_args=ra)
    graph.wait_for_nodes({fqn})
    assert get_param(graph, fqn, "period_ms") == "44"


def test_a_namespaced_node_takes_the_wildcard_and_its_own_key_in_order(graph, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(
        "/**:\n  ros__parameters:\n    period_ms: 44\n    settle_periods: 7\n    tick_period_s: 3.0\n"
        "/left/trajectory_server:\n  ros__parameters:\n    period_ms: 45\n"
        "/**/trajectory_server:\n  ros__parameters:\n    sample_factor: 2\n")
    graph.start(NODE, params_file=f, ros_args=["-r", "__ns:=/left"], params={"settle_periods": 9})
    graph.wait_for_nodes({"/left/trajectory_server"})
    node = "/left/trajectory_server"
    # The later, exact key overrides the wildcard; -p comes after the file; a wildcard's
    # parameter of another node (tick_period_s) is left alone.
    assert get_param(graph, node, "period_ms") == "45"
    assert get_param(graph, node, "sample_factor") == "2"
    assert get_param(graph, node, "settle_periods") == "9"
    names = graph.param("list", node).stdout
    assert "tick_period_s" not in names and "period_ms" in names, names


def test_bad_parameter_files_stop_the_node_naming_the_problem(graph, tmp_path):
    wrong_type = tmp_path / "t.yaml"
    wrong_type.write_text("/**:\n  ros__parameters:\n    period_ms: fast\n")
    graph.start_refused(NODE, params_file=wrong_type, expect="period_ms")
    unknown = tmp_path / "u.yaml"
    unknown.write_text("trajectory_server:\n  ros__parameters:\n    perod_ms: 20\n")
    out = graph.start_refused(NODE, params_file=unknown, expect=["perod_ms", "/trajectory_server"])
    assert "period_ms" in out
    graph.start_refused(NODE, params={"perod_ms": 20}, expect="perod_ms")
    out_of_range = tmp_path / "r.yaml"
    out_of_range.write_text("/**:\n  ros__parameters:\n    period_ms: 0\n")
    graph.start_refused(NODE, params_file=out_of_range, expect="period_ms`: 0 is not in 1..=60000")
    broken = tmp_path / "b.yaml"
    broken.write_text("/**:\n  ros__parameters:\n    period_ms: [1, \n")
    graph.start_refused(NODE, params_file=broken, expect=str(broken))


def test_two_arms_publish_distinct_diagnostics(graph):
    diagnostics = Diagnostics(graph)
    graph.start(NODE, ros_args=["-r", "__ns:=/left"])
    graph.start(NODE, ros_args=["-r", "__ns:=/right"])

    def names():
        return {name: diagnostics.status(name).hardware_id for name in diagnostics.names()}

    graph.spin_until(lambda: {"/left/trajectory_server: move_to", "/right/trajectory_server: move_to"} <= set(names()),
                     what="both arms' statuses")
    n = names()
    assert n["/left/trajectory_server: move_to"] == "/left/trajectory_server"
    assert "/left/trajectory_server: logging" in n and "/right/trajectory_server: parameters" in n
    assert not [k for k in n if k.startswith("trajectory_server")], n


AGGREGATOR = ROOT / "nodes" / "arnie_bringup" / "config" / "diagnostic_aggregator.yaml"


def analyzers(tree, path=""):
    """(path, regexes) of every GenericAnalyzer in the aggregator file."""
    out = []
    for name, a in tree.items():
        if not isinstance(a, dict):
            continue
        if a.get("type") == "diagnostic_aggregator/GenericAnalyzer":
            out.append((f"{path}/{a['path']}", a["regex"]))
        elif a.get("type") == "diagnostic_aggregator/AnalyzerGroup":
            out += analyzers(a["analyzers"], f"{path}/{a['path']}")
    return out


def test_the_aggregator_sorts_every_status_by_robot_and_part():
    params = yaml.safe_load(AGGREGATOR.read_text())["/**"]["ros__parameters"]
    found = analyzers(params)
    cases = {
        "/brain: run": "/ARNIE arm/Brain",
        "/left/brain: run": "/ARNIE arm/Brain",
        "/right/spine_bridge: output.arm": "/ARNIE arm/Spine (xPC bridge)",
        "/trajectory_server: qos": "/ARNIE arm/Trajectory server",
        "/sim: sim": "/ARNIE arm/Simulated xPC Targets",
        "/base: link": "/Eurobot robot/Base",
        "/eurobot/planner: planner": "/Eurobot robot/Planner",
        "/strategy: robot": "/Eurobot robot/Strategy",
        "/comms_bridge: link": "/Eurobot robot/Board link (comms bridge)",
        "/foxglove_bridge: clients": "/Viewers and tools",
    }
    for status, where in cases.items():
        hits = [p for p, regexes in found if any(re.match(r, status) for r in regexes)]
        assert hits == [where], (status, hits)


def node_setups(tmp_path):
    """Every node, the values it needs to start on its own, a ranged parameter with its
    range as `ros2 param describe` prints it, and a read-only (start-only) parameter."""
    # One config for both, as the arm launch has it (the sim binds the ports the spine sends
    # to and the other way round; two configs' free ports could collide).
    spine_cfg = sim_cfg = spine_sim_config(tmp_path / "spine.json")
    return {
        "trajectory_server": ({}, "period_ms", ("1", "60000"), "use_sim_time"),
        "brain": ({"command_mode": "topic", "markers_rate_hz": 0.0}, "tick_period_s", ("0.01", "3600.0"), "command_mode"),
        "strategy": ({}, "call_timeout_ms", ("1", "600000"), "motion"),
        "sim": ({"spine_config": str(sim_cfg), "scenario_file": str(ROOT / "params" / "scenario_flame.json")},
                "truth_rate_hz", ("0.01", "1000.0"), "step_ms"),
        "spine_bridge": ({"config_file": str(spine_cfg), "loopback": True}, "max_datagram", ("1", "65507"),
                         "config_file"),
        "planner": ({"map_file": str(ROOT / "params" / "maps" / "demo.pgm")}, "start_escape_m", ("0.0", "10.0"),
                    "resolution_m"),
        "comms_bridge": ({"transport": "can_udp", "packets_dir": str(ROOT / "nodes" / "lib" / "arnie_packets" / "packets")},
                         "max_requests_in_flight", ("1", "4096"), "transport"),
        "base": ({}, "max_speed_mps", ("0.01", "5.0"), "tick_ms"),
        "foxglove_bridge": ({"port": 0}, "discovery_ms", ("10", "60000"), "address"),
    }


@pytest.mark.long(70)
def test_every_node_describes_its_ranges_and_read_only_parameters(graph, tmp_path):
    """`ros2 param describe` (the real CLI) on every node: a ranged parameter shows its
    Min/Max, a start-only one `Read only: true`; a set of the read-only one (rclpy) is
    refused as rclcpp refuses it."""
    setups = node_setups(tmp_path)
    for node, (params, _, _, _) in setups.items():
        graph.start(node, params=params)
    graph.wait_for_nodes({f"/{n}" for n in setups})
    for node, (_, ranged, (lo, hi), read_only) in setups.items():
        out = graph.param("describe", f"/{node}", ranged, read_only).stdout
        block = out.split(f"Parameter name: {read_only}")
        assert len(block) == 2, (node, out)
        assert f"Min value: {lo}" in block[0] and f"Max value: {hi}" in block[0], (node, out)
        assert "Read only: true" in block[1], (node, out)
    # A set of each read-only parameter (its own value, so only the flag can refuse it).
    for node, (_, _, _, read_only) in setups.items():
        get = graph.node.create_client(GetParameters, f"/{node}/get_parameters")
        graph.wait_for_service(get, f"/{node}/get_parameters")
        value = graph.wait_future(get.call_async(GetParameters.Request(names=[read_only])), what="get").values[0]
        client = graph.node.create_client(SetParameters, f"/{node}/set_parameters")
        graph.wait_for_service(client, f"/{node}/set_parameters")
        req = SetParameters.Request(parameters=[Parameter(name=read_only, value=value)])
        res = graph.wait_future(client.call_async(req), what=f"the set of {node}'s {read_only}").results[0]
        assert not res.successful, (node, read_only)
        assert res.reason.startswith(f"parameter '{read_only}' cannot be set because it is read-only"), res.reason
