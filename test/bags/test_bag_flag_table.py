"""Every row of the bag flag tables, run as written: README.md's ("arnie_bag | ros2 bag
equivalent") and nodes/tools/arnie_bag/README.md's ("arnie_bag | ros2 bag | notes").

The rows are read from the READMEs, so a row added there is run here (and a row whose
command does not work fails). Each command runs in a folder of its own holding what its
words name: the bag `run1` (not for `record`, which may write it) (/arm/position, /arm/command, /chatter and the service events
of /get_state, 1 s long, written by rosbags), `qos.yaml`, `writer.yaml`. Against the live
graph of this test (rclpy publishes /arm/position, /arm/command, /chatter, /diagnostics
and /clock and serves /get_state with service introspection on):

- `record`: publishes once the recorder subscribed, stops it with SIGINT; exit 0 and a
  bag with messages (none with `--start-paused`; with `--snapshot-mode`, after a call
  of `~/snapshot`);
- `play`: rclpy subscribes to every topic (and the remapped one) and serves /get_state;
  the one word the test adds is `--wait-for-subscribers` (arnie_bag's own) where a row
  plays without it, so no message goes out before discovery matched; exit 0 (SIGINT for a
  loop or a paused start) and at least one message received (none when paused);
- `info`, `reindex`, `rewrite`: exit 0 and what they print or write.

What each flag does is tested where the flag is: test_bag_flags.py,
test_bag_service_events.py, test_bag_services.py, test_bag.py, test_bag_keys.py.
"""
import re
import shlex
import shutil
import subprocess

import pytest
import yaml
from rclpy.serialization import serialize_message
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped
from lifecycle_msgs.msg import State
from lifecycle_msgs.srv import GetState
from rosbag2_interfaces.srv import Snapshot
from rosgraph_msgs.msg import Clock
from service_msgs.msg import ServiceEventInfo
from std_msgs.msg import String

from helpers.bags import GET_STATE_EVENT, MS, RELIABLE, T0, get_state_event_schema, serve_get_state
from helpers.graph import ROOT, binary

TABLES = [
    (ROOT / "README.md", "| arnie_bag | ros2 bag equivalent |"),
    (ROOT / "nodes" / "tools" / "arnie_bag" / "README.md", "| arnie_bag | ros2 bag | notes |"),
]
EVENTS = "/get_state/_service_event"
PLAYED = {"/arm/position": PointStamped, "/arm/command": PointStamped, "/chatter": String,
          EVENTS: GetState.Event, "/replay/arm/position": PointStamped}


def table_commands():
    """The arnie_bag command of each row, and one per extra form the first cell shows
    after it (`arnie_bag info run1` / `--json` / `-t`)."""
    out = []
    for path, head in TABLES:
        lines = path.read_text().splitlines()
        assert head in lines, f"{path}: the table {head!r} is gone"
        for line in lines[lines.index(head) + 2:]:
            if not line.startswith("|"):
                break
            first = re.split(r"(?<!\\) \| ", line[2:])[0]
            words = re.findall(r"`([^`]*)`", first)
            assert words and words[0].startswith("arnie_bag "), line
            base = words[0]
            out.append(base)
            out += [f"{base} {w}" for w in words[1:] if w.startswith("-")]
    return out


COMMANDS = table_commands()


def test_the_tables_have_the_rows_the_issue_names():
    """The parser finds the rows (the table did not change shape under it)."""
    text = " ".join(COMMANDS)
    for flag in ("--storage-preset-profile", "--snapshot-mode", "--all-services", "--clock-topics",
                 "--playback-until-sec", "--qos-profile-overrides-path", "--use-sim-time", "--node-name",
                 "--wait-for-all-acked", "--exclude-services", "info run1"):
        assert flag in text, flag
    assert len(COMMANDS) >= 40, len(COMMANDS)


def write_run1(path):
    """run1: 40 rounds, 25 ms apart, of /arm/position, /arm/command, /chatter and a GetState
    response event (the schema as rosbag2 stores a service's)."""
    store = get_typestore(Stores.ROS2_JAZZY)
    srv_text, rihs = get_state_event_schema()
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        arm = w.add_connection("/arm/position", "geometry_msgs/msg/PointStamped", typestore=store)
        cmd = w.add_connection("/arm/command", "geometry_msgs/msg/PointStamped", typestore=store)
        chatter = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        events = w.add_connection(EVENTS, GET_STATE_EVENT, msgdef=srv_text, rihs01=rihs)
        for i in range(40):
            t = T0 + i * 25 * MS
            point = PointStamped()
            point.header.stamp.sec, point.point.x = i, float(i)
            event = GetState.Event(info=ServiceEventInfo(event_type=ServiceEventInfo.RESPONSE_SENT, sequence_number=i),
                                   response=[GetState.Response(current_state=State(id=3, label=f"s {i}"))])
            for k, (c, m) in enumerate([(arm, point), (cmd, point), (chatter, String(data=f"m {i}")),
                                        (events, event)]):
                w.write(c, t + k, serialize_message(m))


def prepare(folder, bag):
    folder.mkdir()
    if bag:
        write_run1(folder / "run1")
    (folder / "qos.yaml").write_text(
        "/arm/position:\n  reliability: reliable\n  durability: volatile\n  history: keep_last\n  depth: 50\n")
    (folder / "writer.yaml").write_text("compression: Lz4\nchunkSize: 65536\n")


