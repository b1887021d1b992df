"""arnie_bag record and play on a real graph (each test its own domain), checked by
independent readers and clients:

- rclpy publishers (String reliable, PointStamped best effort, a latched String published
  before the recorder starts, a lifecycle_msgs/State r2r has no type for: its type support
  is loaded at run time) -> `arnie_bag record` -> SIGINT -> Python `rosbags` (AnyReader)
  and `mcap` + mcap-ros2-support decode every message with the values sent; the offered
  QoS is stored;
- a bag written by `rosbags` (metadata v9 and v8) -> `arnie_bag play` -> rclpy raw
  subscribers receive every message in order, byte-identical to the bag;
- a latched topic stays latched while playing: a subscriber created after the message was
  played still gets it;
- kill -9 of the recorder mid-run, then `reindex`: `rosbags` reads all that was flushed;
- record -> play -> record: the same bytes, the same relative timing within a bound
  (printed; see ROUND_TRIP_BOUND_MS).
"""
import os
import signal
import subprocess

import pytest
from rclpy.serialization import deserialize_message
from helpers.graph import binary
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rclpy.qos import qos_profile_sensor_data
from rosbags.highlevel import AnyReader
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from geometry_msgs.msg import PointStamped, PoseStamped
from lifecycle_msgs.msg import State
from std_msgs.msg import String
from helpers.bags import (
    MS, PLAY_WHEN_MATCHED, RELIABLE, T0, raw_collect, read_bag, same_bytes, stop_recorder,
    write_with_rosbags,
)
from helpers import qos

LATCHED = qos.latched(1)
# A latched topic's subscriber that must not lose a message either (depth 1 would keep only
# the newest when the client is slower than the player).
LATCHED_ALL = qos.latched(100)
# Round trip: the relative times of the second recording may differ from the first's by
# at most this much. Measured (printed by the test; loopback, debug build, 2 shared cores):
# 0.5-8 ms on a quiet machine, up to ~250 ms while other builds and tests load both cores.
ROUND_TRIP_BOUND_MS = 1000.0


def test_record_reads_back_in_rosbags_and_mcap(graph, tmp_path):
    node = graph.node
    latched = node.create_publisher(String, "/map_name", LATCHED)
    chatter = node.create_publisher(String, "/chatter", RELIABLE)
    points = node.create_publisher(PointStamped, "/point", qos_profile_sensor_data)
    # Not in r2r's IDL filter: recorded through its type support loaded at run time.
    lifecycle = node.create_publisher(State, "/lifecycle_state", RELIABLE)
    ignored = node.create_publisher(String, "/ignored", 10)
    latched.publish(String(data="arena-2025"))
    bag = tmp_path / "rec"
    rec = graph.start("arnie_bag", "record", "--all", "--exclude-topics", "/ignored", "-x", "^/(rosout|parameter_events|events/write_split)$",
                      "-o", str(bag), "-p", "100")
    for t in ("/map_name", "/chatter", "/point", "/lifecycle_state"):
        graph.wait_for_subscriber(t)
    graph.spin_for(0.3)
    sent_points = []
    for i in range(50):
        chatter.publish(String(data=f"hello {i}"))
        p = PointStamped()
        p.header.frame_id = "arm"
        p.header.stamp.sec = i
        p.point.x, p.point.y, p.point.z = float(i), -float(i), 0.5
        points.publish(p)
        sent_points.append(float(i))
        lifecycle.publish(State(id=3, label=f"active {i}"))
        ignored.publish(String(data="no"))
        graph.spin_for(0.01)
    assert chatter.wait_for_all_acked(rclpy_duration(20.0))
    assert lifecycle.wait_for_all_acked(rclpy_duration(20.0))
    graph.spin_for(0.5)
    out = stop_recorder(graph, rec)
    assert "not recording" not in out, out

    msgs, conns = read_bag(bag)
    assert set(conns) == {"/map_name", "/chatter", "/point", "/lifecycle_state"}, out
    assert conns["/map_name"].ext.offered_qos_profiles[0].durability == QosDurability.TRANSIENT_LOCAL
    assert conns["/point"].ext.offered_qos_profiles[0].reliability == QosReliability.BEST_EFFORT
    with AnyReader([bag]) as r:
        values = {}
        for c, _, raw in r.messages():
            values.setdefault(c.topic, []).append(r.deserialize(raw, c.msgtype))
    assert [m.data for m in values["/map_name"]] == ["arena-2025"]
    assert [m.data for m in values["/chatter"]] == [f"hello {i}" for i in range(50)]
    assert [(m.id, m.label) for m in values["/lifecycle_state"]] == [(3, f"active {i}") for i in range(50)]
    # Best effort: whatever arrived, in order, each with the values sent.
    xs = [m.point.x for m in values["/point"]]
    assert xs and xs == sorted(xs) and set(xs) <= set(sent_points)
    assert all(m.point.y == -m.point.x and m.point.z == 0.5 and m.header.frame_id == "arm" for m in values["/point"])
    times = [t for _, t, _ in msgs]
    assert times == sorted(times)

    decoded = {}
    for f in sorted(bag.glob("*.mcap")):
        with open(f, "rb") as fh:
            reader = make_reader(fh, decoder_factories=[DecoderFactory()])
            for _, channel, _, obj in reader.iter_decoded_messages():
                decoded.setdefault(channel.topic, []).append(obj)
    assert [m.data for m in decoded["/chatter"]] == [f"hello {i}" for i in range(50)]
    assert [m.point.x for m in decoded["/point"]] == xs
    assert [m.data for m in decoded["/map_name"]] == ["arena-2025"]


