"""comms_bridge on a real graph, against the simulated device (comms_sim).

- UART over a pty: Ping on /comms/tx -> Pong on /comms/rx; an echoed packet; the
  /comms/send service answers with the reply (or says there is none, or times out);
- bad packets on /comms/tx (unknown name or id, bad JSON, out of range) are counted on
  /diagnostics and never reach the wire;
- the same round trips over CAN-over-UDP on 127.0.0.1 (free ports), devices included;
- the RobotikUTT reference vector: TestPacket foo=60 goes out and comes back as the
  reference frame bytes (definitions read in place from shared/reference/robotikutt);
- a missing packets_dir stops the node with an error naming the parameter.
"""
import json
import shutil


from helpers.graph import REFERENCE
from diagnostic_msgs.msg import DiagnosticStatus
from helpers.comms import Comms, PACKETS, start_can_udp, start_uart

ROBOTIKUTT = REFERENCE / "robotikutt"
# TestPacket {"foo": 60}, every other field at its default (RobotikUTT's spec example).
REFERENCE_FRAME = bytes.fromhex("0c 00 3c 01 ff ff 01 00 00 9a 99 19 3f 15")


def test_uart_ping_pong_echo_and_send_service(graph):
    bridge = start_uart(graph)
    comms = Comms(graph)

    comms.publish("Ping", {"seq": 7, "sent_ms": 99})
    pong = comms.wait_rx("Pong", seq=7)
    assert json.loads(pong.fields_json) == {"seq": 7, "sent_ms": 99}
    assert pong.id == 2 and pong.device == 0
    raw = bytes(pong.raw)
    assert raw[:2] == bytes([7, 2]) and len(raw) == 9, raw.hex()  # size 7, command 2, 6 B, xor

    comms.publish("SetLed", {"led": 3, "on": False})
    led = comms.wait_rx("SetLed", led=3)
    assert json.loads(led.fields_json) == {"led": 3, "on": False, "brightness": 255}  # echoed, defaults filled

    answer = comms.send("Ping", {"seq": 42})
    assert answer.success and answer.has_reply, answer.message
    assert answer.reply.name == "Pong" and json.loads(answer.reply.fields_json)["seq"] == 42
    assert len(answer.reply.raw) == 9

    answer = comms.send("SetLed", {"led": 1})
    assert answer.success and not answer.has_reply, answer.message
    assert "no reply" in answer.message

    comms.counters(tx_packets=4, rx_packets=4, requests=2, replies=1, tx_rejected=0, checksum=0)
    assert graph.stop(bridge) == 0
    assert "panicked" not in graph.output(bridge)


def test_bad_packets_are_counted_and_never_sent(graph):
    start_uart(graph)
    comms = Comms(graph)
    comms.publish("Nope")  # unknown name
    comms.publish("", id=99)  # unknown id
    comms.publish("SetLed", fields_json="{")  # not JSON
    comms.publish("SetLed", {"led": 300})  # out of range for uint8: never clamped
    comms.publish("SetLed", {"colour": 1})  # unknown field
    comms.publish("SetLed", {"led": 7})  # a good one behind them
    comms.wait_rx("SetLed", led=7)
    # The device echoes whatever reaches it: had a bad packet been sent, its echo would
    # have arrived before the good one's (one ordered link).
    assert [(m.name, json.loads(m.fields_json)["led"]) for m in comms.rx] == [("SetLed", 7)]

    answer = comms.send("SetLed", {"led": -1})
    assert not answer.success and "led" in answer.message, answer.message
    answer = comms.send("Ping", timeout_s=-1.0)
    assert not answer.success and "timeout_s" in answer.message, answer.message

    comms.counters(tx_rejected=5, send_rejected=2, tx_packets=1, rx_packets=1)
    assert not any(m.name != "SetLed" for m in comms.rx)


