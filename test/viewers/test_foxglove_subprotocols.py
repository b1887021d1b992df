"""arnie_foxglove speaks to every Foxglove client: one offering only `foxglove.websocket.v1`
(Lichtblick, @foxglove/ws-protocol, the ROS foxglove_bridge ecosystem) and one offering
`foxglove.sdk.v1` (Foxglove, the SDK) on the same port at the same time; anything else is
refused before the WebSocket opens, saying why, and counted. Python `websockets` clients,
rclpy as the independent publisher and subscriber.

- refusals: no subprotocol, an unknown one (HTTP 400 whose body names what was offered and
  the three accepted), a request that is not HTTP, a head too long, a head that never
  ends (400 after the 10 s handshake time);
  each counted on /diagnostics (`handshakes_refused`) and logged;
- a foxglove.websocket.v1 client gets that subprotocol back, serverInfo and the
  advertisements, subscribes and decodes (rosbags) the PointStamped rclpy publishes,
  advertises /fx/cmd the way @foxglove/ws-protocol does (no schema) and publishes a Point
  that rclpy receives; a foxglove.sdk.v1 client receives the same topic meanwhile;
- the hostile-client accounting applies to the websocket.v1 client: its garbage frame
  and unknown channel id are counted, and the sdk.v1 client keeps receiving;
- the protocol's own JS client (@foxglove/ws-protocol on node.js, pinned in
  test/viewers/foxglove_ws_protocol, installed by `cargo xtask test`; skipped, saying so, without
  node or the package) does the same.
"""
import asyncio
import base64
import json
import shutil
import struct
from pathlib import Path

import pytest
import websockets
from geometry_msgs.msg import Point, PointStamped
from websockets.exceptions import InvalidStatus
from helpers.diagnostics import Diagnostics
from helpers.foxglove import CLIENTS, TIMEOUT, TYPES, Client, decode, until, when_up
from helpers.ports import free_tcp_port


ACCEPTED = "this server speaks foxglove.sdk.v1.1, foxglove.sdk.v1, foxglove.websocket.v1"


async def connect(g, url, subprotocols):
    """A Client (test_foxglove's reader) on a connection offering `subprotocols`; retried
    until the bridge listens."""
    ws = await when_up(g, lambda: websockets.connect(url, subprotocols=subprotocols, max_size=None))
    c = Client(ws)
    c.task = asyncio.ensure_future(c._read())
    return c


async def refused(url, subprotocols):
    """The HTTP response to a handshake the bridge must refuse: (status, body text)."""
    with pytest.raises(InvalidStatus) as e:
        await websockets.connect(url, subprotocols=subprotocols)
    return e.value.response.status_code, e.value.response.body.decode()


