"""comms_bridge against the simulated device (comms_sim) over a pty or CAN-over-UDP, and
the client side (/comms/tx, /comms/rx, /comms/send, the bridge's counters).
"""
import json

import pytest
from arnie_interfaces.msg import Packet
from arnie_interfaces.srv import SendPacket

from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT


PACKETS = ROOT / "nodes" / "lib" / "arnie_packets" / "packets"


def start_sim(graph, packets, *mode):
    """Starts comms_sim; returns its link (the pty slave path or the UDP address)."""
    link_file = graph.tmp / f"comms_sim-{len(graph.procs)}.link"
    graph.sim = graph.start("comms_sim", "--packets", str(packets), *mode, "--link-file", str(link_file))
    graph.spin_until(link_file.exists, what="comms_sim's link file")
    return link_file.read_text().strip()


def start_uart(graph, packets=PACKETS, sim_packets=None, **params):
    pty = start_sim(graph, sim_packets or packets, "pty")
    return graph.start(
        "comms_bridge",
        params_file=ROOT / "params" / "comms_bridge.yaml",  # the shipped file loads; -p overrides it
        params=dict(packets_dir=str(packets), transport="uart", serial_port=pty, **params),
    )


def start_can_udp(graph, packets=PACKETS, **params):
    addr = start_sim(graph, packets, "can_udp", "--bind", "127.0.0.1:0")
    return graph.start(
        "comms_bridge",
        params=dict(packets_dir=str(packets), transport="can_udp", udp_bind="127.0.0.1:0", udp_peer=addr, **params),
    )


class Comms:
    """The client side: /comms/tx publisher, /comms/rx subscription, /comms/send client."""

    def __init__(self, graph):
        self.graph = graph
        self.rx = []
        self.tx = graph.node.create_publisher(Packet, "/comms/tx", 10)
        self.sub = graph.node.create_subscription(Packet, "/comms/rx", self.rx.append, 10)
        self.client = graph.node.create_client(SendPacket, "/comms/send")
        self.diagnostics = Diagnostics(graph)
        graph.spin_until(
            lambda: self.tx.get_subscription_count() > 0 and self.sub.get_publisher_count() > 0,
            what="/comms/tx and /comms/rx matched with the bridge",
        )
        # Then the service; its discovery margin also covers the bridge's side of the
        # topic matches (see helpers/graph.py).
        graph.wait_for_service(self.client, "/comms/send")

    def publish(self, name="", fields=None, id=0, device=0, fields_json=None):
        msg = Packet(name=name, id=id, device=device)
        msg.fields_json = fields_json if fields_json is not None else json.dumps(fields or {})
        self.tx.publish(msg)

    def wait_rx(self, name, what=None, **fields):
        """The first received packet named `name` whose fields include `fields`."""

        def find():
            for m in self.rx:
                if m.name == name and fields.items() <= json.loads(m.fields_json).items():
                    return m
            return None

        self.graph.spin_until(lambda: find() is not None, what=what or f"{name} {fields} on /comms/rx")
        return find()

    def send(self, name, fields=None, timeout_s=5.0, device=0):
        req = SendPacket.Request(timeout_s=timeout_s)
        req.packet = Packet(name=name, device=device, fields_json=json.dumps(fields or {}))
        return self.graph.wait_future(self.client.call_async(req), timeout=timeout_s + 15.0, what=f"/comms/send {name}")

    def counters(self, **expected):
        """Waits for a /diagnostics status of the bridge whose counters include `expected`."""

        def values():
            return self.diagnostics.values("/comms_bridge: link")

        want = {k: str(v) for k, v in expected.items()}
        seen = {}

        def check():
            seen.update(values())
            return want.items() <= seen.items()

        try:
            self.graph.spin_until(check, what=f"/diagnostics with {want}")
        except pytest.fail.Exception as e:
            pytest.fail(f"{e}\nlast counters seen: {seen}")
        return values()
