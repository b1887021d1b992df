"""spine_bridge on a real graph: real UDP on 127.0.0.1, rclpy as the client.

- a simulink packet from the arm (device frame, mm) appears on /arm/position in the world
  frame, in metres; csv from the eyes on /eyes/observations;
- a command on /arm/command leaves as a simulink packet in the arm's frame (mm);
- a jump over the output's threshold is dropped (never clamped) and counted;
- malformed and unauthorised datagrams are counted, never forwarded, never a crash;
- the ORIGINAL Spine config runs its legacy UDP -> UDP routes on loopback (port offset);
- an output with `resendIntervalMs` re-sends its last value sent while silent, never a
  value the radius check dropped;
- a bad parameter or config is one clear error and exit code 2.
"""
import json
import math
import socket
import struct

import pytest
from helpers.diagnostics import Diagnostics
from helpers.graph import REFERENCE
from helpers.ports import free_port_offset
from arnie_interfaces.msg import Coordinates
from geometry_msgs.msg import PointStamped
from rclpy.qos import qos_profile_sensor_data

ORIGINAL = REFERENCE / "arnie" / "spine-config.json"
ARM = "0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1"  # device (x, y) -> world (-y, x)
IDENTITY = "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1"


# ------------------------------------------------------------------ helpers
def simulink(*values):
    return struct.pack(f"<{len(values)}d", *values)


def unsimulink(data):
    return list(struct.unpack(f"<{len(data) // 8}d", data))


def udp_socket(host="127.0.0.1", port=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, port))
    s.setblocking(False)
    return s


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recv_or_none(sock):
    try:
        return sock.recv(65536)
    except BlockingIOError:
        return None


class SpineCounters(Diagnostics):
    """The spine's latest counters per interface ("input.arm", ...) from /diagnostics."""

    def __init__(self, graph):
        super().__init__(graph)
        self.graph = graph

    def count(self, interface, key):
        return self.counter(f"/spine_bridge: {interface}", key, -1)

    def wait(self, interface, key, predicate, what):
        self.graph.spin_until(lambda: predicate(self.count(interface, key)), timeout=20.0,
                              what=f"{interface} {key} {what} on /diagnostics (now {self.count(interface, key)})")


def write_config(tmp_path, arm_in, eyes_in, guarded_in, device_port, guarded_source):
    config = {
        "host": "127.0.0.1",
        "loglevel": "info",
        "transforms": {"default": IDENTITY, "arm": ARM},
        "interfaces": {
            "input": {
                "arm": {"port": arm_in, "streamed": True, "format": "simulink",
                        "topic": "/arm/position", "kind": "point"},
                "eyes": {"port": eyes_in, "streamed": True, "format": "csv",
                         "topic": "/eyes/observations", "kind": "coordinates"},
                "guarded": {"port": guarded_in, "streamed": True, "format": "csv",
                            "allowedSources": [guarded_source]},
            },
            "output": {
                "arm": {"host": "127.0.0.1", "port": device_port, "format": "simulink", "threshold": 50,
                        "topic": "/arm/command", "kind": "point"},
            },
        },
        "connections": [],
    }
    path = tmp_path / "spine.json"
    path.write_text(json.dumps(config, indent=2))
    return path


@pytest.fixture
def spine(graph, tmp_path):
    """A spine on a test config: the arm device socket, the input ports, /diagnostics."""
    device = udp_socket()
    ports = {"arm": free_port(), "eyes": free_port(), "guarded": free_port()}
    allowed = udp_socket()  # the only source allowed on input "guarded"
    path = write_config(tmp_path, ports["arm"], ports["eyes"], ports["guarded"], device.getsockname()[1],
                        f"127.0.0.1:{allowed.getsockname()[1]}")
    proc = graph.start("spine_bridge", params={"config_file": str(path), "diagnostics_period_ms": 100})
    diags = SpineCounters(graph)
    graph.wait_for_publisher("/diagnostics")
    sender = udp_socket()
    yield {"proc": proc, "device": device, "ports": ports, "diags": diags, "sender": sender, "allowed": allowed}
    for s in (device, allowed, sender):
        s.close()


def send(sock, port, data):
    sock.sendto(data, ("127.0.0.1", port))


def close(a, b):
    return all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b)) and len(a) == len(b)