async def raw_refusal(port, request):
    """Sends `request` on a plain TCP connection and reads the answer until it is closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), TIMEOUT)
    writer.close()
    return answer.decode(errors="replace")


class Stream:
    """The bridge (topics /fx/*, publishing on /fx/cmd) and a PointStamped stream on
    /fx/point published by rclpy at 50 Hz, each with x = i and y = slope * i."""

    def __init__(self, g, frame, slope):
        self.g, self.frame, self.slope = g, frame, slope
        self.port = free_tcp_port()
        self.url = f"ws://127.0.0.1:{self.port}"
        self.bridge = g.start("foxglove_bridge", params={
            "port": self.port, "topic_allow": "/fx/.*", "publish_allow": "/fx/cmd", "discovery_ms": 200})
        self.pub = g.node.create_publisher(PointStamped, "/fx/point", 10)
        self.commands = g.collect(Point, "/fx/cmd")
        self.published = {}  # x -> y of every PointStamped sent
        self.task = None

    async def start(self):
        async def publish_forever():
            i = 0
            while True:
                i += 1
                m = PointStamped()
                m.header.frame_id = self.frame
                m.point = Point(x=float(i), y=self.slope * i, z=0.25)
                self.published[float(i)] = self.slope * i
                self.pub.publish(m)
                await asyncio.sleep(0.02)

        self.task = asyncio.ensure_future(publish_forever())
        await until(self.g, lambda: "/foxglove_bridge" in self.g.node_names(), "the bridge node")

    def check(self, payload):
        """A received payload decodes to a PointStamped this stream published."""
        p = decode(payload, "geometry_msgs/msg/PointStamped")
        assert p.header.frame_id == self.frame and self.published.get(p.point.x) == p.point.y and p.point.z == 0.25, p


def test_websocket_v1_and_sdk_v1_clients_together(graph):
    asyncio.run(scenario(graph))


async def scenario(g):
    stream = Stream(g, "world", 3.0)
    bridge, port, url, node, commands = stream.bridge, stream.port, stream.url, g.node, stream.commands
    diagnostics = Diagnostics(g)
    await stream.start()
    legacy = await connect(g, url, ["foxglove.websocket.v1"])
    sdk = await connect(g, url, ["foxglove.sdk.v1"])
    # a head that never ends: refused after the handshake time (10 s), while the rest runs
    slow = asyncio.ensure_future(raw_refusal(port, b"GET / HTTP/1.1\r\nHost: slow\r\n"))
    try:
        # the subprotocol each offered comes back
        assert legacy.ws.subprotocol == "foxglove.websocket.v1"
        assert sdk.ws.subprotocol == "foxglove.sdk.v1"

        # refusals: before the WebSocket opens, saying why
        status, body = await refused(url, None)
        assert status == 400 and "no Sec-WebSocket-Protocol offered" in body and ACCEPTED in body, body
        status, body = await refused(url, ["foxglove.sdk.v2", "chat"])
        assert status == 400 and "subprotocol foxglove.sdk.v2, chat not supported" in body and ACCEPTED in body, body
        answer = await raw_refusal(port, b"\x16\x03\x01 not http\r\n\r\n")
        assert answer.startswith("HTTP/1.1 400 ") and "malformed HTTP request" in answer, answer
        answer = await raw_refusal(port, b"GET / HTTP/1.1\r\nX: " + b"a" * 20000)
        assert answer.startswith("HTTP/1.1 400 ") and "HTTP head longer than" in answer, answer

        # serverInfo and the advertisements, to both
        for c in (legacy, sdk):
            await until(g, lambda: c.server_info is not None and "/fx/point" in c.channels, "serverInfo and /fx/point")
            assert "clientPublish" in c.server_info["capabilities"], c.server_info
            ch = c.channels["/fx/point"]
            assert (ch["encoding"], ch["schemaEncoding"], ch["schemaName"]) == (
                "cdr", "ros2msg", "geometry_msgs/msg/PointStamped"), ch
        assert legacy.channels["/fx/point"] == sdk.channels["/fx/point"]

        # both subscribe; both receive and decode what rclpy published
        await legacy.send({"op": "subscribe", "subscriptions": [{"id": 0, "channelId": legacy.channels["/fx/point"]["id"]}]})
        await sdk.send({"op": "subscribe", "subscriptions": [{"id": 5, "channelId": sdk.channels["/fx/point"]["id"]}]})
        for c, sub in ((legacy, 0), (sdk, 5)):
            await until(g, lambda: sum(1 for s, _ in c.messages if s == sub) >= 10, f"10 PointStamped on subscription {sub}")
            for s, payload in c.messages:
                assert s == sub, f"a message on subscription {s} never asked for"
                stream.check(payload)

        # client publish from the websocket.v1 client, advertised as @foxglove/ws-protocol does
        await legacy.send({"op": "advertise", "channels": [
            {"id": 1, "topic": "/fx/cmd", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Point"}]})
        await until(g, lambda: node.count_publishers("/fx/cmd") > 0, "the bridge's publisher on /fx/cmd")
        cdr = bytes(TYPES.serialize_cdr(TYPES.types["geometry_msgs/msg/Point"](x=0.5, y=-1.5, z=2.0),
                                        "geometry_msgs/msg/Point"))
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        while not commands and loop.time() < end:
            await legacy.send(b"\x01" + struct.pack("<I", 1) + cdr)
            await asyncio.sleep(0.1)
            g.executor.spin_once(timeout_sec=0)
        assert commands, "no message of the websocket.v1 client reached the rclpy subscriber\n" + g.logs()
        assert (commands[0].x, commands[0].y, commands[0].z) == (0.5, -1.5, 2.0)

        # hostile input from the websocket.v1 client is counted; the sdk.v1 client keeps receiving
        await legacy.send("this is not json")
        await legacy.send({"op": "subscribe", "subscriptions": [{"id": 9, "channelId": 987654}]})
        before = sum(1 for s, _ in sdk.messages if s == 5)
        await until(g, lambda: sum(1 for s, _ in sdk.messages if s == 5) >= before + 10, "sdk.v1 client still receiving")

        answer = await slow
        assert answer.startswith("HTTP/1.1 400 ") and "no whole HTTP head within the handshake time" in answer, answer

        def counted():
            return any(int(c["handshakes_refused"]) >= 5 and int(c["websocket_v1_clients"]) >= 1
                       and int(c["sdk_v1_clients"]) >= 1 and int(c["garbage_frames"]) >= 1
                       and int(c["unknown_channel_ids"]) >= 1 and int(c["clients"]) == 2 for c in diagnostics.history(CLIENTS))
        await until(g, counted, "refusals, both kinds of clients and the hostile input counted on /diagnostics")
        assert bridge.poll() is None
    finally:
        stream.task.cancel()
        slow.cancel()
        await legacy.close()
        await sdk.close()
    log = g.output(bridge)
    assert "WebSocket handshake refused: no Sec-WebSocket-Protocol offered" in log, log[-3000:]
    assert "subprotocol foxglove.websocket.v1 accepted" in log, log[-3000:]


WS_PROTOCOL = Path(__file__).parent / "foxglove_ws_protocol"


def test_the_ws_protocol_js_client(graph):
    """The protocol's own client, @foxglove/ws-protocol (foxglove.websocket.v1) on node.js:
    it gets its subprotocol, serverInfo and the advertisements, decodes nothing it does not
    know (no `error` event), receives the PointStamped rclpy publishes and publishes a
    Point that rclpy receives; a foxglove.sdk.v1 client receives the same topic meanwhile."""
    node_js = shutil.which("node")
    if node_js is None:
        pytest.skip("node.js is not installed (`node` not on PATH): the ws-protocol JS client cannot run")
    if not (WS_PROTOCOL / "node_modules" / "@foxglove" / "ws-protocol").exists():
        pytest.skip(f"@foxglove/ws-protocol is not installed in {WS_PROTOCOL} (`cargo xtask test` installs it with npm)")
    asyncio.run(js_scenario(graph, node_js))


async def js_scenario(g, node_js):
    stream = Stream(g, "js", -1.0)
    url, commands = stream.url, stream.commands
    await stream.start()
    sdk = await connect(g, url, ["foxglove.sdk.v1"])
    await until(g, lambda: "/fx/point" in sdk.channels, "/fx/point advertised to the sdk.v1 client")
    await sdk.send({"op": "subscribe", "subscriptions": [{"id": 3, "channelId": sdk.channels["/fx/point"]["id"]}]})
    cdr = bytes(TYPES.serialize_cdr(TYPES.types["geometry_msgs/msg/Point"](x=4.0, y=5.0, z=6.0),
                                    "geometry_msgs/msg/Point"))
    js = await asyncio.create_subprocess_exec(
        node_js, str(WS_PROTOCOL / "client.js"), url, "/fx/point", "/fx/cmd", "geometry_msgs/msg/Point", cdr.hex(),
        cwd=WS_PROTOCOL, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    events = []

    async def read_events():
        async for line in js.stdout:
            events.append(json.loads(line))

    reader = asyncio.ensure_future(read_events())

    def of(kind):
        return [e for e in events if e["event"] == kind]

    try:
        await until(g, lambda: len(of("message")) >= 10 or js.returncode is not None, "10 messages at the JS client")
        assert js.returncode is None, f"the JS client ended: {events}\n{(await js.stderr.read()).decode()}"
        assert of("open") and of("open")[0]["protocol"] == "foxglove.websocket.v1", events[:3]
        info = of("serverInfo")[0]["info"]
        assert "clientPublish" in info["capabilities"] and "cdr" in info["supportedEncodings"], info
        channels = {c["topic"]: c for e in of("advertise") for c in e["channels"]}
        assert channels["/fx/point"]["schemaName"] == "geometry_msgs/msg/PointStamped", channels
        for e in of("message"):
            stream.check(base64.b64decode(e["data"]))
        await until(g, lambda: bool(commands), "the JS client's Point at the rclpy subscriber")
        assert (commands[0].x, commands[0].y, commands[0].z) == (4.0, 5.0, 6.0)
        before = sum(1 for s, _ in sdk.messages if s == 3)
        await until(g, lambda: sum(1 for s, _ in sdk.messages if s == 3) >= before + 10, "the sdk.v1 client receiving meanwhile")
        assert not of("error"), of("error")
    finally:
        stream.task.cancel()
        if js.returncode is None:
            js.stdin.close()
            try:
                await asyncio.wait_for(js.wait(), TIMEOUT)
            except asyncio.TimeoutError:
                js.kill()
                await js.wait()
        await reader
        await sdk.close()
    assert js.returncode == 0, (await js.stderr.read()).decode()
    assert of("close"), events[-3:]
