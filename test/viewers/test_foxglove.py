"""arnie_foxglove on a real graph, seen by a headless Foxglove client (Python `websockets`,
subprotocol foxglove.sdk.v1), with rclpy as the independent publisher and subscriber.

One bridge, one graph, several clients:
- serverInfo and the advertisements: every allowed topic with its ros2msg schema (the
  full definition, checked against the .msg files of the install) and encoding cdr; a
  denied topic is never advertised;
- subscriptions: a PointStamped published by rclpy at 50 Hz and a latched String arrive
  as CDR and decode (rosbags) to the values published; a topic no client subscribes to
  has no subscription of the bridge on the graph; after the last unsubscribe the
  bridge's subscription goes; a client that subscribes late gets the latched message;
- parameters: get and set through a node's parameter services (rclpy's);
- client publishing: allowed on /fx/cmd (reaches rclpy), refused elsewhere (a status
  message, counted on /diagnostics);
- hostile input: garbage frames, unknown channel ids, a subscribe storm: the bridge
  stays up, counts them on /diagnostics, and another client keeps receiving.
"""
import asyncio
import os
import struct
from pathlib import Path

import pytest
from geometry_msgs.msg import Point, PointStamped
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from helpers.diagnostics import Diagnostics
from helpers.ports import free_tcp_port
from helpers.foxglove import CLIENTS, TIMEOUT, TYPES, Client, decode, until, when_up
from helpers import qos


def msg_file(type_name):
    """The .msg text of pkg/msg/Type from the install (as the recorder reads it)."""
    pkg, _, name = type_name.split("/")
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        p = Path(prefix) / "share" / pkg / "msg" / f"{name}.msg"
        if p.exists():
            return p.read_text()
    pytest.fail(f"{type_name}: no .msg on AMENT_PREFIX_PATH")


def test_foxglove_bridge(graph):
    asyncio.run(scenario(graph))


