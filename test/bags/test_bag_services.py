"""`arnie_bag play` serves rosbag2's player services (rosbag2_interfaces, under the node
name rosbag2_player), called here from rclpy as a script or GUI calls them on a real
`ros2 bag play`: pause, resume, toggle_paused, is_paused, get_rate, set_rate, play_next,
burst, seek, play, stop, with rosbag2's answers.
"""
from builtin_interfaces.msg import Time
from rclpy.qos import QoSProfile, ReliabilityPolicy

from rosbag2_interfaces.srv import (Burst, GetRate, IsPaused, Pause, Play, PlayNext, Resume, Seek, SetRate, Stop,
                                    TogglePaused)
from std_msgs.msg import String

from helpers.bags import T0, write_chatter_bag

RELIABLE = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
STEP = 100_000_000  # 100 ms between messages
N = 60


def write_bag(path):
    write_chatter_bag(path, N, STEP)


def test_player_services_behave_as_rosbag2s(graph, tmp_path):
    bag = tmp_path / "bag"
    write_bag(bag)
    got = []
    graph.node.create_subscription(String, "/chatter", lambda m: got.append(m.data), RELIABLE)
    play = graph.start("arnie_bag", "play", str(bag), "--start-paused", "--wait-for-subscribers",
                       "--disable-keyboard-controls")
    node = graph.node
    clients = {}
    for name, srv in [("pause", Pause), ("resume", Resume), ("toggle_paused", TogglePaused),
                      ("is_paused", IsPaused), ("get_rate", GetRate), ("set_rate", SetRate), ("play", Play),
                      ("play_next", PlayNext), ("burst", Burst), ("seek", Seek), ("stop", Stop)]:
        clients[name] = node.create_client(srv, f"/rosbag2_player/{name}")
        graph.wait_for_service(clients[name], f"/rosbag2_player/{name}")

    def call(name, **fields):
        req = clients[name].srv_type.Request(**fields)
        return graph.wait_future(clients[name].call_async(req), timeout=30.0, what=f"~/{name}")

    graph.wait_for_subscriber("/chatter")
    assert call("is_paused").paused is True
    assert call("get_rate").rate == 1.0
    assert call("set_rate", rate=2.0).success is True
    assert call("get_rate").rate == 2.0
    assert call("set_rate", rate=0.0).success is False
    assert call("set_rate", rate=-1.0).success is False
    assert call("get_rate").rate == 2.0

    # Paused: play_next plays one message, burst several, at once.
    assert call("play_next").success is True
    graph.spin_until(lambda: got == ["m 0"], what="m 0 from play_next")
    assert call("burst", num_messages=3).actually_burst == 3
    graph.spin_until(lambda: got == ["m 0", "m 1", "m 2", "m 3"], what="m 1..m 3 from burst")

    # Seek to the 30th message's time: the next one played is m 30.
    t = T0 + 30 * STEP
    assert call("seek", time=Time(sec=t // 10**9, nanosec=t % 10**9)).success is True
    assert call("play_next").success is True
    graph.spin_until(lambda: got[-1:] == ["m 30"], what="m 30 after the seek")
    assert call("is_paused").paused is True

    # The command line's playback is running: play answers false, as rosbag2's.
    assert call("play").success is False

    # Resume: messages flow in order from m 31; pause stops them.
    call("toggle_paused")
    assert call("is_paused").paused is False
    graph.spin_until(lambda: len(got) >= 8, what="playback after resuming")
    call("pause")
    assert call("is_paused").paused is True
    # Not paused any more for play_next / burst: they do nothing while playing.
    call("resume")
    assert call("play_next").success is False
    assert call("burst", num_messages=5).actually_burst == 0
    call("pause")
    settled = len(got)
    graph.spin_for(0.5)
    assert len(got) == settled, got
    assert got[4:] == [f"m {i}" for i in range(30, 30 + len(got) - 4)], got

    # Stop: the player ends before the bag does, exit 0.
    call("stop")
    play.must_live = False
    graph.spin_until(lambda: play.poll() is not None, timeout=30.0, what="the player to end after ~/stop")
    assert play.returncode == 0, graph.output(play)
    assert f"m {N - 1}" not in got


def test_recorder_services_and_write_split_events(graph, tmp_path):
    from rosbag2_interfaces.msg import WriteSplitEvent
    from rosbag2_interfaces.srv import Snapshot, SplitBagfile
    from rosbags.highlevel import AnyReader
    node = graph.node
    pub = node.create_publisher(String, "/chatter", RELIABLE)
    events = graph.collect(WriteSplitEvent, "/events/write_split")
    bag = tmp_path / "rec"
    rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(bag))
    clients = {}
    for name, srv in [("pause", Pause), ("resume", Resume), ("is_paused", IsPaused),
                      ("split_bagfile", SplitBagfile), ("snapshot", Snapshot)]:
        clients[name] = node.create_client(srv, f"/rosbag2_recorder/{name}")
        graph.wait_for_service(clients[name], f"/rosbag2_recorder/{name}")

    def call(name, **fields):
        req = clients[name].srv_type.Request(**fields)
        return graph.wait_future(clients[name].call_async(req), timeout=30.0, what=f"~/{name}")

    def send(words):
        for w in words:
            pub.publish(String(data=w))
            graph.spin_for(0.01)
        from rclpy.duration import Duration
        assert pub.wait_for_all_acked(Duration(seconds=20.0))
        graph.spin_for(0.5)  # the recorder drains its queue (acked = received by the reader)

    graph.wait_for_subscriber("/chatter")
    graph.wait_for_publisher("/events/write_split")
    assert call("is_paused").paused is False
    send(["kept 1", "kept 2"])
    call("pause")
    assert call("is_paused").paused is True
    send(["while paused"])
    call("resume")
    assert call("is_paused").paused is False
    send(["kept 3"])
    call("split_bagfile")
    graph.spin_until(lambda: len(events) >= 1, what="the write_split event")
    e = events[0]
    assert e.closed_file == str(bag / "rec_0.mcap") and e.opened_file == str(bag / "rec_1.mcap"), e
    assert e.node_name == "/rosbag2_recorder", e
    send(["kept 4"])
    assert call("snapshot").success is False
    assert graph.stop(rec, timeout=30.0) == 0, graph.output(rec)
    with AnyReader([bag]) as r:
        got = [r.deserialize(raw, c.msgtype).data for c, _, raw in r.messages()]
    assert got == ["kept 1", "kept 2", "kept 3", "kept 4"], got
    assert sorted(p.name for p in bag.glob("*.mcap")) == ["rec_0.mcap", "rec_1.mcap"]
