"""board_sim (the simulated Eurobot motor board) behind comms_bridge on a real pty and a
real graph: rclpy talks to the board only through /comms/tx, /comms/rx and /comms/send.

- odometry streams at the board's 50 Hz (counted by the board's own clock and sequence:
  no timing assertion), starting at the scenario's start pose;
- a DriveSpeed moves the robot forward; without further commands the watchdog stops it;
- an opponent parked ahead is reported (ObstacleReport from the front sensor with its
  distance and position); an Actuator command is acked and done later;
- with 5 % of the bytes corrupted both ways, frames still get through and the bridge
  counts the bad ones.
"""
import json

import pytest

from arnie_interfaces.msg import Packet
from arnie_interfaces.srv import SendPacket
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT

PACKETS = ROOT / "nodes" / "lib" / "arnie_packets" / "packets"
TABLE = ROOT / "params" / "eurobot" / "table.json"
LINK = "/comms_bridge: link"  # the bridge's status on /diagnostics


def scenario(tmp, **changes):
    """The shipped table with top-level keys replaced, written to tmp."""
    s = json.loads(TABLE.read_text())
    for k, v in changes.items():
        if v is None:
            s.pop(k, None)
        else:
            s[k] = v
    path = tmp / "table.json"
    path.write_text(json.dumps(s))
    return path


class Board:
    """board_sim on a pty + comms_bridge on its slave; the client's side of /comms."""

    def __init__(self, graph, table, *board_args):
        self.graph = graph
        link_file = graph.tmp / "board.link"
        self.truth = graph.tmp / "truth.jsonl"
        self.sim = graph.start("board_sim", "--scenario", str(table), "--packets", str(PACKETS), "pty",
                               "--link-file", str(link_file), "--truth-log", str(self.truth), *board_args)
        graph.spin_until(link_file.exists, what="board_sim's link file")
        self.bridge = graph.start(
            "comms_bridge",
            params_file=ROOT / "params" / "comms_bridge.yaml",
            params=dict(packets_dir=str(PACKETS), transport="uart", serial_port=link_file.read_text().strip()),
        )
        self.rx = []
        self.tx = graph.node.create_publisher(Packet, "/comms/tx", 10)
        self.sub = graph.node.create_subscription(Packet, "/comms/rx", self.rx.append, 100)
        self.client = graph.node.create_client(SendPacket, "/comms/send")
        self.diagnostics = Diagnostics(graph)
        graph.spin_until(lambda: self.tx.get_subscription_count() > 0 and self.sub.get_publisher_count() > 0,
                         what="/comms/tx and /comms/rx matched with the bridge")
        # Then the service; its discovery margin also covers the bridge's side of the
        # topic matches (see helpers/graph.py).
        graph.wait_for_service(self.client, "/comms/send")

    def packets(self, name):
        return [json.loads(m.fields_json) for m in self.rx if m.name == name]

    def publish(self, name, **fields):
        self.tx.publish(Packet(name=name, fields_json=json.dumps(fields)))

    def send(self, name, **fields):
        req = SendPacket.Request(timeout_s=5.0)
        req.packet = Packet(name=name, fields_json=json.dumps(fields))
        return self.graph.wait_future(self.client.call_async(req), timeout=30.0, what=f"/comms/send {name}")

    def odometry_after(self, count):
        """Waits for `count` more Odometry packets; returns the last."""
        start = len(self.packets("Odometry"))
        self.graph.spin_until(lambda: len(self.packets("Odometry")) >= start + count, what=f"{count} Odometry packets")
        return self.packets("Odometry")[-1]

    def events(self):
        lines = [json.loads(line) for line in self.truth.read_text().splitlines() if line.strip()]
        return [e["event"] for e in lines if e.get("type") == "event"]


