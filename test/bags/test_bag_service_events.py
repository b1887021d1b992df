"""Services in bags, as Jazzy's `ros2 bag` records and plays them, and snapshot mode.

- A service with introspection on (rclpy's `configure_introspection`, CONTENTS) publishes
  its events on `/<service>/_service_event` (`<pkg>/srv/<Name>_Event`). `arnie_bag record
  --all-services` (and `-a`, `--services NAME`) records them; `--all-topics` does not;
  `--exclude-services` leaves one out. The schema is rosbag2's: the service's `.srv` text
  under `SRV: pkg/srv/Name`, then its dependencies. `info` lists the service and its
  event count; `play` publishes the events again, every one (rosbag2's default without
  `--publish-service-requests`).
- A bag as `ros2 bag record` writes it (its `/events/write_split`, a service event topic
  with rosbag2's `.srv` schema) plays every topic, byte for byte.
- `play --publish-service-requests` calls the service again with the recorded requests
  of one side (`--service-requests-source`), and skips responses.
- `--snapshot-mode --max-cache-size N` writes nothing until `~/snapshot`, then the newest
  messages that fit in N bytes, in order; messages after the last snapshot are not written.
"""
import struct
import subprocess

from mcap.reader import make_reader
from rclpy.duration import Duration
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message

from lifecycle_msgs.msg import State
from lifecycle_msgs.srv import GetState
from rosbag2_interfaces.srv import IsPaused, Snapshot
from service_msgs.msg import ServiceEventInfo
from std_msgs.msg import String

from helpers.bags import (PLAY_WHEN_MATCHED, get_state_event_schema, raw_collect, same_bytes, serve_get_state,
                          service_event_schema, stop_recorder)
from helpers.graph import binary

RELIABLE = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
EVENTS = "/get_state/_service_event"
EVENT_TYPE = "lifecycle_msgs/srv/GetState_Event"
CALLS = 5


def mcap_messages(bag):
    """{topic: (schema, [raw])} over every MCAP file of the bag."""
    out = {}
    for f in sorted(bag.glob("*.mcap")):
        with open(f, "rb") as fh:
            for schema, channel, message in make_reader(fh).iter_messages(log_time_order=True):
                out.setdefault(channel.topic, (schema, []))[1].append(bytes(message.data))
    return out


def call_n(graph, client, n):
    for _ in range(n):
        graph.wait_future(client.call_async(GetState.Request()), what="GetState")


def recorder_took_everything(graph, rounds=40):
    """The recorder takes one message per subscription per spin; each ~/is_paused round trip
    is at least one more spin, so after `rounds` of them it has taken that many messages
    that were already in its reader (acknowledged)."""
    c = graph.node.create_client(IsPaused, "/rosbag2_recorder/is_paused")
    graph.wait_for_service(c, "/rosbag2_recorder/is_paused")
    for _ in range(rounds):
        graph.wait_future(c.call_async(IsPaused.Request()), what="~/is_paused")


