"""ros2 bag's (Jazzy) flags that arnie_bag gained with rosbag2's meaning, each run on a
real graph with rclpy as the independent side:

- `--node-name`, `--log-level` (record, play): the node's name on the graph; a warn level
  silences the info lines;
- `--qos-profile-overrides-path` (record and play, rosbag2's YAML): the recorder's
  subscription and the player's publisher take the file's profile; a bad file stops the
  command with the file, topic and field named;
- `--playback-until-sec` / `--playback-until-nsec`: nothing logged after that time plays;
- `--wait-for-all-acked`: the player waits for the acknowledgements and says so;
- `--use-sim-time` (record): log times from /clock; nothing written before the first.
"""
import subprocess
from pathlib import Path

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosbags.highlevel import AnyReader
from helpers.bags import MS, PLAY_WHEN_MATCHED, RELIABLE, T0, write_chatter_bag
from helpers.graph import binary

from rosgraph_msgs.msg import Clock
from std_msgs.msg import String

N = 40


def write_bag(path):
    """/chatter: N Strings, 25 ms apart from T0 (volatile, reliable as recorded)."""
    write_chatter_bag(path, N, 25 * MS)


def collect(graph, topic="/chatter", qos=RELIABLE):
    got = []
    graph.node.create_subscription(String, topic, lambda m: got.append(m.data), qos)
    return got


def finish(graph, proc, timeout=60.0):
    rc = graph.stop(proc, timeout=timeout)
    out = graph.output(proc)
    assert rc == 0, out
    return out


def wait_exit(graph, proc, timeout=90.0):
    proc.must_live = False
    graph.spin_until(lambda: proc.poll() is not None, timeout=timeout, what=f"{proc.name} to finish")
    out = graph.output(proc)
    assert proc.returncode == 0, out
    return out


def test_node_name_log_level_and_qos_overrides_on_record(graph, tmp_path):
    overrides = tmp_path / "qos.yaml"
    overrides.write_text("/chatter:\n  reliability: best_effort\n  depth: 7\n")
    pub = graph.node.create_publisher(String, "/chatter", RELIABLE)
    bag = tmp_path / "rec"
    rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(bag), "--node-name", "my_recorder",
                      "--log-level", "warn", "--qos-profile-overrides-path", str(overrides))
    graph.wait_for_subscriber("/chatter")
    # The endpoint's node name comes with discovery a moment after the endpoint.
    graph.spin_until(lambda: [i.node_name for i in graph.node.get_subscriptions_info_by_topic("/chatter")]
                     == ["my_recorder"], what="the recorder's subscription named my_recorder")
    infos = graph.node.get_subscriptions_info_by_topic("/chatter")
    assert infos[0].qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT, infos[0].qos_profile
    graph.spin_for(0.3)
    for i in range(10):
        pub.publish(String(data=f"r {i}"))
        graph.spin_for(0.01)
    graph.spin_for(0.5)
    out = finish(graph, rec)
    # --log-level warn: the recorder's info lines ("recording /chatter ...") are not shown.
    assert "recording /chatter" not in out, out
    with AnyReader([bag]) as r:
        got = [r.deserialize(raw, c.msgtype).data for c, _, raw in r.messages()]
    assert got and set(got) <= {f"r {i}" for i in range(10)}, got


def test_qos_overrides_on_play_and_bad_files(graph, tmp_path):
    bag = tmp_path / "bag"
    write_bag(bag)
    overrides = tmp_path / "qos.yaml"
    overrides.write_text("/chatter:\n  durability: transient_local\n  history: keep_last\n  depth: 50\n")
    latched = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    got = collect(graph, qos=latched)
    play = graph.start("arnie_bag", "play", str(bag), "--node-name", "my_player",
                       "--qos-profile-overrides-path", str(overrides), *PLAY_WHEN_MATCHED)
    graph.spin_until(lambda: [i.node_name for i in graph.node.get_publishers_info_by_topic("/chatter")]
                     == ["my_player"], what="the player's publisher named my_player")
    infos = graph.node.get_publishers_info_by_topic("/chatter")
    assert infos[0].qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL, infos[0].qos_profile
    wait_exit(graph, play)
    graph.spin_until(lambda: len(got) >= N, what="every message")
    assert got == [f"m {i}" for i in range(N)]

    # A bad file stops the command before it starts, naming file, topic and field.
    for text, want in [("/chatter:\n  reliability: sometimes\n", "/chatter: reliability: unknown policy"),
                       ("/chatter:\n  depht: 3\n", "unknown QoS field"),
                       ("/chatter: [1\n", "not YAML")]:
        overrides.write_text(text)
        for cmd in (["play", str(bag)], ["record", "-a", "-o", str(tmp_path / "never")]):
            r = subprocess.run([binary("arnie_bag"), *cmd, "--qos-profile-overrides-path", str(overrides)],
                               capture_output=True, text=True, timeout=60, env=graph.env)
            assert r.returncode == 2, (cmd, r.stdout, r.stderr)
            assert str(overrides) in r.stderr and want in r.stderr, r.stderr
    r = subprocess.run([binary("arnie_bag"), "play", str(bag), "--qos-profile-overrides-path", str(tmp_path / "nope.yaml")],
                       capture_output=True, text=True, timeout=60, env=graph.env)
    assert r.returncode == 2 and "nope.yaml" in r.stderr, r.stderr
    assert not (tmp_path / "never").exists()


