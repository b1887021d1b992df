"""arnie_bag play's terminal keys and topic selection, on a real graph with rclpy as the
client.

- keys through a real pseudo-terminal (os.openpty; the player's stdin, stdout and stderr),
  written as a terminal sends them: start paused (`-p`), → publishes the next message
  while paused (messages 100 s apart arrive at once, one per key), space resumes and
  pauses (the /clock bag time moves, then stands still), ↑/↓ change the rate by 0.1
  (the /clock bag time runs several times faster after ↑ x18 from -r 0.2 and slower
  again after ↓ x15), q ends playback with exit code 0 and the terminal mode restored;
- `record --start-paused` on a terminal records nothing until space, and picks up a
  topic that appears after it started (discovery polling);
- `-e/--regex` and `-x/--exclude-regex` select topics as rosbag2's player does (the
  whole name must match).

No timing is asserted: the rate check compares the speed of the bag clock before and
after the keys, whose expected ratio (10 and 4) is far from the bound used (3 and 2).
"""
import os
import subprocess
import termios
import threading
import time

from helpers.graph import binary
from helpers.bags import PLAY_WHEN_MATCHED, RELIABLE, T0, raw_collect, read_bag, same_bytes, write_with_rosbags
from rclpy.duration import Duration
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from geometry_msgs.msg import PoseStamped
from rosgraph_msgs.msg import Clock
from std_msgs.msg import String

S = 1_000_000_000
SPACE, RIGHT, UP, DOWN = b" ", b"\x1b[C", b"\x1b[A", b"\x1b[B"
TICKS = 5  # /tick messages, 100 s of bag time apart


def write_tick_bag(path):
    store = get_typestore(Stores.ROS2_JAZZY)
    String_ = store.types["std_msgs/msg/String"]
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        c = w.add_connection("/tick", "std_msgs/msg/String", typestore=store)
        for k in range(TICKS):
            w.write(c, T0 + k * 100 * S, store.serialize_cdr(String_(data=f"tick {k}"), "std_msgs/msg/String"))


class PtyPlayer:
    """`arnie_bag play ...` (or `record ...` with command="record") with a
    pseudo-terminal as stdin/stdout/stderr; its output is copied to a log file the graph
    shows on failure."""

    def __init__(self, graph, *args, command="play"):
        self.master, slave = os.openpty()
        self.saved_mode = termios.tcgetattr(slave)
        self.slave = slave
        path = graph.tmp / f"arnie_bag-pty-{len(graph.procs)}.log"
        self.sink = open(path, "wb")
        self.text = b""
        self.lock = threading.Lock()
        self.proc = subprocess.Popen([binary("arnie_bag"), command, *map(str, args)], env=graph.env,
                                     stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
        self.proc.log = open(path, "r")
        self.proc.name = f"arnie_bag {command} (pty)"
        graph.procs.append(self.proc)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                b = os.read(self.master, 4096)
            except OSError:
                return
            if not b:
                return
            with self.lock:
                self.text += b
            self.sink.write(b)
            self.sink.flush()

    def output(self):
        with self.lock:
            return self.text.decode(errors="replace")

    def press(self, key, times=1):
        for _ in range(times):
            os.write(self.master, key)


def clock_speed(graph, clock, seconds):
    """Bag seconds per wall second seen on /clock over about `seconds`."""
    start = len(clock)
    graph.spin_for(seconds)
    window = clock[start:]
    assert len(window) >= 2, f"{len(window)} /clock messages in {seconds} s"
    (w0, c0), (w1, c1) = window[0], window[-1]
    return (c1 - c0) / 1e9 / (w1 - w0)


def test_keys_on_a_terminal_pause_step_resume_and_rate(graph, tmp_path):
    bag = tmp_path / "ticks"
    write_tick_bag(bag)
    ticks = raw_collect(graph, String, "/tick", RELIABLE)
    clock = []
    graph.node.create_subscription(
        Clock, "/clock", lambda m: clock.append((time.monotonic(), m.clock.sec * S + m.clock.nanosec)),
        QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT))
    p = PtyPlayer(graph, bag, "-p", "-r", "0.2", "--clock", "20", *PLAY_WHEN_MATCHED)
    # Keys are read once the terminal is in raw mode, announced by the help lines.
    graph.spin_until(lambda: "Press SPACE for Pause/Resume" in p.output(), timeout=60.0, what="the key help")
    graph.spin_until(lambda: len(clock) >= 3, timeout=30.0, what="/clock")
    assert not ticks, "started paused: nothing may be published before a key"
    # Paused, the clock stands at the bag's start.
    assert {c for _, c in clock} == {T0}, clock[-3:]

    # →: the next message at once, however far away; the clock moves to it.
    expected, _ = read_bag(bag)
    for n in (1, 2):
        p.press(RIGHT)
        graph.spin_until(lambda: len(ticks) == n, timeout=30.0, what=f"tick {n - 1} after → number {n}")
    same_bytes(ticks, [raw for _, _, raw in expected[:2]], String)
    graph.spin_until(lambda: clock[-1][1] == T0 + 100 * S, timeout=30.0, what="the clock at tick 1")

    # Space resumes at -r 0.2; ↑ x18 makes it 2.0; ↓ x15 makes it 0.5.
    p.press(SPACE)
    graph.spin_until(lambda: clock[-1][1] > T0 + 100 * S, timeout=30.0, what="the clock to run after space")
    slow = clock_speed(graph, clock, 2.5)
    p.press(UP, 18)
    graph.spin_until(lambda: "rate 2.00" in p.output(), timeout=30.0, what="the rate after ↑ x18")
    fast = clock_speed(graph, clock, 2.5)
    p.press(DOWN, 15)
    graph.spin_until(lambda: "rate 0.50" in p.output(), timeout=30.0, what="the rate after ↓ x15")
    middle = clock_speed(graph, clock, 2.5)
    print(f"bag clock speed: -r 0.2 {slow:.3f}, after ↑ x18 {fast:.3f}, after ↓ x15 {middle:.3f}")
    assert fast > 3 * slow and fast > 2 * middle, (slow, fast, middle)
    assert len(ticks) == 2, "tick 2 is 100 bag seconds away: still far at these rates"

    # Space pauses: the clock stands still; → then plays tick 2 at once.
    p.press(SPACE)
    graph.spin_until(lambda: len(clock) >= 5 and len({c for _, c in clock[-5:]}) == 1 and clock[-1][0] - clock[-5][0] > 0.1,
                     timeout=30.0, what="the clock to stand still after space")
    p.press(RIGHT)
    graph.spin_until(lambda: len(ticks) == 3, timeout=30.0, what="tick 2 after →")
    same_bytes(ticks, [raw for _, _, raw in expected[:3]], String)

    # q ends playback cleanly and the terminal gets its mode back.
    p.press(b"q")
    p.proc.must_live = False
    assert p.proc.wait(30) == 0, p.output()
    assert termios.tcgetattr(p.slave)[3] == p.saved_mode[3], "local modes (ICANON, ECHO) restored"
    out = p.output()
    assert "Pausing play" in out and "Resuming play" in out, out
    assert "panicked" not in out, out