def test_odometry_drive_and_watchdog(graph):
    table = scenario(graph.tmp, opponent=None)
    board = Board(graph, table, "--noise-scale", "0")

    # Odometry (integer mm / mrad), every packet received (no gap in the sequence over
    # the pty).
    board.odometry_after(60)
    odo = board.packets("Odometry")
    first, last = odo[0], odo[-1]
    assert len(odo) == last["seq"] - first["seq"] + 1, "no odometry packet lost on the pty"
    assert (first["x_mm"], first["y_mm"], first["theta_mrad"]) == (300.0, 1000.0, 0.0), "starts at the start pose"
    assert last["flags"] & 1 == 0, "standing still"

    # Drive forward at 200 mm/s, commands every 0.1 s with a 1 s watchdog, until 100 mm.
    seq = 1
    while board.packets("Odometry")[-1]["x_mm"] < 400.0:
        board.publish("DriveSpeed", seq=seq, linear_mm_s=200, angular_mrad_s=0, watchdog_ms=1000)
        seq += 1
        graph.spin_for(0.1)
        assert seq < 600, "the robot never moved 100 mm: " + graph.logs()
    moving = board.packets("Odometry")[-1]
    assert moving["flags"] & 1 and moving["linear_mm_s"] > 0 and moving["cmd_seq"] > 0
    assert abs(moving["y_mm"] - 1000.0) < 1.0 and abs(moving["theta_mrad"]) < 1.0, "straight ahead"

    # No more commands: the watchdog stops the robot (flag bit 1, speed 0).
    graph.spin_until(lambda: board.packets("Odometry")[-1]["flags"] & 2, timeout=30.0, what="the watchdog flag")
    graph.spin_until(lambda: board.packets("Odometry")[-1]["linear_mm_s"] == 0.0, timeout=30.0, what="speed 0")
    stopped = board.packets("Odometry")[-1]
    board.odometry_after(10)
    assert board.packets("Odometry")[-1]["x_mm"] == stopped["x_mm"], "stays stopped"
    assert "watchdog" in board.events()


def test_opponent_ahead_is_reported_and_actuators_complete(graph):
    # Our robot at (0.5, 1.0) facing +x; the opponent (r 0.1) parked at (0.9, 1.0): its
    # edge is 0.4 - 0.1 - 0.15 = 0.15 m from ours, inside the front sensor's 0.35 m.
    table = scenario(
        graph.tmp,
        robot={"start": {"x_m": 0.5, "y_m": 1.0, "theta_rad": 0.0}, "radius_m": 0.15},
        opponent={"radius_m": 0.1, "speed_m_s": 0.3, "waypoints": [{"x_m": 0.9, "y_m": 1.0}]},
        tasks=[{"name": "here", "points": 1, "x_m": 0.5, "y_m": 1.0, "element": 7,
                "steps": [{"actuator": "clamp", "action": "take"}]}],
    )
    board = Board(graph, table, "--noise-scale", "0")

    def front():
        return [r for r in board.packets("ObstacleReport") if r["sensor"] == 0]

    graph.spin_until(lambda: len(front()) >= 3, what="ObstacleReports from the front sensor")
    r = front()[-1]
    assert abs(r["distance_mm"] - 150) <= 2, r
    assert r["bearing_mrad"] == 0
    assert abs(r["x_mm"] - 800.0) < 2.0 and abs(r["y_mm"] - 1000.0) < 2.0, r
    assert board.packets("Odometry")[-1]["flags"] & 16, "obstacle flag"
    assert "sees_opponent" in board.events()

    # The clamp takes element 7 here: acked at once, done after its 600 ms.
    res = board.send("Actuator", seq=5, actuator=0, action=1, element=7)
    assert res.success and res.has_reply, res.message
    ack = json.loads(res.reply.fields_json)
    assert ack == {"command": 35, "seq": 5, "status": 0}
    graph.spin_until(lambda: board.packets("ActuatorDone"), what="ActuatorDone")
    done = board.packets("ActuatorDone")[0]
    assert (done["seq"], done["status"], done["element"], done["duration_ms"]) == (5, 0, 7, 600)
    # An unknown actuator is refused as invalid.
    res = board.send("Actuator", seq=6, actuator=9, action=1, element=0)
    assert res.success and json.loads(res.reply.fields_json)["status"] == 2


def test_corrupted_bytes_resync_and_are_counted(graph):
    table = scenario(graph.tmp, opponent=None)
    board = Board(graph, table, "--corrupt-rate", "0.05", "--seed", "3")
    # Frames keep arriving, and the bridge's decoder counts the damaged ones.
    board.odometry_after(30)
    graph.spin_until(lambda: board.diagnostics.counter(LINK, "checksum", 0) + board.diagnostics.counter(LINK, "garbage_bytes", 0) > 0,
                     timeout=30.0, what="corruption counted on /diagnostics")
    # Commands get through too: Stop is acked despite the noise (retried: a Stop or its
    # Ack may be the damaged frame).
    for attempt in range(20):
        res = board.send("Stop", seq=attempt + 1)
        if res.success:
            assert json.loads(res.reply.fields_json)["command"] == 31
            break
    else:
        pytest.fail("no Stop acked in 20 tries at 5 % corruption")
    graph.stop(board.sim)
    out = graph.output(board.sim)
    assert "corrupted_bytes=" in out and "corrupted_bytes=0" not in out, out