def test_playback_until_sec_and_nsec(graph, tmp_path):
    bag = tmp_path / "bag"
    write_bag(bag)
    got = collect(graph)
    # Up to and including the message at T0 + 250 ms: m 0 .. m 10.
    until_ns = T0 + 10 * 25 * MS
    play = graph.start("arnie_bag", "play", str(bag), "--playback-until-nsec", str(until_ns), *PLAY_WHEN_MATCHED)
    wait_exit(graph, play)
    graph.spin_until(lambda: len(got) >= 11, what="11 messages")
    graph.spin_for(0.5)
    assert got == [f"m {i}" for i in range(11)]
    got.clear()
    # Seconds, with a fraction: T0 + 0.1 s keeps m 0 .. m 4.
    play = graph.start("arnie_bag", "play", str(bag), "--playback-until-sec", f"{T0 // 10**9}.1", *PLAY_WHEN_MATCHED)
    wait_exit(graph, play)
    graph.spin_until(lambda: len(got) >= 5, what="5 messages")
    graph.spin_for(0.5)
    assert got == [f"m {i}" for i in range(5)]
    r = subprocess.run([binary("arnie_bag"), "play", str(bag), "--playback-until-sec", "1", "--playback-until-nsec", "1"],
                       capture_output=True, text=True, timeout=60, env=graph.env)
    assert r.returncode == 2 and "cannot be used with" in r.stderr, r.stderr


def test_wait_for_all_acked(graph, tmp_path):
    bag = tmp_path / "bag"
    write_bag(bag)
    got = collect(graph)
    play = graph.start("arnie_bag", "play", str(bag), "--wait-for-all-acked", "20000", *PLAY_WHEN_MATCHED)
    out = wait_exit(graph, play)
    assert "every message acknowledged" in out, out
    graph.spin_until(lambda: len(got) >= N, what="every message")
    assert got == [f"m {i}" for i in range(N)]


def test_use_sim_time_stamps_with_clock(graph, tmp_path):
    clock = graph.node.create_publisher(Clock, "/clock", 10)
    pub = graph.node.create_publisher(String, "/chatter", RELIABLE)
    bag = tmp_path / "sim"
    rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(bag), "--use-sim-time")
    graph.wait_for_subscriber("/chatter")
    graph.wait_for_subscriber("/clock")
    graph.spin_for(0.3)
    # Before the first /clock: received, not written.
    pub.publish(String(data="before the clock"))
    graph.spin_for(0.5)
    sim_s = 42
    for i in range(10):
        m = Clock()
        m.clock.sec = sim_s + i
        clock.publish(m)
        graph.spin_for(0.3)
        pub.publish(String(data=f"at {sim_s + i}"))
        graph.spin_for(0.3)
    graph.spin_for(0.5)
    out = finish(graph, rec)
    assert "before the first /clock were not written" in out, out
    with AnyReader([bag]) as r:
        rows = [(t, r.deserialize(raw, c.msgtype).data) for c, t, raw in r.messages()]
    assert [d for _, d in rows] == [f"at {sim_s + i}" for i in range(10)], rows
    # Each message is stamped with the /clock value current when it arrived.
    for t, d in rows:
        sec = int(d.split()[1])
        assert sec * 10**9 <= t < (sec + 1) * 10**9, (t, d)


