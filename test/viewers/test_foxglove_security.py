"""The Foxglove bridge's TLS and access tokens (issue 48).

- the 401/101 matrix, with TLS (`wss://`, the host certificate `cargo xtask secure` makes)
  and without (`ws://` with tokens), for a Python client (websockets) and the protocol's
  own JS client (@foxglove/ws-protocol on node.js): no token, an empty one, a huge one, a
  wrong one, `Basic` instead of `Bearer` -> HTTP 401, counted (`auth_refused`); the right
  one in the query or in `Authorization: Bearer` -> the WebSocket opens;
- roles: a viewer token gets no `clientPublish`, its advertisement and its parameter set
  are refused (and the parameter is unchanged); an operator's publish reaches rclpy;
- 10,000 wrong guesses from one address: 10 looked at (401), the rest HTTP 429, counted;
  another address is still served;
- TLS knocks: plain HTTP, garbage, a handshake that never finishes, a client that does
  not trust the certificate: closed, counted (`tls_refused`), logged with the reason;
- the refused bind: 0.0.0.0 without TLS and tokens stops the node naming what is
  missing; `insecure:=true` serves it with a warning.
"""
import asyncio
import json
import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import pytest
import websockets
from geometry_msgs.msg import Point
from websockets.exceptions import InvalidStatus

from helpers.diagnostics import Diagnostics
from helpers.foxglove import TIMEOUT, TYPES, Client, until, when_up
from helpers.graph import binary
from helpers.ports import free_tcp_port

