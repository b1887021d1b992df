"""A minimal Foxglove WebSocket client (foxglove.sdk.v1: JSON control messages, binary
message data) and waiting on it while the rclpy client spins.
"""
import asyncio
import json
import struct

import pytest
import websockets  # requirements-ros.txt
from rosbags.typesys import Stores, get_typestore


TYPES = get_typestore(Stores.ROS2_JAZZY)


TIMEOUT = 40.0  # generous: the machine may be loaded; never a timing assertion
# The bridge's status on /diagnostics (its counters).
CLIENTS = "/foxglove_bridge: clients"


class Client:
    """A minimal foxglove.sdk.v1 client: JSON control messages, binary message data."""

    def __init__(self, ws):
        self.ws = ws
        self.server_info = None
        self.channels = {}  # topic -> advertised channel
        self.advertised_topics = set()
        self.messages = []  # (subscription id, payload)
        self.statuses = []
        self.params = {}
        self.param_replies = []
        self.log_times = []  # (subscription id, log time) of each message
        self.times = []  # the server's time messages (time capability)
        self.assets = {}  # request id -> (status, error text, data)
        # The connection graph as the updates build it: name -> set of node ids.
        self.graph = {"published": {}, "subscribed": {}, "services": {}}
        self.graph_updates = 0
        self.services = {}  # name -> advertised service
        self.call_responses = {}  # call id -> response payload
        self.call_failures = {}  # call id -> message

    @classmethod
    async def connect(cls, url, subprotocol="foxglove.sdk.v1"):
        ws = await websockets.connect(url, subprotocols=[subprotocol], max_size=None)
        assert ws.subprotocol == subprotocol
        c = cls(ws)
        c.task = asyncio.ensure_future(c._read())
        return c

    async def _read(self):
        try:
            async for frame in self.ws:
                if isinstance(frame, bytes):
                    if frame[0] == 0x01:  # MessageData: u32 subscription, u64 time, payload
                        sub, log_time = struct.unpack_from("<IQ", frame, 1)
                        self.messages.append((sub, frame[13:]))
                        self.log_times.append((sub, log_time))
                    elif frame[0] == 0x02:  # Time: u64
                        self.times.append(struct.unpack_from("<Q", frame, 1)[0])
                    elif frame[0] == 0x03:  # ServiceCallResponse: u32 service, u32 call, u32 len, encoding, payload
                        _, call, n = struct.unpack_from("<III", frame, 1)
                        self.call_responses[call] = frame[13 + n:]
                    elif frame[0] == 0x04:  # FetchAssetResponse: u32 id, u8 status, u32 len, error, data
                        rid, status, n = struct.unpack_from("<IBI", frame, 1)
                        self.assets[rid] = (status, frame[10:10 + n].decode(), frame[10 + n:])
                    continue
                m = json.loads(frame)
                op = m.get("op")
                if op == "serverInfo":
                    self.server_info = m
                elif op == "advertise":
                    for ch in m["channels"]:
                        self.channels[ch["topic"]] = ch
                        self.advertised_topics.add(ch["topic"])
                elif op == "unadvertise":
                    for cid in m["channelIds"]:
                        for t, ch in list(self.channels.items()):
                            if ch["id"] == cid:
                                del self.channels[t]
                elif op == "status":
                    self.statuses.append(m)
                elif op == "parameterValues":
                    self.param_replies.append(m)
                elif op == "connectionGraphUpdate":
                    self.apply_graph_update(m)
                elif op == "advertiseServices":
                    for sv in m["services"]:
                        self.services[sv["name"]] = sv
                elif op == "unadvertiseServices":
                    gone = set(m["serviceIds"])
                    self.services = {k: v for k, v in self.services.items() if v["id"] not in gone}
                elif op == "serviceCallFailure":
                    self.call_failures[m["callId"]] = m["message"]
        except websockets.ConnectionClosed:
            pass

    def apply_graph_update(self, m):
        g = self.graph
        for t in m.get("publishedTopics", []):
            g["published"][t["name"]] = set(t["publisherIds"])
        for t in m.get("subscribedTopics", []):
            g["subscribed"][t["name"]] = set(t["subscriberIds"])
        for sv in m.get("advertisedServices", []):
            g["services"][sv["name"]] = set(sv["providerIds"])
        for name in m.get("removedTopics", []):
            g["published"].pop(name, None)
            g["subscribed"].pop(name, None)
        for name in m.get("removedServices", []):
            g["services"].pop(name, None)
        self.graph_updates += 1

    async def call_service(self, name, call_id, payload, encoding="cdr"):
        """ServiceCallRequest (binary 0x02): u32 service id, u32 call id, u32 encoding
        length, the encoding, the request bytes."""
        sid = self.services[name]["id"]
        enc = encoding.encode()
        await self.ws.send(struct.pack("<BIII", 0x02, sid, call_id, len(enc)) + enc + bytes(payload))

    async def send(self, obj):
        await self.ws.send(json.dumps(obj) if isinstance(obj, dict) else obj)

    async def close(self):
        await self.ws.close()
        self.task.cancel()


async def when_up(graph, connect):
    """`await connect()` (a WebSocket connection to the bridge), retried until the bridge
    listens: it opens its port only once it is set up."""
    loop = asyncio.get_running_loop()
    end = loop.time() + TIMEOUT
    while True:
        try:
            return await connect()
        except OSError:
            if loop.time() > end:
                pytest.fail("the bridge never accepted a connection\n" + graph.logs())
            await asyncio.sleep(0.1)


async def until(graph, predicate, what, timeout=TIMEOUT):
    """Waits (spinning the rclpy client node) until predicate() holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if predicate():
            return
        graph.executor.spin_once(timeout_sec=0)
        for p in graph.procs:
            if p.poll() is not None:
                pytest.fail(f"{p.name} exited with {p.returncode} while waiting for {what}:\n{graph.output(p)}")
        await asyncio.sleep(0.01)
    pytest.fail(f"timed out waiting for {what}\n" + graph.logs())


def decode(payload, type_name):
    return TYPES.deserialize_cdr(bytes(payload), type_name)
