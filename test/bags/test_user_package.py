"""A user's own message package, built here the way a user builds one (CMake, ament,
rosidl), installed into a prefix of its own and put on AMENT_PREFIX_PATH, is recorded,
played and streamed: nothing of it was known when arnie was built.

- A bag of `arnie_user_msgs/msg/Reading` (written by rosbags) -> `arnie_bag play` ->
  `arnie_bag record` -> rosbags reads back every value; the recorded schema is the
  package's `.msg` text and `info` lists the type.
- `arnie_foxglove` advertises the topic with that schema and a WebSocket client decodes
  what it streams.
"""
import asyncio
import os
import shutil
import subprocess

import numpy as np
import pytest
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore, get_types_from_msg

from helpers.bags import MS, T0
from helpers.foxglove import Client, until, when_up
from helpers.graph import binary
from helpers.ports import free_tcp_port

# The package is built once (module fixture): its tests stay on one pytest worker.
pytestmark = pytest.mark.xdist_group("user_package")

PKG = "arnie_user_msgs"
TYPE = f"{PKG}/msg/Reading"
MSG = "builtin_interfaces/Time stamp\nstring sensor\nfloat64[] values\nuint8 level\n"
CMAKE = f"""cmake_minimum_required(VERSION 3.5)
project({PKG})
find_package(ament_cmake REQUIRED)
find_package(rosidl_default_generators REQUIRED)
find_package(builtin_interfaces REQUIRED)
rosidl_generate_interfaces(${{PROJECT_NAME}} "msg/Reading.msg" DEPENDENCIES builtin_interfaces)
ament_package()
"""
PACKAGE_XML = f"""<?xml version="1.0"?>
<package format="3">
  <name>{PKG}</name>
  <version>0.0.1</version>
  <description>A user's own message package, built by arnie's tests</description>
  <maintainer email="nobody@example.com">nobody</maintainer>
  <license>Apache-2.0</license>
  <buildtool_depend>ament_cmake</buildtool_depend>
  <buildtool_depend>rosidl_default_generators</buildtool_depend>
  <depend>builtin_interfaces</depend>
  <exec_depend>rosidl_default_runtime</exec_depend>
  <member_of_group>rosidl_interface_packages</member_of_group>
  <export><build_type>ament_cmake</build_type></export>
</package>
"""
N = 30


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """The package built and installed into a prefix of its own; its environment."""
    root = tmp_path_factory.mktemp("user_package")
    src = root / "src" / PKG
    (src / "msg").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "package.xml").write_text(PACKAGE_XML)
    (src / "msg" / "Reading.msg").write_text(MSG)
    cmake = shutil.which("cmake")
    assert cmake, "cmake is not on PATH (the ROS environment brings it)"
    install = root / "install"
    log = root / "build.log"
    with open(log, "w") as out:
        for step in (["-S", str(src), "-B", str(root / "build"), f"-DCMAKE_INSTALL_PREFIX={install}",
                      "-DBUILD_TESTING=OFF", f"-DPython3_EXECUTABLE={shutil.which('python3')}"],
                     ["--build", str(root / "build"), "-j2"],
                     ["--install", str(root / "build")]):
            r = subprocess.run([cmake, *step], stdout=out, stderr=subprocess.STDOUT, timeout=600)
            assert r.returncode == 0, log.read_text()[-3000:]
    assert (install / "lib" / f"lib{PKG}__rosidl_typesupport_c.so").is_file()
    env = {
        "AMENT_PREFIX_PATH": os.pathsep.join([str(install), os.environ["AMENT_PREFIX_PATH"]]),
        "LD_LIBRARY_PATH": os.pathsep.join([str(install / "lib"), os.environ.get("LD_LIBRARY_PATH", "")]),
    }
    return env


def typestore():
    store = get_typestore(Stores.ROS2_JAZZY)
    store.register(get_types_from_msg(MSG, TYPE))
    return store


def reading(store, i):
    Reading, Time = store.types[TYPE], store.types["builtin_interfaces/msg/Time"]
    return Reading(stamp=Time(sec=i, nanosec=7), sensor=f"probe {i}",
                   values=np.array([0.5 * k + i for k in range(i % 5)], dtype=np.float64), level=i % 256)


def values(store, raw):
    m = store.deserialize_cdr(bytes(raw), TYPE)
    return (m.stamp.sec, m.stamp.nanosec, m.sensor, tuple(m.values), m.level)


def write_bag(path, store):
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        c = w.add_connection("/reading", TYPE, typestore=store)
        for i in range(N):
            w.write(c, T0 + i * 20 * MS, store.serialize_cdr(reading(store, i), TYPE))


def test_a_users_package_records_and_plays(graph, tmp_path, prefix):
    store = typestore()
    write_bag(tmp_path / "in", store)
    out = tmp_path / "out"
    rec = graph.start("arnie_bag", "record", "/reading", "-o", str(out), env=prefix)
    play = graph.start("arnie_bag", "play", str(tmp_path / "in"), "--wait-for-subscribers", "-d", "1",
                       "--disable-keyboard-controls", env=prefix)
    play.must_live = False
    graph.spin_until(lambda: play.poll() is not None, timeout=90.0, what="the bag played")
    assert play.returncode == 0, graph.output(play)
    assert "/reading: 30 published" in graph.output(play), graph.output(play)
    rc = graph.stop(rec, timeout=30.0)
    assert rc == 0, graph.output(rec)
    with AnyReader([out]) as r:
        (conn,) = r.connections
        assert (conn.topic, conn.msgtype) == ("/reading", TYPE)
        assert "float64[] values" in conn.msgdef.data, conn.msgdef
        got = [values(store, raw) for _, _, raw in r.messages()]
    assert got == [values(store, store.serialize_cdr(reading(store, i), TYPE)) for i in range(N)]
    info = subprocess.run([binary("arnie_bag"), "info", str(out)], capture_output=True, text=True, timeout=60)
    assert TYPE in info.stdout and "30" in info.stdout, info.stdout + info.stderr


def test_a_users_package_streams_to_foxglove(graph, tmp_path, prefix):
    store = typestore()
    write_bag(tmp_path / "in", store)
    asyncio.run(stream_scenario(graph, tmp_path, prefix, store))


async def stream_scenario(g, tmp_path, prefix, store):
    port = free_tcp_port()
    g.start("foxglove_bridge", params={"port": port, "topic_allow": "/reading", "discovery_ms": 200}, env=prefix)
    g.start("arnie_bag", "play", str(tmp_path / "in"), "-l", "--disable-keyboard-controls", env=prefix)
    c = await when_up(g, lambda: Client.connect(f"ws://127.0.0.1:{port}"))
    try:
        await until(g, lambda: "/reading" in c.channels, "the /reading advertisement")
        ch = c.channels["/reading"]
        assert ch["schemaName"] == TYPE and "float64[] values" in ch["schema"], ch
        await c.send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": ch["id"]}]})
        await until(g, lambda: len(c.messages) >= N, f"{N} Readings")
        sent = {values(store, store.serialize_cdr(reading(store, i), TYPE)) for i in range(N)}
        for _, payload in c.messages:
            assert values(store, payload) in sent
    finally:
        await c.close()