async def scenario(g):
    port = free_tcp_port()
    bridge = g.start("foxglove_bridge", params={
        "port": port, "topic_allow": "/fx/.*", "topic_deny": "/fx/hidden",
        "publish_allow": "/fx/cmd", "discovery_ms": 200, "storm_ops_per_s": 100})
    node = g.node
    point_pub = node.create_publisher(PointStamped, "/fx/point", 10)
    latched_qos = qos.latched(1)
    latched_pub = node.create_publisher(String, "/fx/latched", latched_qos)
    latched_pub.publish(String(data="hello latched"))
    hidden_pub = node.create_publisher(String, "/fx/hidden", 10)
    quiet_pub = node.create_publisher(String, "/fx/quiet", 10)
    commands = g.collect(Point, "/fx/cmd")
    diagnostics = Diagnostics(g)
    node.declare_parameter("gain", 1.0)
    published = {}  # x -> y of every PointStamped sent

    async def publish_forever():
        i = 0
        while True:
            i += 1
            m = PointStamped()
            m.header.frame_id = "world"
            m.point = Point(x=float(i), y=2.0 * i, z=0.5)
            published[float(i)] = 2.0 * i
            point_pub.publish(m)
            hidden_pub.publish(String(data="secret"))
            quiet_pub.publish(String(data="quiet"))
            await asyncio.sleep(0.02)

    publisher = asyncio.ensure_future(publish_forever())
    await until(g, lambda: "/foxglove_bridge" in g.node_names(), "the bridge node")
    url = f"ws://127.0.0.1:{port}"

    c1 = await when_up(g, lambda: Client.connect(url))
    try:
        # serverInfo and advertisements
        await until(g, lambda: c1.server_info is not None, "serverInfo")
        info = c1.server_info
        assert "clientPublish" in info["capabilities"] and "parameters" in info["capabilities"], info
        assert "cdr" in info.get("supportedEncodings", []), info
        await until(g, lambda: {"/fx/point", "/fx/latched", "/fx/quiet"} <= set(c1.channels), "the advertisements")
        ch = c1.channels["/fx/point"]
        assert ch["encoding"] == "cdr" and ch["schemaEncoding"] == "ros2msg", ch
        assert ch["schemaName"] == "geometry_msgs/msg/PointStamped", ch
        schema = ch["schema"]
        assert schema.startswith(msg_file("geometry_msgs/msg/PointStamped")), schema
        assert "\nMSG: std_msgs/Header\n" + msg_file("std_msgs/msg/Header") in schema, schema
        assert "MSG: geometry_msgs/Point\n" in schema and "MSG: builtin_interfaces/Time\n" in schema, schema

        # nothing is subscribed on the graph until a client subscribes
        assert node.count_subscribers("/fx/point") == 0
        await c1.send({"op": "subscribe", "subscriptions": [
            {"id": 1, "channelId": c1.channels["/fx/point"]["id"]},
            {"id": 2, "channelId": c1.channels["/fx/latched"]["id"]}]})
        await until(g, lambda: sum(1 for s, _ in c1.messages if s == 1) >= 10, "10 PointStamped messages")
        await until(g, lambda: any(s == 2 for s, _ in c1.messages), "the latched message")
        for sub, payload in c1.messages:
            if sub == 1:
                p = decode(payload, "geometry_msgs/msg/PointStamped")
                assert p.header.frame_id == "world"
                assert published.get(p.point.x) == p.point.y and p.point.z == 0.5, p
            else:
                assert sub == 2, f"a message on subscription {sub} never asked for"
                assert decode(payload, "std_msgs/msg/String").data == "hello latched"
        # the topic nobody subscribes to: no subscription of the bridge on the graph
        assert node.count_subscribers("/fx/quiet") == 0

        # a second client subscribes late to the latched topic: replayed to it
        c2 = await when_up(g, lambda: Client.connect(url))
        await until(g, lambda: "/fx/latched" in c2.channels and "/fx/point" in c2.channels, "c2's advertisements")
        await c2.send({"op": "subscribe", "subscriptions": [
            {"id": 7, "channelId": c2.channels["/fx/latched"]["id"]},
            {"id": 8, "channelId": c2.channels["/fx/point"]["id"]}]})
        await until(g, lambda: any(s == 7 for s, _ in c2.messages), "the latched message replayed to c2")
        assert decode(next(p for s, p in c2.messages if s == 7), "std_msgs/msg/String").data == "hello latched"

        # parameters through the nodes' parameter services (rclpy's node answers)
        await c1.send({"op": "getParameters", "parameterNames": ["/arnie_test_client.gain"], "id": "g1"})
        await until(g, lambda: any(r.get("id") == "g1" for r in c1.param_replies), "getParameters reply")
        reply = next(r for r in c1.param_replies if r.get("id") == "g1")
        assert reply["parameters"] == [{"name": "/arnie_test_client.gain", "type": "float64", "value": 1.0}], reply
        await c1.send({"op": "setParameters", "parameters": [{"name": "/arnie_test_client.gain", "value": 2.5}], "id": "s1"})
        await until(g, lambda: node.get_parameter("gain").value == 2.5, "gain set to 2.5 through the bridge")
        assert node.get_parameter("gain").type_ == Parameter.Type.DOUBLE

        # client publishing: allowed topic reaches rclpy, a disallowed one is refused
        await c1.send({"op": "advertise", "channels": [
            {"id": 1, "topic": "/fx/cmd", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Point"},
            {"id": 2, "topic": "/fx/forbidden", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Point"}]})
        await until(g, lambda: any("/fx/forbidden" in s["message"] and s["level"] == 2 for s in c1.statuses),
                    "the refusal of /fx/forbidden")
        await until(g, lambda: node.count_publishers("/fx/cmd") > 0, "the bridge's publisher on /fx/cmd")
        assert node.count_publishers("/fx/forbidden") == 0
        cdr = bytes(TYPES.serialize_cdr(TYPES.types["geometry_msgs/msg/Point"](x=1.5, y=2.5, z=3.5),
                                        "geometry_msgs/msg/Point"))
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        while not commands and loop.time() < end:
            await c1.send(b"\x01" + struct.pack("<I", 1) + cdr)
            await c1.send(b"\x01" + struct.pack("<I", 2) + cdr)  # refused channel: dropped
            await asyncio.sleep(0.1)
            g.executor.spin_once(timeout_sec=0)
        assert commands, "no client message reached the rclpy subscriber\n" + g.logs()
        assert (commands[0].x, commands[0].y, commands[0].z) == (1.5, 2.5, 3.5)

        # the last unsubscribe drops the bridge's subscription (c2 still has /fx/point)
        await c1.send({"op": "unsubscribe", "subscriptionIds": [1]})

        # hostile client: garbage, unknown channel ids, a subscribe storm
        c3 = await when_up(g, lambda: Client.connect(url))
        await until(g, lambda: "/fx/point" in c3.channels, "c3's advertisements")
        await c3.send("this is not json")
        await c3.send(b"\xff\x00garbage")
        await c3.send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": 987654}]})
        await c3.send(b"\x01" + struct.pack("<I", 4242) + b"\x00\x01\x00\x00")
        point_id = c3.channels["/fx/point"]["id"]
        for i in range(2000):
            await c3.send({"op": "subscribe", "subscriptions": [{"id": 100 + i, "channelId": point_id}]})
            await c3.send({"op": "unsubscribe", "subscriptionIds": [100 + i]})
        # c2 keeps receiving after the storm
        before = sum(1 for s, _ in c2.messages if s == 8)
        await until(g, lambda: sum(1 for s, _ in c2.messages if s == 8) >= before + 10, "c2 still receiving after the storm")

        def counted():
            return any(int(c["garbage_frames"]) >= 2 and int(c["unknown_channel_ids"]) >= 2 and int(c["storm_ops"]) > 0
                       and int(c["publish_refused"]) >= 1 and int(c["publish_dropped"]) >= 1 for c in diagnostics.history(CLIENTS))
        await until(g, counted, "the hostile input counted on /diagnostics")
        assert bridge.poll() is None

        # after c2 unsubscribes too, nobody wants /fx/point: the bridge's subscription goes
        await c2.send({"op": "unsubscribe", "subscriptionIds": [8]})
        await until(g, lambda: node.count_subscribers("/fx/point") == 0, "the bridge unsubscribing /fx/point")
        assert "/fx/hidden" not in c1.advertised_topics | c2.advertised_topics | c3.advertised_topics
        await c3.close()
        await c2.close()
    finally:
        publisher.cancel()
        await c1.close()
    log = g.output(bridge)
    assert "refused" in log or "not allowed" in log, log[-3000:]


def test_parameters_are_checked_at_start_and_read_only_after(graph):
    """Every parameter is checked at start (exit 2 with the reason) and read only at start:
    `ros2 param set` is refused, saying so, and the value is kept."""
    graph.start_refused("foxglove_bridge", params={"port": free_tcp_port(), "discovery_ms": 0},
                        expect="discovery_ms must be in 10..=60000 [ms], got 0")
    graph.start_refused("foxglove_bridge", params={"port": free_tcp_port(), "topic_deny": "("},
                        expect="topic_deny")
    port = free_tcp_port()
    bridge = graph.start("foxglove_bridge", params={"port": port, "discovery_ms": 200})
    graph.param_refused("/foxglove_bridge", "discovery_ms", "20", "read only at start")
    graph.param_refused("/foxglove_bridge", "port", "1", "read only at start")
    assert graph.param("get", "/foxglove_bridge", "port").stdout.strip().endswith(str(port))
    described = graph.param("describe", "/foxglove_bridge", "discovery_ms").stdout
    assert "10..=60000" in described and "Start only" in described, described
    assert graph.stop(bridge) == 0


def test_any_installed_type_and_every_latched_publisher(graph):
    """Types not compiled into r2r stream and publish (their type support is loaded at run
    time), and a latched topic with three publishers reaches a late client from each of
    them even with latched_depth:=1 (the kept depth is the publishers' summed depths)."""
    asyncio.run(any_type_scenario(graph))


async def any_type_scenario(g):
    from lifecycle_msgs.msg import State, Transition, TransitionEvent
    from rclpy.serialization import deserialize_message, serialize_message
    port = free_tcp_port()
    g.start("foxglove_bridge", params={
        "port": port, "topic_allow": "/fx/.*", "publish_allow": "/fx/lifecycle_cmd",
        "discovery_ms": 200, "latched_depth": 1})
    node = g.node
    events = node.create_publisher(TransitionEvent, "/fx/lifecycle", 10)
    latched_qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    latched = [node.create_publisher(String, "/fx/latched_many", latched_qos) for _ in range(3)]
    for i, p in enumerate(latched):
        p.publish(String(data=f"from publisher {i}"))
    commands = g.collect(TransitionEvent, "/fx/lifecycle_cmd")
    sent = []

    async def publish_forever():
        i = 0
        while True:
            i += 1
            m = TransitionEvent(timestamp=i, transition=Transition(id=3, label="activate"),
                                start_state=State(id=2, label="inactive"), goal_state=State(id=3, label="active"))
            sent.append(i)
            events.publish(m)
            await asyncio.sleep(0.02)

    publisher = asyncio.ensure_future(publish_forever())
    await until(g, lambda: "/foxglove_bridge" in g.node_names(), "the bridge node")
    url = f"ws://127.0.0.1:{port}"
    loop = asyncio.get_running_loop()
    c1 = await when_up(g, lambda: Client.connect(url))
    try:
        await until(g, lambda: {"/fx/lifecycle", "/fx/latched_many"} <= set(c1.channels), "the advertisements")
        ch = c1.channels["/fx/lifecycle"]
        assert ch["schemaName"] == "lifecycle_msgs/msg/TransitionEvent", ch
        assert ch["schema"].startswith(msg_file("lifecycle_msgs/msg/TransitionEvent")), ch["schema"]
        await c1.send({"op": "subscribe", "subscriptions": [
            {"id": 1, "channelId": ch["id"]},
            {"id": 2, "channelId": c1.channels["/fx/latched_many"]["id"]}]})
        await until(g, lambda: sum(1 for s, _ in c1.messages if s == 1) >= 10, "10 TransitionEvents")
        for sub, payload in c1.messages:
            if sub == 1:
                m = deserialize_message(bytes(payload), TransitionEvent)
                assert m.timestamp in sent and m.goal_state.label == "active", m
        await until(g, lambda: sum(1 for s, _ in c1.messages if s == 2) >= 3, "every latched publisher's message")

        # A second client, late: the bridge replays every publisher's latched message.
        c2 = await Client.connect(url)
        await until(g, lambda: "/fx/latched_many" in c2.channels, "c2's advertisements")
        await c2.send({"op": "subscribe", "subscriptions": [{"id": 5, "channelId": c2.channels["/fx/latched_many"]["id"]}]})
        await until(g, lambda: sum(1 for s, _ in c2.messages if s == 5) >= 3, "3 latched messages replayed to c2")
        got = sorted(decode(p, "std_msgs/msg/String").data for s, p in c2.messages if s == 5)
        assert got == [f"from publisher {i}" for i in range(3)], got
        await c2.close()

        # The client publishes a type r2r was not built with.
        await c1.send({"op": "advertise", "channels": [
            {"id": 1, "topic": "/fx/lifecycle_cmd", "encoding": "cdr", "schemaName": "lifecycle_msgs/msg/TransitionEvent"}]})
        await until(g, lambda: node.count_publishers("/fx/lifecycle_cmd") > 0, "the bridge's publisher on /fx/lifecycle_cmd")
        cdr = serialize_message(TransitionEvent(timestamp=77, goal_state=State(id=3, label="active")))
        end = loop.time() + TIMEOUT
        while not commands and loop.time() < end:
            await c1.send(b"\x01" + struct.pack("<I", 1) + cdr)
            await asyncio.sleep(0.1)
            g.executor.spin_once(timeout_sec=0)
        assert commands, "no client message reached the rclpy subscriber\n" + g.logs()
        assert commands[0].timestamp == 77 and commands[0].goal_state.label == "active"
    finally:
        publisher.cancel()
        await c1.close()


def test_assets_and_sim_time(graph, tmp_path):
    """`package://` assets are served from their package's share folder (allowlisted,
    never outside the package); on sim time the server's time and the messages' log times
    are the /clock time."""
    asyncio.run(assets_and_time_scenario(graph, tmp_path))


async def assets_and_time_scenario(g, tmp_path):
    from rosgraph_msgs.msg import Clock
    prefix = tmp_path / "prefix"
    (prefix / "share/ament_index/resource_index/packages").mkdir(parents=True)
    (prefix / "share/ament_index/resource_index/packages/demo_description").write_text("")
    (prefix / "share/demo_description/meshes").mkdir(parents=True)
    mesh = b"solid demo\nendsolid demo\n"
    (prefix / "share/demo_description/meshes/base.stl").write_bytes(mesh)
    (prefix / "share/demo_description/notes.txt").write_text("not an asset")
    (tmp_path / "outside.stl").write_text("outside the package")
    port = free_tcp_port()
    env = {"AMENT_PREFIX_PATH": os.pathsep.join([str(prefix), os.environ["AMENT_PREFIX_PATH"]])}
    g.start("foxglove_bridge", params={"port": port, "topic_allow": "/fx/.*", "discovery_ms": 200,
                                      "use_sim_time": True}, env=env)
    node = g.node
    clock = node.create_publisher(Clock, "/clock", 10)
    pub = node.create_publisher(String, "/fx/sim", 10)
    await until(g, lambda: "/foxglove_bridge" in g.node_names(), "the bridge node")
    c = await when_up(g, lambda: Client.connect(f"ws://127.0.0.1:{port}"))
    try:
        await until(g, lambda: c.server_info is not None, "serverInfo")
        caps = c.server_info["capabilities"]
        assert "time" in caps and "assets" in caps, caps

        # Assets: the mesh; refusals for what is not allowlisted, outside, or missing.
        asks = {1: "package://demo_description/meshes/base.stl",
                2: "package://demo_description/notes.txt",
                3: "package://demo_description/meshes/../../../outside.stl",
                4: "package://demo_description/meshes/none.stl",
                5: "file:///etc/passwd"}
        for rid, uri in asks.items():
            await c.send({"op": "fetchAsset", "uri": uri, "requestId": rid})
        await until(g, lambda: set(c.assets) == set(asks), "every asset answer")
        assert c.assets[1] == (0, "", mesh), c.assets[1]
        for rid in (2, 3, 4, 5):
            status, error, data = c.assets[rid]
            assert status == 1 and data == b"" and error, (rid, c.assets[rid])
        assert "not allowed" in c.assets[2][1] and "no such file" in c.assets[4][1], c.assets

        # Sim time: /clock at 1000 s, 1001 s ...: the server's time follows, and so do the
        # log times of the messages it forwards.
        await until(g, lambda: "/fx/sim" in c.channels, "the /fx/sim advertisement")
        await c.send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": c.channels["/fx/sim"]["id"]}]})
        await until(g, lambda: node.count_subscribers("/fx/sim") > 0, "the bridge's subscription")
        sent = []
        for i in range(1, 6):
            m = Clock()
            m.clock.sec = 1000 + i
            clock.publish(m)
            await until(g, lambda: any(t == (1000 + i) * 10**9 for t in c.times), f"time {1000 + i} s")
            pub.publish(String(data=f"at {1000 + i}"))
            sent.append(1000 + i)
            await until(g, lambda: len(c.log_times) >= i, f"message {i}")
        for (sub, log_time), sec in zip(c.log_times, sent):
            assert log_time == sec * 10**9, (log_time, sec)
    finally:
        await c.close()


def test_connection_graph(graph):
    """The `connectionGraph` capability: a client that subscribes to it gets every topic's
    publishers and subscribers and every service's providers (fully qualified node names, as
    foxglove_bridge reports them), then the changes as the graph changes."""
    asyncio.run(connection_graph_scenario(graph))


async def connection_graph_scenario(g):
    from lifecycle_msgs.srv import GetState
    port = free_tcp_port()
    g.start("foxglove_bridge", params={"port": port, "discovery_ms": 200})
    node = g.node
    me = node.get_fully_qualified_name()
    pub = node.create_publisher(String, "/cg/out", 10)
    node.create_subscription(String, "/cg/in", lambda m: None, 10)
    node.create_service(GetState, "/cg/get_state", lambda req, resp: resp)
    await until(g, lambda: "/foxglove_bridge" in g.node_names(), "the bridge node")
    c = await when_up(g, lambda: Client.connect(f"ws://127.0.0.1:{port}"))
    try:
        await until(g, lambda: c.server_info is not None, "serverInfo")
        assert "connectionGraph" in c.server_info["capabilities"], c.server_info
        await c.send({"op": "subscribeConnectionGraph"})
        graph = c.graph

        def has(side, name, who):
            return who in graph[side].get(name, set())

        await until(g, lambda: has("published", "/cg/out", me) and has("subscribed", "/cg/in", me)
                    and has("services", "/cg/get_state", me), "our publisher, subscription and service")
        # The bridge is in the graph too: it serves its parameters.
        await until(g, lambda: has("services", "/foxglove_bridge/get_parameters", "/foxglove_bridge"),
                    "the bridge's own services")
        # Changes: the publisher leaves, and with no one else on it so does the topic.
        node.destroy_publisher(pub)
        await until(g, lambda: "/cg/out" not in graph["published"], "/cg/out removed")
        assert has("subscribed", "/cg/in", me), graph
    finally:
        await c.close()


@pytest.mark.parametrize("subprotocol", ["foxglove.sdk.v1", "foxglove.websocket.v1"])
def test_services_are_advertised_and_called(graph, subprotocol):
    """The `services` capability, for either subprotocol: a ROS service of a type known
    only at run time (lifecycle_msgs, not compiled into r2r) is advertised with its request
    and response schemas; a client's CDR request reaches the rclpy server and its CDR
    response comes back; request bytes that do not decode are a failure naming the
    service, counted; `service_allow` hides the others."""
    asyncio.run(services_scenario(graph, subprotocol))


async def services_scenario(g, subprotocol):
    from lifecycle_msgs.msg import State
    from lifecycle_msgs.srv import GetState
    from rclpy.serialization import deserialize_message, serialize_message
    port = free_tcp_port()
    diag = Diagnostics(g)
    g.start("foxglove_bridge", params={"port": port, "discovery_ms": 200, "service_allow": "/svc/.*"})
    node = g.node
    calls = []

    def answer(req, resp):
        calls.append(req)
        resp.current_state = State(id=State.PRIMARY_STATE_ACTIVE, label=f"active {len(calls)}")
        return resp

    node.create_service(GetState, "/svc/get_state", answer)
    node.create_service(GetState, "/hidden/get_state", answer)
    await until(g, lambda: "/foxglove_bridge" in g.node_names(), "the bridge node")
    c = await when_up(g, lambda: Client.connect(f"ws://127.0.0.1:{port}", subprotocol=subprotocol))
    try:
        await until(g, lambda: c.server_info is not None, "serverInfo")
        assert "services" in c.server_info["capabilities"], c.server_info
        await until(g, lambda: "/svc/get_state" in c.services, "the service advertised")
        sv = c.services["/svc/get_state"]
        assert sv["type"] == "lifecycle_msgs/srv/GetState", sv
        req_schema = sv.get("request", {}).get("schema", sv.get("requestSchema"))
        resp_schema = sv.get("response", {}).get("schema", sv.get("responseSchema"))
        assert "State current_state" in resp_schema and "MSG: lifecycle_msgs/State" in resp_schema, resp_schema
        assert "current_state" not in req_schema.split("=" * 80)[0], req_schema
        assert "/hidden/get_state" not in c.services, sorted(c.services)

        for i in (1, 2):
            await c.call_service("/svc/get_state", i, serialize_message(GetState.Request()))
            await until(g, lambda: i in c.call_responses or i in c.call_failures, f"the answer to call {i}")
            assert i in c.call_responses, (c.call_failures, g.logs())
            resp = deserialize_message(bytes(c.call_responses[i]), GetState.Response)
            assert resp.current_state.label == f"active {i}", resp
        assert len(calls) == 2

        # Bytes that are no GetState request: a failure naming the service; nothing called.
        await c.call_service("/svc/get_state", 3, b"\x00")
        await until(g, lambda: 3 in c.call_failures or 3 in c.call_responses, "the answer to a bad request")
        assert 3 in c.call_failures and "/svc/get_state" in c.call_failures[3], (c.call_failures, c.call_responses)
        assert len(calls) == 2
        await until(g, lambda: diag.counter(CLIENTS, "service_calls") == 2
                    and diag.counter(CLIENTS, "service_failures") == 1, "the service counters")
    finally:
        await c.close()