WS_PROTOCOL = Path(__file__).parent / "foxglove_ws_protocol"
SUB = "foxglove.sdk.v1"
STATUS = "/foxglove_bridge: clients"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A lab with one host on loopback (its certificate serves wss://) and two tokens."""
    d = tmp_path_factory.mktemp("lab")
    sec = binary("arnie_secure")

    def run(*args):
        r = subprocess.run([sec, "--dir", str(d), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout.strip()

    run("init")
    run("add-host", "robot", "--address", "127.0.0.1")
    tokens = {"viewer": run("token", "viewer1", "--role", "viewer"),
              "operator": run("token", "op1", "--role", "operator")}
    host = d / "hosts" / "robot"
    return {"cert": host / "cert.pem", "key": host / "key.pem", "ca": d / "ca.pem",
            "token_file": d / "foxglove_tokens", "tokens": tokens}


def start_bridge(g, lab, tls, **extra):
    port = free_tcp_port()
    params = {"port": port, "topic_allow": "/fx/.*", "publish_allow": "/fx/cmd", "discovery_ms": 200,
              "token_file": str(lab["token_file"]), **extra}
    if tls:
        params.update(tls_cert=str(lab["cert"]), tls_key=str(lab["key"]))
    proc = g.start("foxglove_bridge", params=params)
    scheme = "wss" if tls else "ws"
    return proc, f"{scheme}://127.0.0.1:{port}", port


def client_ssl(lab):
    ctx = ssl.create_default_context(cafile=str(lab["ca"]))
    return ctx


async def open_ws(g, url, lab, headers=None):
    kw = {"ssl": client_ssl(lab)} if url.startswith("wss") else {}
    return await when_up(g, lambda: websockets.connect(url, subprotocols=[SUB], max_size=None,
                                                      additional_headers=headers or {}, **kw))


async def status_of(g, url, lab, headers=None):
    """101 when the WebSocket opens, else the HTTP status of the refusal (and its body)."""
    try:
        ws = await open_ws(g, url, lab, headers)
    except InvalidStatus as e:
        return e.response.status_code, e.response.body.decode(errors="replace")
    await ws.close()
    return 101, ""


def matrix(lab):
    op, viewer = lab["tokens"]["operator"], lab["tokens"]["viewer"]
    return [
        ("no token", "", None, 401),
        ("empty query token", "/?token=", None, 401),
        ("empty bearer", "", {"Authorization": "Bearer "}, 401),
        ("huge token", "/?token=" + "a" * 5000, None, 401),
        ("wrong token", "/?token=" + "b" * 64, None, 401),
        ("one character off", "/?token=" + op[:-1] + ("0" if op[-1] != "0" else "1"), None, 401),
        ("Basic scheme", "", {"Authorization": f"Basic {op}"}, 401),
        ("operator in the query", f"/?token={op}", None, 101),
        ("operator as bearer", "", {"Authorization": f"Bearer {op}"}, 101),
        ("viewer in the query", f"/?token={viewer}", None, 101),
    ]


@pytest.mark.parametrize("tls", [True, False], ids=["wss", "ws"])
def test_the_401_matrix_with_a_python_client(graph, lab, tls):
    proc, url, _ = start_bridge(graph, lab, tls)
    diag = Diagnostics(graph)

    async def run():
        results = {}
        for name, path, headers, want in matrix(lab):
            results[name] = (await status_of(graph, url + path, lab, headers), want)
        return results

    results = asyncio.run(run())
    wrong = {k: v for k, v in results.items() if v[0][0] != v[1]}
    assert not wrong, wrong
    for name, ((status, body), _) in results.items():
        if status == 401:
            assert body.startswith("arnie_foxglove: ") and "token" in body, (name, body)
    refused = sum(1 for (status, _), _ in results.values() if status == 401)
    graph.spin_until(lambda: diag.counter(STATUS, "auth_refused", 0) == refused, TIMEOUT,
                     f"auth_refused = {refused} on /diagnostics")
    log = graph.output(proc)
    assert "refused (HTTP 401): a wrong access token (counted as auth_refused)" in log, log[-3000:]
    assert ("TLS: wss:// only" if tls else "no TLS (tls_cert, tls_key): plain ws://") in log


def test_roles_viewer_reads_only_operator_publishes(graph, lab):
    proc, url, _ = start_bridge(graph, lab, True)
    commands = graph.collect(Point, "/fx/cmd")
    pub = graph.node.create_publisher(Point, "/fx/point", 10)
    diag = Diagnostics(graph)
    cdr = bytes(TYPES.serialize_cdr(TYPES.types["geometry_msgs/msg/Point"](x=1.0, y=2.0, z=3.0), "geometry_msgs/msg/Point"))

    async def run():
        viewer = Client(await open_ws(graph, f"{url}/?token={lab['tokens']['viewer']}", lab))
        viewer.task = asyncio.ensure_future(viewer._read())
        op = Client(await open_ws(graph, url, lab, {"Authorization": f"Bearer {lab['tokens']['operator']}"}))
        op.task = asyncio.ensure_future(op._read())
        try:
            async def topic_seen():
                while "/fx/point" not in viewer.channels:
                    pub.publish(Point(x=9.0))
                    graph.executor.spin_once(timeout_sec=0)
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(topic_seen(), TIMEOUT)
            await until(graph, lambda: viewer.server_info and op.server_info, "serverInfo on both")
            assert "clientPublish" not in viewer.server_info["capabilities"], viewer.server_info
            assert "services" not in viewer.server_info["capabilities"], viewer.server_info
            assert "clientPublish" in op.server_info["capabilities"], op.server_info
            # The viewer reads: it subscribes and gets messages.
            await viewer.send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": viewer.channels["/fx/point"]["id"]}]})

            async def messages():
                while not viewer.messages:
                    pub.publish(Point(x=9.0))
                    graph.executor.spin_once(timeout_sec=0)
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(messages(), TIMEOUT)
            # The viewer may not publish nor set parameters.
            await viewer.send({"op": "advertise", "channels": [
                {"id": 7, "topic": "/fx/cmd", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Point"}]})
            await viewer.send(bytes([0x01]) + (7).to_bytes(4, "little") + cdr)
            await viewer.send({"op": "setParameters", "id": "v1",
                               "parameters": [{"name": "/foxglove_bridge.discovery_ms", "value": 300}]})
            await until(graph, lambda: diag.counter(STATUS, "read_only_refused", 0) >= 1,
                        "the viewer's refusals counted")
            # The operator publishes: rclpy receives it.
            await op.send({"op": "advertise", "channels": [
                {"id": 8, "topic": "/fx/cmd", "encoding": "cdr", "schemaName": "geometry_msgs/msg/Point"}]})

            async def published():
                while not commands:
                    await op.send(bytes([0x01]) + (8).to_bytes(4, "little") + cdr)
                    graph.executor.spin_once(timeout_sec=0)
                    await asyncio.sleep(0.1)
            await asyncio.wait_for(published(), TIMEOUT)
            assert (commands[0].x, commands[0].y, commands[0].z) == (1.0, 2.0, 3.0)
            graph.spin_for(1.0)
            assert all(c.x == 1.0 for c in commands), "the viewer's message was published"
        finally:
            await viewer.close()
            await op.close()

    asyncio.run(run())
    log = graph.output(proc)
    assert "a viewer token is read only" in log, log[-3000:]
    graph.spin_until(lambda: diag.counter(STATUS, "viewer_clients", 0) >= 1, TIMEOUT, "viewer_clients counted")


def test_ten_thousand_guesses_are_rate_limited(graph, lab):
    proc, url, port = start_bridge(graph, lab, False)
    diag = Diagnostics(graph)

    async def guess(sem, source, token, counts):
        async with sem:
            sock = socket.socket()
            sock.bind((source, 0))
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            reader, writer = await asyncio.open_connection(sock=sock)
            writer.write(f"GET /?token={token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                         f"Sec-WebSocket-Protocol: {SUB}\r\n\r\n".encode())
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), TIMEOUT)
            writer.close()
            code = int(line.split()[1])
            counts[code] = counts.get(code, 0) + 1

    async def run():
        await status_of(graph, url, lab)  # up (one 401 from the test's own address 127.0.0.1)
        sem = asyncio.Semaphore(32)
        counts = {}
        await asyncio.gather(*(guess(sem, "127.0.0.3", f"guess{i:012d}xxxx", counts) for i in range(10_000)))
        # Another address is not locked out.
        other = await status_of(graph, f"{url}/?token={lab['tokens']['operator']}", lab)
        return counts, other

    counts, other = asyncio.run(run())
    assert counts == {401: 10, 429: 9990}, counts
    assert other[0] == 101, other
    graph.spin_until(lambda: diag.counter(STATUS, "auth_rate_limited", 0) == 9990
                     and diag.counter(STATUS, "auth_refused", 0) == 11, TIMEOUT,
                     "9990 rate-limited and 11 refused on /diagnostics")
    # Refusals are logged at a bounded rate (10 lines per 10 s, then a count of the rest):
    # the 401s at least are there.
    assert "refused (HTTP 401)" in graph.output(proc)


def test_tls_knocks_are_closed_and_counted(graph, lab):
    proc, url, port = start_bridge(graph, lab, True)
    diag = Diagnostics(graph)

    async def run():
        await status_of(graph, url, lab)  # up
        # Plain HTTP on the TLS port, garbage, a client that does not trust the certificate.
        for data in (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", bytes(range(256)) * 4):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(data)
            await writer.drain()
            got = await asyncio.wait_for(reader.read(), TIMEOUT)
            assert b"HTTP/1.1 101" not in got and b"serverInfo" not in got, got
            writer.close()
        with pytest.raises(ssl.SSLCertVerificationError):
            await websockets.connect(url, subprotocols=[SUB], ssl=ssl.create_default_context())
        # A handshake that never finishes: closed after 10 s.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        await writer.drain()
        got = await asyncio.wait_for(reader.read(), 20.0)
        assert b"serverInfo" not in got
        writer.close()

    asyncio.run(run())
    graph.spin_until(lambda: diag.counter(STATUS, "tls_refused", 0) >= 4, TIMEOUT, "4 TLS refusals counted")
    log = graph.output(proc)
    assert "TLS handshake failed" in log and "no TLS handshake within 10 s" in log, log[-3000:]
    assert proc.poll() is None


def test_the_ws_protocol_js_client_with_tls_and_a_token(graph, lab):
    node_js = shutil.which("node")
    if node_js is None:
        pytest.skip("node.js is not installed (`node` not on PATH): the ws-protocol JS client cannot run")
    if not (WS_PROTOCOL / "node_modules" / "@foxglove" / "ws-protocol").exists():
        pytest.skip(f"@foxglove/ws-protocol is not installed in {WS_PROTOCOL} (`cargo xtask test` installs it with npm)")
    _, url, _ = start_bridge(graph, lab, True)
    pub = graph.node.create_publisher(Point, "/fx/point", 10)
    cdr = bytes(TYPES.serialize_cdr(TYPES.types["geometry_msgs/msg/Point"](x=1.0, y=2.0, z=3.0), "geometry_msgs/msg/Point"))

    async def js(token):
        import os
        env = dict(os.environ, NODE_EXTRA_CA_CERTS=str(lab["ca"]))
        p = await asyncio.create_subprocess_exec(
            node_js, str(WS_PROTOCOL / "client.js"), f"{url}/?token={token}", "/fx/point", "/fx/cmd",
            "geometry_msgs/msg/Point", cdr.hex(), cwd=WS_PROTOCOL, env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        events = []

        async def read():
            async for line in p.stdout:
                events.append(json.loads(line))
        reader = asyncio.ensure_future(read())
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        while loop.time() < end and not any(e["event"] in ("message", "close") for e in events):
            pub.publish(Point(x=5.0))
            graph.executor.spin_once(timeout_sec=0)
            await asyncio.sleep(0.05)
        p.stdin.close()
        await asyncio.wait_for(p.wait(), TIMEOUT)
        await reader
        return events

    async def run():
        await status_of(graph, url, lab)  # up
        return await js("not-a-token-at-all"), await js(lab["tokens"]["viewer"])

    refused, served = asyncio.run(run())
    kinds = [e["event"] for e in refused]
    assert "open" not in kinds and any("401" in e.get("error", "") for e in refused), refused
    assert any(e["event"] == "open" and e["protocol"] == "foxglove.websocket.v1" for e in served), served[:3]
    assert any(e["event"] == "message" for e in served), served[:5]


def test_exposed_bind_needs_tls_and_tokens(graph, lab):
    base = {"port": free_tcp_port(), "address": "0.0.0.0"}
    out = graph.start_refused("foxglove_bridge", params=base,
                              expect="address: 0.0.0.0 is reachable from other machines: it needs TLS (tls_cert, tls_key) "
                                     "and access tokens (token_file) (or insecure:=true to serve it unprotected anyway)")
    assert "panicked" not in out
    graph.start_refused("foxglove_bridge", params=dict(base, tls_cert=str(lab["cert"]), tls_key=str(lab["key"])),
                        expect="it needs access tokens (token_file)")
    graph.start_refused("foxglove_bridge", params=dict(base, token_file=str(lab["token_file"])),
                        expect="it needs TLS (tls_cert, tls_key)")
    graph.start_refused("foxglove_bridge", params=dict(base, token_file="/nonexistent/tokens"),
                        expect="token_file")
    graph.start_refused("foxglove_bridge", params=dict(base, tls_cert=str(lab["token_file"]), tls_key=str(lab["key"]),
                                                      token_file=str(lab["token_file"])), expect="tls_cert")
    proc = graph.start("foxglove_bridge", params=dict(base, insecure=True))
    graph.spin_until(lambda: "insecure:=true: serving on 0.0.0.0 without" in graph.output(proc), TIMEOUT,
                     "the insecure warning")
    assert proc.poll() is None