# ------------------------------------------------------------------ tests
def test_arm_packet_appears_on_arm_position_in_world_metres(graph, spine):
    got = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    graph.wait_for_publisher("/arm/position")
    # Best effort + discovery: resend the same packet until it arrives (duplicates are
    # still published, so a late subscriber learns where a still arm is).
    packet = simulink(1.0, 2.0, 3.0)
    graph.spin_until(lambda: send(spine["sender"], spine["ports"]["arm"], packet) or got,
                     what="a PointStamped on /arm/position")
    p = got[-1]
    assert p.header.frame_id == "world"
    assert close([p.point.x, p.point.y, p.point.z], [-0.002, 0.001, 0.003])
    spine["diags"].wait("input.arm", "forwarded", lambda v: v == 1, "== 1")
    assert spine["diags"].count("input.arm", "received") >= 1


def test_eyes_csv_appears_as_coordinates(graph, spine):
    got = graph.collect(Coordinates, "/eyes/observations", qos_profile_sensor_data)
    graph.wait_for_publisher("/eyes/observations")
    packet = b"10,20,30,0.9;40,50,60,0.5\n"
    graph.spin_until(lambda: send(spine["sender"], spine["ports"]["eyes"], packet) or got,
                     what="Coordinates on /eyes/observations")
    msg = got[-1]
    assert msg.header.frame_id == "world"
    items = [list(i.values) for i in msg.items]
    # x y z in metres; the confidence is not a length and is not scaled.
    assert len(items) == 2
    assert close(items[0], [0.01, 0.02, 0.03, 0.9]) and close(items[1], [0.04, 0.05, 0.06, 0.5])


def point(x, y, z, frame="world"):
    msg = PointStamped()
    msg.header.frame_id = frame
    msg.point.x, msg.point.y, msg.point.z = x, y, z
    return msg


def test_command_leaves_in_arm_frame_and_jump_is_dropped(graph, spine):
    device, diags = spine["device"], spine["diags"]
    pub = graph.node.create_publisher(PointStamped, "/arm/command", 10)
    graph.wait_for_subscriber("/arm/command")
    received = []

    def poll():
        data = recv_or_none(device)
        if data is not None:
            received.append(unsimulink(data))
        return data

    # World (-2, 1, 3) mm is (1, 2, 3) in the arm's frame. Repeats until matched are
    # de-duplicated by the output's gate: one datagram leaves.
    graph.spin_until(lambda: pub.publish(point(-0.002, 0.001, 0.003)) or poll() is not None,
                     what="a simulink packet at the arm device")
    assert close(received[0], [1.0, 2.0, 3.0])

    # 100 mm away: over the 50 mm threshold, dropped and counted, never clamped.
    pub.publish(point(0.098, 0.001, 0.003))
    diags.wait("output.arm", "rejected_radius", lambda v: v == 1, "== 1")
    assert diags.values("/spine_bridge: output.arm")["forwarded"] == "1"
    # A 10 mm step from the last value SENT passes; the jump never left.
    pub.publish(point(-0.002, 0.011, 0.003))
    graph.spin_until(lambda: poll() is not None, what="the 10 mm step")
    assert close(received[1], [11.0, 2.0, 3.0])
    graph.spin_for(0.2)
    poll()
    assert len(received) == 2, received
    # A command in a foreign frame is not forwarded (counted).
    pub.publish(point(-0.002, 0.012, 0.003, frame="arm_base"))
    diags.wait("output.arm", "wrong_frame", lambda v: v == 1, "== 1")
    assert recv_or_none(device) is None


def test_bad_datagrams_are_counted_never_forwarded(graph, spine):
    sender, ports, diags = spine["sender"], spine["ports"], spine["diags"]
    got = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    graph.wait_for_publisher("/arm/position")
    diags.wait("input.arm", "received", lambda v: v == 0, "== 0")
    send(sender, ports["arm"], b"\x01\x02\x03")                        # not a multiple of 8
    send(sender, ports["arm"], simulink(1.0, float("nan"), 3.0))       # NaN
    send(sender, ports["arm"], b"")                                     # empty
    send(sender, ports["eyes"], b"1,2,banana")                          # not a number
    send(sender, ports["eyes"], b"\xff\xfe,1,2")                        # not UTF-8
    send(sender, ports["guarded"], b"1,2,3")                            # source not allowed
    diags.wait("input.arm", "malformed.not_multiple_of_8", lambda v: v == 1, "== 1")
    diags.wait("input.arm", "malformed.not_finite", lambda v: v == 1, "== 1")
    diags.wait("input.arm", "malformed.empty", lambda v: v == 1, "== 1")
    diags.wait("input.eyes", "malformed.non_numeric", lambda v: v == 1, "== 1")
    diags.wait("input.eyes", "malformed.not_utf8", lambda v: v == 1, "== 1")
    diags.wait("input.guarded", "unauthorised", lambda v: v == 1, "== 1")
    assert diags.count("input.arm", "forwarded") == 0
    assert diags.count("input.guarded", "forwarded") == 0
    # The allowed source is accepted; the node is alive and still publishes good data.
    send(spine["allowed"], ports["guarded"], b"1,2,3")
    diags.wait("input.guarded", "forwarded", lambda v: v == 1, "== 1")
    graph.spin_until(lambda: send(sender, ports["arm"], simulink(4.0, 5.0, 6.0)) or got, what="a good packet after bad ones")
    assert close([got[-1].point.x, got[-1].point.y, got[-1].point.z], [-0.005, 0.004, 0.006])
    assert "panicked" not in graph.output(spine["proc"])
    assert graph.stop(spine["proc"]) == 0