def test_send_service_times_out_when_the_reply_never_comes(graph, tmp_path):
    # The device's definitions name no reply for Ping: it echoes the Ping, never a Pong.
    sim_packets = tmp_path / "sim_packets"
    shutil.copytree(PACKETS, sim_packets)
    ping = json.loads((sim_packets / "ping.json").read_text())
    del ping["reply"]
    (sim_packets / "ping.json").write_text(json.dumps(ping))
    start_uart(graph, sim_packets=sim_packets)
    comms = Comms(graph)

    answer = comms.send("Ping", {"seq": 5}, timeout_s=0.2)
    assert not answer.success and not answer.has_reply
    assert "no Pong within 200 ms" in answer.message, answer.message
    assert comms.wait_rx("Ping", seq=5)  # the echo is still published
    comms.counters(requests=1, replies=0, reply_timeouts=1)


def test_a_lost_device_is_reported_and_does_not_stop_the_bridge(graph):
    bridge = start_uart(graph, link_retry_ms=50)
    comms = Comms(graph)
    assert comms.send("Ping").success
    assert graph.stop(graph.sim) == 0  # the pty goes away with the device
    assert "comms_sim: stopped; rx_packets=1 tx_packets=1" in graph.output(graph.sim)
    graph.sim.must_live = False
    comms.counters(link_up="false")
    status = comms.diagnostics.status("/comms_bridge: link")
    assert status.level == DiagnosticStatus.ERROR and "down" in status.message, status.message
    answer = comms.send("Ping")
    assert not answer.success and "not sent" in answer.message, answer.message
    assert bridge.poll() is None
    assert graph.stop(bridge) == 0


def test_can_over_udp_ping_pong_echo_and_send_service(graph):
    bridge = start_can_udp(graph, device=5)
    comms = Comms(graph)

    comms.publish("Ping", {"seq": 65535})  # device 0 -> the `device` parameter
    pong = comms.wait_rx("Pong", seq=65535)
    assert pong.device == 5
    raw = bytes(pong.raw)  # one datagram: u32 LE id (2 << 5 | 5), len 6, data
    assert raw[:5] == bytes([2 << 5 | 5, 0, 0, 0, 6]) and len(raw) == 11, raw.hex()

    # 15 bytes: two extended-id pages on the wire, one packet on either side.
    status = {"x_mm": 412.5, "y_mm": -3.25, "z_mm": 0.125, "moving": True, "error_code": -42}
    comms.publish("ArmStatus", status, device=9)
    echo = comms.wait_rx("ArmStatus", error_code=-42)
    assert json.loads(echo.fields_json) == status and echo.device == 9
    assert len(echo.raw) == 2 * 5 + 15

    answer = comms.send("Ping", {"seq": 3}, device=17)
    assert answer.success and answer.has_reply, answer.message
    assert (answer.reply.name, answer.reply.device) == ("Pong", 17)
    answer = comms.send("Ping", device=32)  # a CAN id carries 5 bits of device
    assert not answer.success and "32" in answer.message, answer.message

    comms.counters(tx_packets=3, rx_packets=3, send_failures=1, bad_can_frame=0, can_missing_page=0)
    assert graph.stop(bridge) == 0


def test_reference_vector_goes_out_and_comes_back_as_the_reference_frame(graph):
    assert (ROBOTIKUTT / "testPacket.json").exists()
    start_uart(graph, packets=ROBOTIKUTT)  # the folder's README.md is not a definition
    comms = Comms(graph)
    comms.publish("TestPacket", {"foo": 60})
    echo = comms.wait_rx("TestPacket", foo=60)
    assert bytes(echo.raw) == REFERENCE_FRAME, bytes(echo.raw).hex(" ")
    assert json.loads(echo.fields_json) == {"foo": 60, "foo2": 1, "foo3": -1, "foo4": 1, "foo5": False, "foo6": 0.6}
    assert echo.id == 0


def test_missing_packets_dir_is_a_clear_error(graph):
    graph.start_refused("comms_bridge", params={"transport": "uart", "serial_port": "/dev/null"},
                        expect="packets_dir")
