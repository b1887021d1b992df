"""comms_bridge's caps on outside input, on a real graph against comms_sim (a pty):

- `max_requests_in_flight`: /comms/send requests waiting for their reply are bounded; one
  more is answered at once with outcome REJECTED and the reason, counted on /diagnostics
  (send_rejected, refused_in_flight); the cap is live (`ros2 param set`), an invalid value
  is refused with the reason, a start-only parameter says so;
- `max_fields_json_bytes`: a /comms/send request or a /comms/tx message whose fields_json
  is longer is refused before parsing (REJECTED, counted as refused_too_large; tx_rejected
  for /comms/tx) and never reaches the wire; a good packet behind it still goes out;
- the other refusals carry their own outcome codes (UNKNOWN_PACKET, INVALID_FIELDS).
"""
import json
import shutil

from arnie_interfaces.msg import Packet
from arnie_interfaces.srv import SendPacket
from helpers.comms import PACKETS, Comms, start_uart

R = SendPacket.Response


def request(name, fields_json="{}", timeout_s=5.0):
    req = SendPacket.Request(timeout_s=timeout_s)
    req.packet = Packet(name=name, fields_json=fields_json)
    return req


def silent_ping_packets(tmp_path):
    """Definitions for the device whose Ping names no reply: it echoes Pings, never a Pong,
    so the bridge's Ping requests wait for their whole timeout."""
    sim_packets = tmp_path / "sim_packets"
    shutil.copytree(PACKETS, sim_packets)
    ping = json.loads((sim_packets / "ping.json").read_text())
    del ping["reply"]
    (sim_packets / "ping.json").write_text(json.dumps(ping))
    return sim_packets


def test_requests_in_flight_are_capped_and_the_cap_is_live(graph, tmp_path):
    bridge = start_uart(graph, sim_packets=silent_ping_packets(tmp_path), max_requests_in_flight=2)
    comms = Comms(graph)

    # Two requests that wait for the longest timeout there is (an hour): they are still
    # waiting at the end however slowly a loaded machine runs the `ros2 param` calls
    # below (60 s was once not enough: both timed out before the last count).
    waiting = [comms.client.call_async(request("Ping", json.dumps({"seq": s}), 3600.0)) for s in (1, 2)]
    comms.counters(requests_in_flight=2, requests=2)
    answer = comms.send("Ping", {"seq": 3})
    assert answer.outcome == R.REJECTED and not answer.success, answer.message
    assert "max_requests_in_flight 2" in answer.message, answer.message
    comms.counters(send_rejected=1, refused_in_flight=1, requests=2)
    assert not any(f.done() for f in waiting)

    # The cap is checked and live.
    r = graph.param("set", "/comms_bridge", "max_requests_in_flight", "0")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "max_requests_in_flight: 0 is outside 1..=4096" in out, out
    r = graph.param("set", "/comms_bridge", "transport", "can_udp")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "read only at start" in out, out
    r = graph.param("describe", "/comms_bridge", "max_requests_in_flight")
    assert "1..=4096" in r.stdout and "Next request" in r.stdout, r.stdout + r.stderr
    r = graph.param("set", "/comms_bridge", "max_requests_in_flight", "3")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr

    # Now a third one is taken: it waits like the others (a short timeout, so it ends).
    answer = comms.send("Ping", {"seq": 4}, timeout_s=0.2)
    assert answer.outcome == R.TIMEOUT and "no Pong within 200 ms" in answer.message, answer.message
    comms.counters(requests=3, reply_timeouts=1, send_rejected=1, refused_in_flight=1)
    assert graph.stop(bridge) == 0
    assert "panicked" not in graph.output(bridge)


def test_oversized_and_bad_packets_are_refused_with_their_outcome(graph):
    bridge = start_uart(graph, max_fields_json_bytes=64)
    comms = Comms(graph)

    big = json.dumps({"led": 5, "on": True}) + " " * 64  # valid JSON, over the cap
    answer = graph.wait_future(comms.client.call_async(request("SetLed", big)), what="/comms/send SetLed (big)")
    assert answer.outcome == R.REJECTED and not answer.success, answer.message
    assert "max_fields_json_bytes 64" in answer.message, answer.message

    comms.publish("SetLed", fields_json=json.dumps({"led": 6}) + " " * 64)  # refused, never sent
    comms.publish("SetLed", {"led": 7})  # a good one behind it
    comms.wait_rx("SetLed", led=7)
    # One ordered link: had the big one been sent, its echo would have come first.
    assert [json.loads(m.fields_json)["led"] for m in comms.rx] == [7]

    answer = comms.send("Nope")
    assert answer.outcome == R.UNKNOWN_PACKET and not answer.success, answer.message
    answer = comms.send("SetLed", {"led": 300})
    assert answer.outcome == R.INVALID_FIELDS and "led" in answer.message, answer.message
    answer = comms.send("SetLed", {"led": 1})
    assert answer.outcome == R.OK and answer.success, answer.message

    comms.counters(refused_too_large=2, tx_rejected=1, send_rejected=3, tx_packets=2, requests=1)
    assert [json.loads(m.fields_json)["led"] for m in comms.rx if m.name == "SetLed"][:1] == [7]
    assert graph.stop(bridge) == 0
