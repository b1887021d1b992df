"""arnie_bag records and plays any message type installed on AMENT_PREFIX_PATH (its type
support loaded at run time, as rosbag2 does), not only the packages compiled into r2r:

- rclpy publishes lifecycle_msgs/msg/TransitionEvent (not in r2r's IDL filter) and a /tf
  stream -> `arnie_bag record -a` -> the `rosbags` library reads the values back ->
  `arnie_bag play` -> rclpy receives every message, byte-identical to the bag;
- a type whose type support library does not load: one warning naming the type and the
  library, the other topics recorded;
- a bag with a type installed nowhere: `play` says which topic and type it cannot play,
  and plays the others.
"""
import shutil
from pathlib import Path

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore, get_types_from_msg

from geometry_msgs.msg import TransformStamped
from lifecycle_msgs.msg import State, Transition, TransitionEvent
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

RELIABLE = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
PLAY_WHEN_MATCHED = ("--wait-for-subscribers", "-d", "1")
N = 40


def acked(pub, seconds=20.0):
    from rclpy.duration import Duration
    return pub.wait_for_all_acked(Duration(seconds=seconds))


def stop(graph, proc):
    rc = graph.stop(proc, timeout=30.0)
    out = graph.output(proc)
    assert rc == 0, out
    return out


def event(i):
    return TransitionEvent(timestamp=1000 + i, transition=Transition(id=3, label="activate"),
                           start_state=State(id=2, label="inactive"), goal_state=State(id=3, label=f"active {i}"))


def tf(i):
    t = TransformStamped()
    t.header.frame_id = "odom"
    t.header.stamp.sec = i
    t.child_frame_id = "base_link"
    t.transform.translation.x = 0.01 * i
    t.transform.rotation.w = 1.0
    return TFMessage(transforms=[t])


def raw_collect(graph, msg_type, topic):
    got = []
    graph.node.create_subscription(msg_type, topic, got.append, RELIABLE, raw=True)
    return got


def test_record_and_play_types_not_compiled_into_r2r(graph, tmp_path):
    node = graph.node
    events = node.create_publisher(TransitionEvent, "/lifecycle/transition_event", RELIABLE)
    tfs = node.create_publisher(TFMessage, "/tf", RELIABLE)
    bag = tmp_path / "any"
    rec = graph.start("arnie_bag", "record", "-a", "-x", "^/(rosout|parameter_events|events/write_split)$", "-o", str(bag), "-p", "100")
    for t in ("/lifecycle/transition_event", "/tf"):
        graph.wait_for_subscriber(t)
    graph.spin_for(0.3)
    for i in range(N):
        events.publish(event(i))
        tfs.publish(tf(i))
        graph.spin_for(0.005)
    assert acked(events) and acked(tfs)
    graph.spin_for(0.5)
    out = stop(graph, rec)
    assert "not recording" not in out, out

    with AnyReader([bag]) as r:
        conns = {c.topic: c for c in r.connections}
        assert conns["/lifecycle/transition_event"].msgtype == "lifecycle_msgs/msg/TransitionEvent"
        assert conns["/tf"].msgtype == "tf2_msgs/msg/TFMessage"
        values, raws = {}, {}
        for c, _, raw in r.messages():
            values.setdefault(c.topic, []).append(r.deserialize(raw, c.msgtype))
            raws.setdefault(c.topic, []).append(bytes(raw))
    assert [(m.timestamp, m.goal_state.label) for m in values["/lifecycle/transition_event"]] == \
        [(1000 + i, f"active {i}") for i in range(N)]
    assert [(m.transforms[0].header.stamp.sec, m.transforms[0].child_frame_id, m.transforms[0].transform.translation.x)
            for m in values["/tf"]] == [(i, "base_link", 0.01 * i) for i in range(N)]

    # Play it back: every message of both types reaches rclpy, byte for byte.
    got_events = raw_collect(graph, TransitionEvent, "/lifecycle/transition_event")
    got_tf = raw_collect(graph, TFMessage, "/tf")
    play = graph.start("arnie_bag", "play", str(bag), *PLAY_WHEN_MATCHED)
    graph.spin_until(lambda: len(got_events) >= N and len(got_tf) >= N, timeout=60.0,
                     what=f"{N} messages of each type played")
    assert graph.stop(play, timeout=30.0) == 0, graph.output(play)
    assert [bytes(m) for m in got_events] == raws["/lifecycle/transition_event"]
    assert [bytes(m) for m in got_tf] == raws["/tf"]
    assert deserialize_message(bytes(got_events[-1]), TransitionEvent).goal_state.label == f"active {N - 1}"