def test_play_regex_and_exclude_regex_select_whole_names(graph, tmp_path):
    src = tmp_path / "two_topics"
    write_with_rosbags(src, 9)
    expected, _ = read_bag(src)
    pose = raw_collect(graph, PoseStamped, "/pose", RELIABLE)
    # `-e /po` would find /pose in `record` (a search); in `play` the whole name must match.
    none = graph.start("arnie_bag", "play", str(src), "-e", "/po", "--disable-keyboard-controls")
    none.must_live = False
    assert none.wait(60) == 0, graph.output(none)
    assert "published" not in graph.output(none), graph.output(none)
    play = graph.start("arnie_bag", "play", str(src), "-e", "/(pose|chatter)", "-x", "/chat.*",
                       *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    play.must_live = False
    graph.spin_until(lambda: len(pose) == 40, timeout=60.0, what="every /pose message")
    assert play.wait(30) == 0, graph.output(play)
    out = graph.output(play)
    assert "/pose: 40 published" in out and "/chatter" not in out, out
    same_bytes(pose, [raw for t, _, raw in expected if t == "/pose"], PoseStamped)


def test_record_start_paused_space_and_a_late_topic(graph, tmp_path):
    node = graph.node
    early = node.create_publisher(String, "/early", RELIABLE)
    bag = tmp_path / "paused"
    p = PtyPlayer(graph, "-a", "-x", "^/(rosout|parameter_events)$", "-o", bag, "--start-paused", command="record")
    graph.wait_for_subscriber("/early")
    graph.spin_for(0.5)
    early.publish(String(data="while paused"))
    assert early.wait_for_all_acked(Duration(seconds=20.0))
    # Acknowledged = in the recorder's reader; its loop takes it within a spin (10 ms).
    graph.spin_for(1.0)
    p.press(SPACE)
    graph.spin_until(lambda: "recording resumed" in p.output(), timeout=30.0, what="recording resumed after space")
    late = node.create_publisher(String, "/late", RELIABLE)
    graph.wait_for_subscriber("/late")
    graph.spin_for(0.5)
    early.publish(String(data="recorded"))
    late.publish(String(data="late topic"))
    assert early.wait_for_all_acked(Duration(seconds=20.0)) and late.wait_for_all_acked(Duration(seconds=20.0))
    graph.spin_for(0.5)
    assert graph.stop(p.proc, timeout=30.0) == 0, p.output()
    msgs, _ = read_bag(bag)
    got = {}
    for topic, _, raw in msgs:
        got.setdefault(topic, []).append(deserialize_message(raw, String).data)
    assert got == {"/early": ["recorded"], "/late": ["late topic"]}, (got, p.output())