def test_a_burst_is_counted_and_the_newest_value_wins(graph, spine):
    sender, ports, diags = spine["sender"], spine["ports"], spine["diags"]
    got = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    graph.wait_for_publisher("/arm/position")
    diags.wait("input.arm", "received", lambda v: v == 0, "== 0")
    n = 300
    for k in range(1, n + 1):  # distinct values, as fast as Python sends
        send(sender, ports["arm"], simulink(float(k), 0.0, 0.0))
    # Every datagram is counted once: routed (forwarded) or skipped for a newer one.
    diags.wait("input.arm", "received", lambda v: v == n, f"== {n}")
    counted = diags.count("input.arm", "forwarded") + diags.count("input.arm", "stale_dropped")
    assert counted == n, diags.values("/spine_bridge: input.arm")
    # The newest is always routed: (n, 0, 0) in the arm frame is world (0, n, 0) mm.
    # (Re-sending it is a duplicate, still published, in case the best-effort sample
    # was lost before this subscriber matched.)
    newest = simulink(float(n), 0.0, 0.0)
    graph.spin_until(lambda: (got and math.isclose(got[-1].point.y, n / 1000.0)) or send(sender, ports["arm"], newest),
                     what="the newest value of the burst on /arm/position")
    assert math.isclose(got[-1].point.x, 0.0, abs_tol=1e-12)


# ------------------------------------------------------------------ the original file
def reference_ports(config):
    ins = [i["port"] for i in config["interfaces"]["input"].values()]
    outs = [o["port"] for o in config["interfaces"]["output"].values()]
    return ins, outs


def pick_offset(ports):
    """A port offset under which every port of the file is free (and below the
    ephemeral range), so the test never collides with anything else."""
    return free_port_offset(ports, "the reference config")


def test_original_config_runs_its_legacy_routes_on_loopback(graph):
    config = json.loads(ORIGINAL.read_text())
    ins, outs = reference_ports(config)
    offset = pick_offset(ins + outs)
    outputs = config["interfaces"]["output"]
    inputs = config["interfaces"]["input"]
    # Peers of the routes checked below, listening where the file's outputs point.
    listen = {name: udp_socket(port=outputs[name]["port"] + offset)
              for name in ("mjt-logger", "pyt", "arm-logger", "nn-brain")}
    proc = graph.start("spine_bridge", params={"config_file": str(ORIGINAL), "loopback": True,
                                               "port_offset": offset, "diagnostics_period_ms": 100})
    diags = SpineCounters(graph)
    graph.wait_for_publisher("/diagnostics")
    diags.wait("input.pyt", "received", lambda v: v == 0, "== 0")
    sender = udp_socket()
    got = {name: [] for name in listen}

    def poll():
        for name, s in listen.items():
            data = recv_or_none(s)
            if data is not None:
                got[name].append(data)

    def wait_for(name):
        graph.spin_until(lambda: poll() or got[name], what=f"a datagram at output {name}")

    # pyt (csv) -> arm (simulink, threshold 50, the arm's frame) and mjt-logger (csv).
    sender.sendto(b"100,200,300", ("127.0.0.1", inputs["pyt"]["port"] + offset))
    wait_for("mjt-logger")
    assert got["mjt-logger"][0] == b"100,200,300"
    # Output "arm" points at 127.0.0.1:25000+offset, where this same file binds input
    # "kinect" (an address clash of the original after loopback; logged at start): the
    # simulink packet arrives there and is rejected as csv, which proves it was sent.
    diags.wait("output.arm", "forwarded", lambda v: v == 1, "== 1")
    diags.wait("input.kinect", "received", lambda v: v >= 1, ">= 1")
    assert diags.count("input.kinect", "malformed.not_utf8") + diags.count("input.kinect", "malformed.non_numeric") >= 1

    # arm (simulink, arm frame) -> pyt (csv, world), arm-logger (csv, its own copy of
    # the arm frame), nn-brain (simulink, world).
    sender.sendto(simulink(1.0, 2.0, 3.0), ("127.0.0.1", inputs["arm"]["port"] + offset))
    for name in ("pyt", "arm-logger", "nn-brain"):
        wait_for(name)
    assert got["pyt"][0] == b"-2,1,3"
    assert got["arm-logger"][0] == b"1,2,3"
    assert close(unsimulink(got["nn-brain"][0]), [-2.0, 1.0, 3.0])
    diags.wait("input.arm", "forwarded", lambda v: v == 1, "== 1")

    log = graph.output(proc)
    assert "address clash" in log
    assert "192.168." not in log  # every host was mapped to loopback
    for s in list(listen.values()) + [sender]:
        s.close()
    assert graph.stop(proc) == 0