def shadow_prefix(tmp_path, package):
    """A prefix that claims `package` (ament index, its real share folder's .msg files)
    with a type support library that is not a library."""
    real = None
    import os
    for prefix in os.environ["AMENT_PREFIX_PATH"].split(os.pathsep):
        if (Path(prefix) / "share/ament_index/resource_index/packages" / package).is_file():
            real = Path(prefix)
            break
    assert real, f"{package} is not installed"
    fake = tmp_path / "broken_prefix"
    (fake / "share/ament_index/resource_index/packages").mkdir(parents=True)
    (fake / "share/ament_index/resource_index/packages" / package).write_text("")
    shutil.copytree(real / "share" / package, fake / "share" / package)
    (fake / "lib").mkdir()
    (fake / "lib" / f"lib{package}__rosidl_typesupport_c.so").write_bytes(b"this is not an ELF file")
    return fake


def test_a_type_library_that_does_not_load_is_one_warning(graph, tmp_path):
    import os
    fake = shadow_prefix(tmp_path, "lifecycle_msgs")
    node = graph.node
    events = node.create_publisher(TransitionEvent, "/lifecycle/transition_event", RELIABLE)
    chatter = node.create_publisher(String, "/chatter", RELIABLE)
    bag = tmp_path / "partial"
    env = {"AMENT_PREFIX_PATH": os.pathsep.join([str(fake), os.environ["AMENT_PREFIX_PATH"]])}
    rec = graph.start("arnie_bag", "record", "-a", "-x", "^/(rosout|parameter_events|events/write_split)$", "-o", str(bag), "-p", "100",
                      env=env)
    graph.wait_for_subscriber("/chatter")
    for i in range(N):
        events.publish(event(i))
        chatter.publish(String(data=f"still recorded {i}"))
        graph.spin_for(0.005)
    assert acked(chatter)
    graph.spin_for(0.5)
    out = stop(graph, rec)
    lines = [line for line in out.splitlines() if "not recording /lifecycle/transition_event" in line]
    assert len(lines) == 1, out
    assert "lifecycle_msgs/msg/TransitionEvent" in lines[0] and "does not load" in lines[0], lines[0]
    assert str(fake / "lib") in lines[0], lines[0]
    with AnyReader([bag]) as r:
        assert {c.topic for c in r.connections} == {"/chatter"}
        assert [r.deserialize(raw, c.msgtype).data for c, _, raw in r.messages()] == \
            [f"still recorded {i}" for i in range(N)]


def test_play_names_a_type_installed_nowhere_and_plays_the_rest(graph, tmp_path):
    store = get_typestore(Stores.ROS2_JAZZY)
    store.register(get_types_from_msg("int32 value\nstring note", "no_such_pkg/msg/Thing"))
    String_ = store.types["std_msgs/msg/String"]
    Thing = store.types["no_such_pkg/msg/Thing"]
    bag = tmp_path / "unknown_type"
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        c1 = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        c2 = w.add_connection("/thing", "no_such_pkg/msg/Thing", typestore=store)
        for i in range(N):
            t = 1_700_000_000_000_000_000 + i * 10_000_000
            w.write(c1, t, store.serialize_cdr(String_(data=f"m {i}"), "std_msgs/msg/String"))
            w.write(c2, t + 1, store.serialize_cdr(Thing(value=i, note="x"), "no_such_pkg/msg/Thing"))
    got = raw_collect(graph, String, "/chatter")
    play = graph.start("arnie_bag", "play", str(bag), *PLAY_WHEN_MATCHED)
    graph.spin_until(lambda: len(got) >= N, timeout=60.0, what=f"{N} /chatter messages played")
    assert graph.stop(play, timeout=30.0) == 0, graph.output(play)
    out = graph.output(play)
    lines = [line for line in out.splitlines() if "not playing /thing" in line]
    assert len(lines) == 1, out
    assert "no_such_pkg/msg/Thing" in lines[0] and "not installed" in lines[0], lines[0]
    assert [deserialize_message(bytes(m), String).data for m in got] == [f"m {i}" for i in range(N)]
