"""Bags for the tests: written with rosbags (an independent writer), read back, played
into rclpy and recorded.
"""
import json
import os
from pathlib import Path

from rclpy.serialization import deserialize_message, serialize_message
from rosbags.highlevel import AnyReader
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from helpers import qos

from lifecycle_msgs.msg import State
from lifecycle_msgs.srv import GetState
from rclpy.qos import qos_profile_services_default
from rclpy.service_introspection import ServiceIntrospectionState

T0 = 1_700_000_000_000_000_000
MS = 1_000_000


def write_with_rosbags(path, version):
    store = get_typestore(Stores.ROS2_JAZZY)
    String = store.types["std_msgs/msg/String"]
    Pose = store.types["geometry_msgs/msg/PoseStamped"]
    Header, Time = store.types["std_msgs/msg/Header"], store.types["builtin_interfaces/msg/Time"]
    gm = {n: store.types[f"geometry_msgs/msg/{n}"] for n in ("Pose", "Point", "Quaternion")}
    latched = Qos(QosHistory.KEEP_LAST, 1, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL,
                  QosTime(0, 0), QosTime(0, 0), QosLiveliness.AUTOMATIC, QosTime(0, 0), False)
    with Writer(path, version=version, storage_plugin=StoragePlugin.MCAP) as w:
        c1 = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store, offered_qos_profiles=[latched])
        c2 = w.add_connection("/pose", "geometry_msgs/msg/PoseStamped", typestore=store)
        for i in range(40):
            t = T0 + i * 25 * MS
            w.write(c1, t, store.serialize_cdr(String(data=f"msg {i}"), "std_msgs/msg/String"))
            pose = Pose(header=Header(stamp=Time(sec=i, nanosec=5), frame_id="map"),
                        pose=gm["Pose"](position=gm["Point"](x=float(i), y=0.0, z=1.0),
                                        orientation=gm["Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0)))
            w.write(c2, t + 1, store.serialize_cdr(pose, "geometry_msgs/msg/PoseStamped"))


RELIABLE = qos.reliable(100)


def write_chatter_bag(path, n, step_ns):
    """/chatter: n Strings "m 0" .. "m {n-1}", step_ns apart from T0 (metadata v9, MCAP)."""
    store = get_typestore(Stores.ROS2_JAZZY)
    String = store.types["std_msgs/msg/String"]
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        c = w.add_connection("/chatter", "std_msgs/msg/String", typestore=store)
        for i in range(n):
            w.write(c, T0 + i * step_ns, store.serialize_cdr(String(data=f"m {i}"), "std_msgs/msg/String"))


# The player starts once each of its publishers has matched a subscription, plus a second
# (-d 1) for the subscriber's side of the match (a reader drops data from a writer it has not
# matched yet; the writer matches first or second, either way).
PLAY_WHEN_MATCHED = ("--wait-for-subscribers", "-d", "1")


def read_bag(path):
    """[(topic, log_time, raw bytes)] in log-time order, and the connections by topic."""
    with AnyReader([Path(path)]) as r:
        msgs = [(c.topic, t, bytes(raw)) for c, t, raw in r.messages()]
        return msgs, {c.topic: c for c in r.connections}


def stop_recorder(graph, proc):
    rc = graph.stop(proc, timeout=30.0)
    assert rc == 0, graph.output(proc)
    return graph.output(proc)


def raw_collect(graph, msg_type, topic, qos):
    got = []
    graph.node.create_subscription(msg_type, topic, got.append, qos, raw=True)
    return got


def same_bytes(got, sent, msg_type):
    """Received CDR equals the bag's, byte for byte, up to the zero padding Fast DDS adds
    to a multiple of 4 on the wire; rclpy reads both the same and serializes them the same."""
    assert len(got) == len(sent)
    for g, s in zip(got, sent):
        assert g[:len(s)] == s and set(g[len(s):]) <= {0} and len(g) - len(s) < 4, (g, s)
        assert serialize_message(deserialize_message(g, msg_type)) == serialize_message(deserialize_message(s, msg_type))


def serve_get_state(graph, name="/get_state"):
    """A lifecycle_msgs/GetState server on the client node with service introspection on
    (CONTENTS): its events go out on `<name>/_service_event`; answers "active N"."""
    calls = []

    def answer(req, resp):
        calls.append(req)
        resp.current_state = State(id=State.PRIMARY_STATE_ACTIVE, label=f"active {len(calls)}")
        return resp

    srv = graph.node.create_service(GetState, name, answer)
    srv.configure_introspection(graph.node.get_clock(), qos_profile_services_default,
                                ServiceIntrospectionState.CONTENTS)
    return srv


def share_file(rel):
    """The text of `share/<rel>` in the first prefix of AMENT_PREFIX_PATH that has it."""
    for prefix in os.environ["AMENT_PREFIX_PATH"].split(os.pathsep):
        p = Path(prefix) / "share" / rel
        if p.is_file():
            return p.read_text()
    raise AssertionError(f"{rel} is not installed")


GET_STATE_EVENT = "lifecycle_msgs/srv/GetState_Event"


def service_event_schema(service, uses):
    """(schema text, RIHS01 type hash) of `<service>_Event` as rosbag2 Jazzy's recorder
    stores a service event topic: `SRV:` and the `.srv` text, then each message it uses
    (`uses`: `pkg/msg/Name`); the hash from the package's `srv/<Name>.json`."""
    bar = "=" * 80 + "\n"
    pkg, _, name = service.split("/")
    text = f"{bar}SRV: {service}\n{share_file(f'{pkg}/srv/{name}.srv')}"
    for m in uses:
        mpkg, _, mname = m.split("/")
        text += f"\n{bar}MSG: {mpkg}/{mname}\n{share_file(f'{mpkg}/msg/{mname}.msg')}"
    hashes = json.loads(share_file(f"{pkg}/srv/{name}.json"))["type_hashes"]
    return text, next(h["hash_string"] for h in hashes if h["type_name"] == f"{service}_Event")


def get_state_event_schema():
    """[`service_event_schema`] of `lifecycle_msgs/srv/GetState`."""
    return service_event_schema("lifecycle_msgs/srv/GetState", ["lifecycle_msgs/msg/State"])