# ------------------------------------------------------------------ start-up errors
def exits_with_2(graph, **params):
    return graph.start_refused("spine_bridge", params=params)


def test_bad_parameter_and_bad_config_are_clear_errors(graph, tmp_path):
    out = exits_with_2(graph, config_file=str(ORIGINAL), m_per_unit=0.0)
    assert "m_per_unit" in out
    bad = json.loads(ORIGINAL.read_text())
    bad["interfaces"]["output"]["arm"]["treshold"] = 50  # misspelt: must not disable the check
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = exits_with_2(graph, config_file=str(path), loopback=True)
    assert "interfaces.output.arm" in out and "treshold" in out
    out = exits_with_2(graph, config_file=str(ORIGINAL), loopback=True, diagnostics_period_ms=0)
    assert "diagnostics_period_ms must be in 10..=600000 [ms], got 0" in out


def test_parameters_are_read_only_after_start(graph):
    """The sockets are bound and the config loaded once: `ros2 param set` is refused,
    saying so, and the value is kept."""
    ins, outs = reference_ports(json.loads(ORIGINAL.read_text()))
    proc = graph.start("spine_bridge", params={"config_file": str(ORIGINAL), "loopback": True,
                                               "port_offset": pick_offset(ins + outs)})
    graph.param_refused("/spine_bridge", "m_per_unit", "1.0", "read only at start")
    graph.param_refused("/spine_bridge", "diagnostics_period_ms", "50", "read only at start")
    assert "0.001" in graph.param("get", "/spine_bridge", "m_per_unit").stdout
    assert graph.stop(proc) == 0


# ------------------------------------------------------------------ re-send
def test_resend_repeats_the_last_value_sent_never_a_dropped_one(graph, tmp_path):
    peer = udp_socket()  # the legacy client behind output "out"
    in_port = free_port()
    config = {
        "host": "127.0.0.1",
        "transforms": {"default": IDENTITY},
        "interfaces": {
            "input": {"in": {"port": in_port, "format": "csv"}},
            "output": {"out": {"host": "127.0.0.1", "port": peer.getsockname()[1], "format": "csv",
                               "threshold": 50, "resendIntervalMs": 100}},
        },
        "connections": [{"input": "in", "output": "out"}],
    }
    path = tmp_path / "spine.json"
    path.write_text(json.dumps(config))
    proc = graph.start("spine_bridge", params={"config_file": str(path), "diagnostics_period_ms": 100})
    diags = SpineCounters(graph)
    graph.wait_for_publisher("/diagnostics")
    diags.wait("output.out", "resent", lambda v: v == 0, "== 0")  # nothing sent: nothing to re-send
    sender = udp_socket()
    got = []

    def receive(n):
        target = len(got) + n

        def poll():
            data = recv_or_none(peer)
            if data is not None:
                got.append(data)
            return len(got) >= target
        graph.spin_until(poll, what=f"{n} more datagram(s) at the legacy client")
        return got[target - n:target]

    send(sender, in_port, b"10,20,30")
    assert receive(1) == [b"10,20,30"]
    # Silent since: the same value again, and again, counted.
    assert receive(2) == [b"10,20,30", b"10,20,30"]
    diags.wait("output.out", "resent", lambda v: v >= 2, ">= 2")
    assert diags.count("output.out", "forwarded") == 1
    # 500 mm away: dropped by the radius check, so never re-sent either.
    send(sender, in_port, b"510,20,30")
    diags.wait("output.out", "rejected_radius", lambda v: v == 1, "== 1")
    got.clear()
    while recv_or_none(peer) is not None:
        pass
    assert set(receive(3)) == {b"10,20,30"}
    # A value within the radius is sent, then re-sent in its turn.
    send(sender, in_port, b"20,20,30")
    graph.spin_until(lambda: (recv_or_none(peer) or b"") == b"20,20,30", what="the new value at the client")
    assert set(receive(2)) == {b"20,20,30"}
    for s in (peer, sender):
        s.close()
    assert graph.stop(proc) == 0