def test_clock_topics_publish_the_clock_at_each_message(graph, tmp_path):
    bag = tmp_path / "bag"
    write_bag(bag)
    from rclpy.qos import qos_profile_sensor_data
    clocks = []
    graph.node.create_subscription(Clock, "/clock", lambda m: clocks.append(m.clock.sec * 10**9 + m.clock.nanosec),
                                   qos_profile_sensor_data)
    got = collect(graph)
    play = graph.start("arnie_bag", "play", str(bag), "--clock-topics", "chatter", *PLAY_WHEN_MATCHED)
    graph.wait_for_publisher("/clock")
    wait_exit(graph, play)
    graph.spin_until(lambda: len(got) >= N, what="every message")
    graph.spin_for(0.5)
    times = [T0 + i * 25 * MS for i in range(N)]
    # /clock is best effort: whatever arrived is each message's time, in order.
    assert clocks and clocks == sorted(clocks) and set(clocks) <= set(times), clocks[:5]


def chunk_compressions(bag):
    """The compression of every chunk of the bag's MCAP files."""
    from mcap.reader import make_reader
    out = set()
    for f in sorted(Path(bag).glob("*.mcap")):
        with open(f, "rb") as fh:
            summary = make_reader(fh).get_summary()
            out |= {c.compression for c in summary.chunk_indexes}
    return out


def test_storage_preset_profile_and_config_file(graph, tmp_path):
    """`--storage-preset-profile` (the MCAP plugin's presets) and `--storage-config-file`
    (its keys, over the preset): the chunks are written as they say, every message is
    there for rosbags; `fastwrite` writes no chunks (messages straight in the data section),
    read back by rosbags, the `mcap` library and arnie_bag's own player; values that are not
    options are refused."""
    pub = graph.node.create_publisher(String, "/chatter", RELIABLE)
    config = tmp_path / "writer.yaml"
    config.write_text("compression: Lz4\nchunkSize: 4096\nprofile: ros2\n")
    runs = {"small": ("--storage-preset-profile", "zstd_small"), "none": ("--storage-preset-profile", "none"),
            "lz4": ("--storage-preset-profile", "zstd_fast", "--storage-config-file", str(config)),
            "fast": ("--storage-preset-profile", "fastwrite")}
    for name, flags in runs.items():
        bag = tmp_path / name
        rec = graph.start("arnie_bag", "record", "/chatter", "-o", str(bag), *flags)
        graph.wait_for_subscriber("/chatter")
        graph.spin_for(0.3)
        for i in range(N):
            pub.publish(String(data=f"{name} {i} " + "x" * 200))
        from rclpy.duration import Duration
        assert pub.wait_for_all_acked(Duration(seconds=20.0))
        graph.spin_for(0.5)
        out = finish(graph, rec)
        with AnyReader([bag]) as r:
            got = [deserialize_message(bytes(raw), String).data for _, _, raw in r.messages()]
        assert got == [f"{name} {i} " + "x" * 200 for i in range(N)], got[:3]
        want = {"small": {"zstd"}, "none": {""}, "lz4": {"lz4"}, "fast": set()}[name]
        assert chunk_compressions(bag) == want, (name, chunk_compressions(bag))
        if name == "lz4":
            assert "profile: not an MCAP writer option" in out, out
            # 4 KiB chunks: several of them for N messages of ~230 bytes.
            from mcap.reader import make_reader
            with open(next(bag.glob("*.mcap")), "rb") as fh:
                assert len(make_reader(fh).get_summary().chunk_indexes) > 1
        graph.spin_until(lambda: graph.node.count_subscribers("/chatter") == 0, what="the recorder gone")
        if name == "fast":
            from mcap.reader import make_reader
            with open(next(bag.glob("*.mcap")), "rb") as fh:
                r = make_reader(fh)
                assert r.get_summary().chunk_indexes == []
                fh.seek(0)
                assert len([m for m in make_reader(fh).iter_messages()]) == N
            replay = collect(graph)
            play = graph.start("arnie_bag", "play", str(bag), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
            wait_exit(graph, play)
            graph.spin_until(lambda: len(replay) == N, what="the fastwrite bag played")
            assert replay == got
    config.write_text("noChunking: sometimes\n")
    graph.start_refused("arnie_bag", "record", "-a", "-o", str(tmp_path / "x"), "--storage-config-file", str(config),
                        expect=("noChunking", str(config)))
    graph.start_refused("arnie_bag", "record", "-a", "-o", str(tmp_path / "y"), "--storage-preset-profile",
                        "turbo", expect=("turbo", "fastwrite"))