def test_service_events_are_recorded_listed_and_played(graph, tmp_path):
    serve_get_state(graph)
    serve_get_state(graph, "/other_state")
    graph.node.create_publisher(String, "/chatter", RELIABLE)
    bag, topics_only = tmp_path / "svc", tmp_path / "topics"
    rec = graph.start("arnie_bag", "record", "--all-services", "--exclude-services", "/other_state",
                      "-o", str(bag))
    rec_topics = graph.start("arnie_bag", "record", "--all-topics", "-o", str(topics_only),
                             "--node-name", "topics_recorder")
    graph.wait_for_subscriber(EVENTS)
    graph.wait_for_subscriber("/chatter")  # the --all-topics recorder has looked at the graph
    client = graph.node.create_client(GetState, "/get_state")
    graph.wait_for_service(client, "/get_state")
    other = graph.node.create_client(GetState, "/other_state")
    graph.wait_for_service(other, "/other_state")
    call_n(graph, client, CALLS)
    call_n(graph, other, 2)
    recorder_took_everything(graph)
    stop_recorder(graph, rec)
    stop_recorder(graph, rec_topics)

    got = mcap_messages(bag)
    assert "/other_state/_service_event" not in got, sorted(got)
    schema, raws = got[EVENTS]
    # Server-side introspection: a REQUEST_RECEIVED and a RESPONSE_SENT per call.
    assert len(raws) == 2 * CALLS, len(raws)
    assert schema.name == EVENT_TYPE
    text = schema.data.decode()
    assert text.startswith("=" * 80 + "\nSRV: lifecycle_msgs/srv/GetState\n"), text[:200]
    assert "\nMSG: lifecycle_msgs/State\n" in text, text
    assert schema.encoding == "ros2msg"
    events = [deserialize_message(r, GetState.Event) for r in raws]
    kinds = [e.info.event_type for e in events]
    assert kinds == [ServiceEventInfo.REQUEST_RECEIVED, ServiceEventInfo.RESPONSE_SENT] * CALLS, kinds
    labels = [e.response[0].current_state.label for e in events if e.response]
    assert labels == [f"active {i}" for i in range(1, CALLS + 1)], labels
    # --all-topics records no service.
    assert not [t for t in mcap_messages(topics_only) if t.endswith("/_service_event")]

    info = subprocess.run([binary("arnie_bag"), "info", str(bag)], capture_output=True, text=True,
                          timeout=60, check=True).stdout
    assert "Service:           1" in info, info
    assert f"Service: /get_state | Type: lifecycle_msgs/srv/GetState | Event Count: {2 * CALLS}" in info, info

    # Played back: every event again, as GetState.Event messages on the event topic.
    played = graph.collect(GetState.Event, EVENTS, qos=RELIABLE)
    play = graph.start("arnie_bag", "play", str(bag), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    graph.spin_until(lambda: len(played) >= 2 * CALLS, timeout=30.0, what="the played service events")
    assert graph.stop(play, timeout=30.0) == 0, graph.output(play)
    assert [e.info.event_type for e in played] == kinds
    assert [e.info.sequence_number for e in played] == [e.info.sequence_number for e in events]


def string_cdr_size(text):
    """std_msgs/String as CDR: encapsulation (4), length (4), the bytes and a NUL."""
    return 4 + 4 + len(text) + 1


def test_snapshot_mode_writes_only_the_newest_messages_on_snapshot(graph, tmp_path):
    cache = 1000
    pub = graph.node.create_publisher(String, "/chatter", RELIABLE)
    bag = tmp_path / "snap"
    rec = graph.start("arnie_bag", "record", "/chatter", "--snapshot-mode", "--max-cache-size", str(cache),
                      "-o", str(bag))
    snap = graph.node.create_client(Snapshot, "/rosbag2_recorder/snapshot")
    graph.wait_for_service(snap, "/rosbag2_recorder/snapshot")
    graph.wait_for_subscriber("/chatter")

    def send(words):
        for w in words:
            pub.publish(String(data=w))
        assert pub.wait_for_all_acked(Duration(seconds=20.0))
        recorder_took_everything(graph, rounds=len(words) + 5)

    first = [f"first {i:03d} " + "x" * 80 for i in range(30)]
    send(first)
    assert graph.wait_future(snap.call_async(Snapshot.Request()), what="~/snapshot").success is True
    send([f"after {i}" for i in range(5)])  # never snapshotted: not written
    stop_recorder(graph, rec)

    _, raws = mcap_messages(bag)["/chatter"]
    got = [deserialize_message(r, String).data for r in raws]
    size = string_cdr_size(first[0])
    fits = cache // size
    # The newest that fit in the cache, in order; the older ones were pushed out.
    assert got == first[-fits:], (fits, got)
    assert sum(len(r) for r in raws) <= cache
    assert struct.unpack_from("<I", raws[0], 4)[0] == len(first[0]) + 1


def test_snapshot_mode_refuses_a_zero_cache(graph, tmp_path):
    graph.start_refused("arnie_bag", "record", "-a", "--snapshot-mode", "--max-cache-size", "0",
                        "-o", str(tmp_path / "b"), expect=("--max-cache-size", "greater than 0"))


def test_a_bag_as_ros2_bag_record_writes_it_plays_every_topic(graph, tmp_path):
    """rosbag2 Jazzy's recorder writes its own /events/write_split and, with --all-services,
    service event topics whose schema is the .srv text ("SRV: ..."). Such a bag, written here
    by rosbags with rosbag2's schema text and type hash, plays every topic."""
    from rosbag2_interfaces.msg import WriteSplitEvent
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore
    srv_text, rihs = get_state_event_schema()
    store = get_typestore(Stores.ROS2_JAZZY)
    n = 6
    sent = {"/chatter": [], "/events/write_split": [], EVENTS: []}
    bag = tmp_path / "like_rosbag2"
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        chatter = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        split = w.add_connection("/events/write_split", "rosbag2_interfaces/msg/WriteSplitEvent", typestore=store)
        events = w.add_connection(EVENTS, EVENT_TYPE, msgdef=srv_text, rihs01=rihs)
        for i in range(n):
            t = 1_700_000_000_000_000_000 + i * 20_000_000
            msgs = [
                (chatter, "/chatter", String(data=f"m {i}")),
                (split, "/events/write_split",
                 WriteSplitEvent(closed_file=f"b_{i}.mcap", opened_file=f"b_{i + 1}.mcap", node_name="/rosbag2_recorder")),
                (events, EVENTS, GetState.Event(info=ServiceEventInfo(event_type=ServiceEventInfo.RESPONSE_SENT,
                                                                       sequence_number=i),
                                                response=[GetState.Response(current_state=State(id=3, label=f"s {i}"))])),
            ]
            for k, (c, topic, m) in enumerate(msgs):
                raw = serialize_message(m)
                sent[topic].append(raw)
                w.write(c, t + k, raw)
    got = {topic: raw_collect(graph, ty, topic, RELIABLE)
           for topic, ty in [("/chatter", String), ("/events/write_split", WriteSplitEvent), (EVENTS, GetState.Event)]}
    play = graph.start("arnie_bag", "play", str(bag), *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
    graph.spin_until(lambda: all(len(v) >= n for v in got.values()), timeout=60.0, what="every topic played")
    assert graph.stop(play, timeout=30.0) == 0, graph.output(play)
    for topic, raws in got.items():
        same_bytes(raws, sent[topic], {"/chatter": String, "/events/write_split": WriteSplitEvent,
                                       EVENTS: GetState.Event}[topic])
    last = deserialize_message(bytes(got[EVENTS][-1]), GetState.Event)
    assert last.response[0].current_state.label == f"s {n - 1}"


def write_change_state_bag(path, n):
    """/change_state's events as a service and a client with introspection on both record
    them: per call REQUEST_SENT ("client i"), REQUEST_RECEIVED ("server i"), RESPONSE_SENT,
    RESPONSE_RECEIVED; then one REQUEST_RECEIVED without its request (metadata only); and
    /chatter beside them."""
    from lifecycle_msgs.msg import Transition
    from lifecycle_msgs.srv import ChangeState
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore
    text, rihs = service_event_schema("lifecycle_msgs/srv/ChangeState", ["lifecycle_msgs/msg/Transition"])
    store = get_typestore(Stores.ROS2_JAZZY)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        events = w.add_connection("/change_state/_service_event", "lifecycle_msgs/srv/ChangeState_Event",
                                  msgdef=text, rihs01=rihs)
        chatter = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        t = 1_700_000_000_000_000_000
        kinds = [(ServiceEventInfo.REQUEST_SENT, "client"), (ServiceEventInfo.REQUEST_RECEIVED, "server"),
                 (ServiceEventInfo.RESPONSE_SENT, None), (ServiceEventInfo.RESPONSE_RECEIVED, None)]
        for i in range(n):
            for kind, side in kinds:
                info = ServiceEventInfo(event_type=kind, sequence_number=i + 1)
                ev = ChangeState.Event(info=info)
                if side:
                    ev.request = [ChangeState.Request(transition=Transition(id=3, label=f"{side} {i}"))]
                else:
                    ev.response = [ChangeState.Response(success=True)]
                t += 5_000_000
                w.write(events, t, serialize_message(ev))
            w.write(chatter, t + 1, serialize_message(String(data=f"m {i}")))
        metadata_only = ChangeState.Event(info=ServiceEventInfo(event_type=ServiceEventInfo.REQUEST_RECEIVED,
                                                                sequence_number=n + 1))
        w.write(events, t + 5_000_000, serialize_message(metadata_only))


def test_publish_service_requests_calls_the_service_again(graph, tmp_path):
    """`play --publish-service-requests` calls the recorded service with the recorded
    requests, as rosbag2's player: the requests the service received
    (`--service-requests-source service_introspection`, the default) or those the client
    sent (`client_introspection`), in order; responses are skipped, an event recorded
    without its request is counted and not sent, and the topics beside play as before."""
    from lifecycle_msgs.srv import ChangeState
    n = 5
    bag = tmp_path / "calls"
    write_change_state_bag(bag, n)
    got = []

    def answer(req, resp):
        got.append(req.transition.label)
        resp.success = True
        return resp

    graph.node.create_service(ChangeState, "/change_state", answer)
    chatter = raw_collect(graph, String, "/chatter", RELIABLE)
    for flags, side in [((), "server"), (("--service-requests-source", "client_introspection"), "client")]:
        got.clear()
        chatter.clear()
        play = graph.start("arnie_bag", "play", str(bag), "--publish-service-requests", *flags,
                           *PLAY_WHEN_MATCHED, "--disable-keyboard-controls")
        play.must_live = False
        graph.spin_until(lambda: play.poll() is not None, timeout=90.0, what="the bag played")
        out = graph.output(play)
        assert play.returncode == 0, out
        graph.spin_until(lambda: len(got) >= n, what=f"{n} requests served")
        graph.spin_for(0.3)
        assert got == [f"{side} {i}" for i in range(n)], (got, out)
        assert len(chatter) == n, out
        without = 1 if side == "server" else 0
        assert f"/change_state: {n} requests sent, {3 * n + 1 - without} events skipped" in out, out
        assert f"{without} without contents" in out, out
        if without:
            assert "introspection was metadata only" in out, out
        # The events were not published as a topic.
        assert graph.node.count_publishers("/change_state/_service_event") == 0