def rclpy_duration(seconds):
    from rclpy.duration import Duration
    return Duration(seconds=seconds)


@pytest.mark.parametrize("version", [9, 8])
def test_play_rosbags_bag_byte_identical(graph, tmp_path, version):
    src = tmp_path / f"from_rosbags_v{version}"
    write_with_rosbags(src, version)
    expected, _ = read_bag(src)
    chatter = raw_collect(graph, String, "/chatter", LATCHED_ALL)
    pose = raw_collect(graph, PoseStamped, "/pose", RELIABLE)
    play = graph.start("arnie_bag", "play", str(src), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    play.must_live = False  # it ends after the last message
    try:
        graph.spin_until(lambda: len(chatter) == 40 and len(pose) == 40, timeout=60.0, what="every played message")
    except BaseException:
        print("received", len(chatter), len(pose), [bytes(c)[8:16] for c in chatter[-2:]], [deserialize_message(bytes(p), PoseStamped).pose.position.x for p in pose])
        raise
    assert play.wait(30) == 0, graph.output(play)
    same_bytes(chatter, [raw for t, _, raw in expected if t == "/chatter"], String)
    same_bytes(pose, [raw for t, _, raw in expected if t == "/pose"], PoseStamped)


def write_latched_bag(path):
    store = get_typestore(Stores.ROS2_JAZZY)
    String_ = store.types["std_msgs/msg/String"]
    latched = Qos(QosHistory.KEEP_LAST, 1, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL,
                  QosTime(0, 0), QosTime(0, 0), QosLiveliness.AUTOMATIC, QosTime(0, 0), False)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        m = w.add_connection("/map_name", "std_msgs/msg/String", typestore=store, offered_qos_profiles=[latched])
        t = w.add_connection("/tick", "std_msgs/msg/String", typestore=store)
        w.write(m, T0, store.serialize_cdr(String_(data="arena"), "std_msgs/msg/String"))
        w.write(t, T0 + 1 * MS, store.serialize_cdr(String_(data="tick 0"), "std_msgs/msg/String"))
        # Keeps the player running long after the latched message.
        w.write(t, T0 + 120_000 * MS, store.serialize_cdr(String_(data="tick 1"), "std_msgs/msg/String"))
    return store.serialize_cdr(String_(data="arena"), "std_msgs/msg/String").tobytes()


def test_play_keeps_a_latched_topic_latched(graph, tmp_path):
    src = tmp_path / "latched"
    arena = write_latched_bag(src)
    early = raw_collect(graph, String, "/map_name", LATCHED)
    ticks = raw_collect(graph, String, "/tick", RELIABLE)
    play = graph.start("arnie_bag", "play", str(src), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    graph.spin_until(lambda: early and ticks, timeout=30.0, what="the first messages")
    late = raw_collect(graph, String, "/map_name", LATCHED)
    graph.spin_until(lambda: late, timeout=30.0, what="the latched message for a late subscriber")
    same_bytes(late, [arena], String)
    same_bytes(early, [arena], String)
    assert play.poll() is None, "the player should still be playing"
    assert graph.stop(play) == 0, graph.output(play)


def test_round_trip_record_play_record(graph, tmp_path):
    chatter = graph.node.create_publisher(String, "/chatter", RELIABLE)
    first = tmp_path / "first"
    rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(first))
    graph.wait_for_subscriber("/chatter")
    graph.spin_for(0.3)
    for i in range(40):
        chatter.publish(String(data=f"m {i}"))
        graph.spin_for(0.01 + 0.04 * (i % 3))  # 10, 50, 90 ms apart
    assert chatter.wait_for_all_acked(rclpy_duration(20.0))
    graph.spin_for(0.5)
    stop_recorder(graph, rec)
    graph.node.destroy_publisher(chatter)
    a, _ = read_bag(first)
    assert len(a) == 40

    second = tmp_path / "second"
    rec2 = graph.start("arnie_bag", "record", "/chatter", "-o", str(second))
    play = graph.start("arnie_bag", "play", str(first), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    play.must_live = False
    assert play.wait(60) == 0, graph.output(play)
    # The recorder gets what the reliable player sent; give it a moment, then stop it.
    graph.spin_for(1.0)
    stop_recorder(graph, rec2)
    b, _ = read_bag(second)
    assert [raw for _, _, raw in b] == [raw for _, _, raw in a]  # both came through the same transport
    rel_a = [t - a[0][1] for _, t, _ in a]
    rel_b = [t - b[0][1] for _, t, _ in b]
    worst_ms = max(abs(x - y) for x, y in zip(rel_a, rel_b)) / 1e6
    print(f"round trip: {len(a)} messages over {rel_a[-1] / 1e9:.2f} s, worst relative timing difference {worst_ms:.2f} ms")
    assert worst_ms < ROUND_TRIP_BOUND_MS


def test_kill_9_recorder_then_reindex(graph, tmp_path):
    """SIGKILL `arnie_bag record` mid-run: `reindex` gives a bag `rosbags` reads up to the
    last flush (each second). The flush of batch A is waited for on disk (a copy of the
    folder reindexes to all of A) before the kill, so nothing depends on timing."""
    import shutil
    chatter = graph.node.create_publisher(String, "/chatter", RELIABLE)
    bag = tmp_path / "killed"
    rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(bag))
    graph.wait_for_subscriber("/chatter")
    graph.spin_for(0.5)
    batch_a = [f"a {i}" for i in range(30)]
    for text in batch_a:
        chatter.publish(String(data=text))
    assert chatter.wait_for_all_acked(rclpy_duration(20.0))

    def flushed(n=[0]):
        n[0] += 1
        copy = tmp_path / f"probe{n[0]}"
        shutil.copytree(bag, copy)
        r = subprocess.run([binary("arnie_bag"), "reindex", str(copy)], capture_output=True, text=True, timeout=60)
        return r.returncode == 0 and len(read_bag(copy)[0]) == len(batch_a)

    graph.spin_until(flushed, timeout=60.0, what="batch A flushed to disk")
    for i in range(30):
        chatter.publish(String(data=f"b {i}"))
    rec.must_live = False
    os.kill(rec.pid, signal.SIGKILL)
    rec.wait(30)
    r = subprocess.run([binary("arnie_bag"), "reindex", str(bag)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    msgs, _ = read_bag(bag)
    texts = [deserialize_message(raw, String).data for _, _, raw in msgs]
    # All of A, then whatever of B had been flushed, in order.
    assert texts[: len(batch_a)] == batch_a and texts[len(batch_a):] == [f"b {i}" for i in range(len(texts) - len(batch_a))], texts