def args_of(command):
    words = shlex.split(command)
    assert words[0] == "arnie_bag"
    return words[1:]


def recorded(folder, args):
    """The bag a record command wrote: `-o DIR`, else the one default-named folder."""
    if "-o" in args:
        out = folder / args[args.index("-o") + 1]
    else:
        made = sorted(folder.glob("rosbag2_*"))
        assert len(made) == 1, made
        out = made[0]
    meta = yaml.safe_load((out / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    return out, meta["message_count"]


def run_record(graph, folder, args):
    pubs = {t: graph.node.create_publisher(ty, t, RELIABLE)
            for t, ty in [("/arm/position", PointStamped), ("/arm/command", PointStamped), ("/chatter", String),
                          ("/diagnostics", DiagnosticArray), ("/clock", Clock)]}
    serve_get_state(graph)
    client = graph.node.create_client(GetState, "/get_state")
    graph.wait_for_service(client, "/get_state")
    rec = graph.start("arnie_bag", *args, cwd=folder)
    watched = ["/arm/position", "/chatter", EVENTS]
    graph.spin_until(lambda: any(graph.node.count_subscribers(t) for t in watched), timeout=30.0,
                     what="the recorder's subscriptions")
    graph.settle_discovery()
    for i in range(20):
        clock = Clock()
        clock.clock.sec = 100 + i
        pubs["/clock"].publish(clock)
        point = PointStamped()
        point.header.stamp.sec = i
        for t in ("/arm/position", "/arm/command"):
            pubs[t].publish(point)
        pubs["/chatter"].publish(String(data=f"c {i}"))
        pubs["/diagnostics"].publish(DiagnosticArray())
        if i % 5 == 0:
            graph.wait_future(client.call_async(GetState.Request()), what="GetState")
        graph.spin_for(0.05)
    if "--snapshot-mode" in args:
        snap = graph.node.create_client(Snapshot, "/rosbag2_recorder/snapshot")
        graph.wait_for_service(snap, "/rosbag2_recorder/snapshot")
        assert graph.wait_future(snap.call_async(Snapshot.Request()), what="~/snapshot").success
    graph.spin_for(0.5)
    rc = graph.stop(rec, timeout=30.0)
    out = graph.output(rec)
    assert rc == 0, out
    bag, count = recorded(folder, args)
    if "--start-paused" in args:
        assert count == 0, out
    else:
        assert count > 0, out
    return bag


def run_play(graph, folder, args):
    got = {t: [] for t in PLAYED}
    for t, ty in PLAYED.items():
        graph.node.create_subscription(ty, t, got[t].append, RELIABLE)
    serve_get_state(graph)  # what `--publish-service-requests` calls
    paused = "-p" in args or "--start-paused" in args
    if not paused and "--wait-for-subscribers" not in args:
        # The one word added to a row: without it the player may publish before DDS has
        # matched this test's subscriptions (the bag is 1 s long, and
        # `--playback-until-sec` plays a quarter of it), and the test would race discovery.
        args = [*args, "--wait-for-subscribers"]
    play = graph.start("arnie_bag", *args, cwd=folder)
    total = lambda: sum(len(v) for v in got.values())  # noqa: E731
    needed = ["/replay/arm/position"] if "-m" in args else [EVENTS] if "--services" in args else []
    if paused:
        # Paused from the start: its services answer, nothing plays.
        graph.wait_for_nodes({"/rosbag2_player"})
        graph.spin_for(1.0)
        assert total() == 0
    else:
        graph.spin_until(lambda: play.poll() is not None or (total() >= 5 and all(got[t] for t in needed)),
                         timeout=60.0, what="messages played")
    rc = graph.stop(play, timeout=30.0)
    out = graph.output(play)
    assert rc == 0, out
    if not paused:
        assert total() >= 1, out
    if "--services" in args:
        # rosbag2's storage filter: the service list chooses services; with no topic list
        # every topic plays too.
        assert got[EVENTS], {t: len(v) for t, v in got.items()}
    if "-m" in args:
        assert got["/replay/arm/position"] and not got["/arm/position"], {t: len(v) for t, v in got.items()}


@pytest.mark.parametrize("command", COMMANDS)
def test_row(graph, tmp_path, command):
    folder = tmp_path / "row"
    args = args_of(command)
    verb = args[0]
    prepare(folder, bag=verb != "record")
    if verb == "record":
        run_record(graph, folder, args)
    elif verb == "play":
        run_play(graph, folder, args)
    else:
        r = subprocess.run([binary("arnie_bag"), *args], cwd=folder, capture_output=True, text=True, timeout=120,
                           env=graph.env)
        assert r.returncode == 0, r.stdout + r.stderr
        if verb == "info":
            assert "/arm/position" in r.stdout, r.stdout
        elif verb == "rewrite":
            out = folder / args[2]
            meta = yaml.safe_load((out / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
            assert meta["message_count"] > 0
        else:
            assert verb == "reindex", command
            assert (folder / "run1" / "metadata.yaml").is_file()
            shutil.rmtree(folder / "run1")
