"""arnie_bag's files checked by independent readers and writers (no ROS graph).

- a bag written by the library (the `write_sample` example: PoseStamped, String, a
  latched String, BrainState; zstd, lz4, none; split by size) reads in Python `rosbags`
  (AnyReader: every message deserialised with the schema we stored, QoS, type hashes)
  and in `mcap` + `mcap-ros2-support` (profile, schema encoding, every message decoded);
- bags written by `rosbags` (metadata v9 and v8, MCAP) read in `arnie_bag info --json`
  and copy through `arnie_bag rewrite` message for message;
- `info` has the lines of `ros2 bag info`; each bad input of item 8 is one line naming
  the file (play, rewrite, info), never a panic;
- a writer killed with SIGKILL mid-recording leaves a bag `rosbags` cannot open;
  `arnie_bag reindex` repairs it and `rosbags` reads exactly what was flushed.
"""
import json
import signal
import subprocess
from pathlib import Path

import pytest
from arnie_interfaces.msg import BrainEvent
from helpers.graph import BIN_DIR, ROOT, binary
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader, AnyReaderError
from rosbags.interfaces import QosDurability, QosReliability
from helpers.bags import MS, T0, write_with_rosbags


def example(name):
    """An example binary of arnie_bag (built by `cargo test`; built here if missing)."""
    path = BIN_DIR / "examples" / name
    if not path.exists():
        subprocess.run(["cargo", "build", "-q", "-p", "arnie_bag", "--example", name], cwd=ROOT, check=True)
    return str(path)


def arnie_bag(*args):
    return subprocess.run([binary("arnie_bag"), *map(str, args)], capture_output=True, text=True, timeout=120)


def read_rosbags(path):
    """(topic, log time, raw bytes) of every message, and the connections, via AnyReader."""
    with AnyReader([Path(path)]) as r:
        msgs = [(c.topic, t, bytes(raw)) for c, t, raw in r.messages()]
        decoded = [(c.topic, r.deserialize(raw, c.msgtype)) for c, _, raw in r.messages()]
        return msgs, decoded, {c.topic: c for c in r.connections}


@pytest.mark.parametrize("args", [[], ["--compression", "lz4"], ["--compression", "none"], ["--max-bag-size", "8192"]])
def test_library_bag_reads_in_rosbags_and_mcap(tmp_path, args):
    bag = tmp_path / "sample"
    subprocess.run([example("write_sample"), bag, *args], check=True, capture_output=True, timeout=120)
    meta = (bag / "metadata.yaml").read_text()
    assert meta.startswith("rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n")

    msgs, decoded, conns = read_rosbags(bag)
    assert {t: c.msgcount for t, c in conns.items()} == {"/map_info": 1, "/pose": 200, "/chatter": 100, "/brain/state": 20}
    assert conns["/pose"].msgtype == "geometry_msgs/msg/PoseStamped"
    assert conns["/pose"].digest == "RIHS01_10f3786d7d40fd2b54367835614bff85d4ad3b5dab62bf8bca0cc232d73b4cd8"
    assert conns["/map_info"].ext.offered_qos_profiles[0].durability == QosDurability.TRANSIENT_LOCAL
    assert conns["/pose"].ext.offered_qos_profiles[0].reliability == QosReliability.BEST_EFFORT
    poses = [m for t, m in decoded if t == "/pose"]
    assert [round(p.pose.position.x, 6) for p in poses] == [round(k * 0.001, 6) for k in range(200)]
    assert poses[7].header.frame_id == "world" and poses[7].header.stamp.nanosec == 70_000_000
    assert [m.data for t, m in decoded if t == "/chatter"][:2] == ["hello 0", "hello 2"]
    states = [m for t, m in decoded if t == "/brain/state"]
    assert states[3].tick == 30 and states[3].target.z == 0.3
    assert [(e.kind, e.text) for e in states[3].events] == [(BrainEvent.IDLE, "tick 30")]
    # log_time = receive time, in order.
    times = [t for _, t, _ in msgs]
    assert times == sorted(times) and times[0] == T0 and times[-1] == T0 + 199 * 10 * MS

    files = sorted(bag.glob("*.mcap"))
    if "--max-bag-size" in args:
        assert len(files) > 1
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            reader = make_reader(fh, decoder_factories=[DecoderFactory()])
            summary = reader.get_summary()
            assert reader.get_header().profile == "ros2"
            assert {s.encoding for s in summary.schemas.values()} == {"ros2msg"}
            assert summary.statistics.message_count > 0
            for ch in summary.channels.values():
                assert ch.message_encoding == "cdr"
                assert ch.metadata["offered_qos_profiles"].startswith("- history: keep_last\n")
            for _schema, channel, message, obj in reader.iter_decoded_messages():
                assert message.log_time >= T0
                if channel.topic == "/pose":
                    assert obj.header.frame_id == "world"
                total += 1
            names = [m.name for m in reader.iter_metadata()]
            assert "rosbag2" in names
    assert total == 321


@pytest.mark.parametrize("version", [9, 8])
def test_rosbags_written_bag_reads_in_arnie_bag(tmp_path, version):
    src = tmp_path / f"from_rosbags_v{version}"
    write_with_rosbags(src, version)

    info = arnie_bag("info", src, "--json")
    assert info.returncode == 0, info.stderr
    j = json.loads(info.stdout)
    assert j["version"] == version and j["message_count"] == 80 and j["storage_identifier"] == "mcap"
    topics = {t["name"]: t for t in j["topics"]}
    assert topics["/chatter"]["type"] == "std_msgs/msg/String" and topics["/chatter"]["message_count"] == 40
    assert topics["/chatter"]["offered_qos_profiles"][0]["durability"] == "transient_local"
    assert topics["/pose"]["type_description_hash"].startswith("RIHS01_")
    text = arnie_bag("info", src)
    assert "Topic: /pose | Type: geometry_msgs/msg/PoseStamped | Count: 40 | Serialization Format: cdr" in text.stdout
    assert "Messages:          80" in text.stdout

    out = tmp_path / "copy"
    r = arnie_bag("rewrite", src, out)
    assert r.returncode == 0, r.stderr
    a, _, ca = read_rosbags(src)
    b, decoded, cb = read_rosbags(out)
    assert a == b
    assert cb["/chatter"].ext.offered_qos_profiles[0].durability == QosDurability.TRANSIENT_LOCAL
    assert [m.pose.position.x for t, m in decoded if t == "/pose"] == [float(i) for i in range(40)]
    # The bare .mcap of the rosbags bag reads too.
    bare = arnie_bag("info", next(src.glob("*.mcap")), "--json")
    assert bare.returncode == 0, bare.stderr
    assert json.loads(bare.stdout)["message_count"] == 80


def test_kill_9_mid_write_then_reindex(tmp_path):
    bag = tmp_path / "crash"
    # Flushes every 50 loop steps, then hangs after 175: steps 151..175 sit in the open chunk.
    p = subprocess.Popen([example("write_sample"), bag, "--messages", "1000", "--flush-every", "50", "--hang-after", "175"],
                         stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "written 175"
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL
    with pytest.raises(AnyReaderError):
        read_rosbags(bag)
    info = arnie_bag("rewrite", bag, tmp_path / "x")
    assert info.returncode == 1 and "truncated" in info.stderr and "reindex" in info.stderr
    assert len(info.stderr.strip().splitlines()) == 1

    r = arnie_bag("reindex", bag)
    assert r.returncode == 0, r.stderr
    assert "recovered 241 messages" in r.stdout
    _, decoded, conns = read_rosbags(bag)
    assert {t: c.msgcount for t, c in conns.items()} == {"/map_info": 1, "/pose": 150, "/chatter": 75, "/brain/state": 15}
    assert [round(m.pose.position.x, 6) for t, m in decoded if t == "/pose"] == [round(k * 0.001, 6) for k in range(150)]


def one_line_error(r, path, *words):
    """Exit code 1, exactly one line on stderr naming `path` (and `words`), no panic."""
    err = r.stderr.strip()
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert len(err.splitlines()) == 1, err
    assert str(path) in err and all(w in err for w in words), err
    assert "panicked" not in r.stderr + r.stdout


def test_bad_input_is_one_line_naming_the_file(tmp_path):
    """Item 8 through the binary: each bad bag is one line naming the file, exit code 1,
    for every command that opens it (play fails before it joins the graph)."""
    good = tmp_path / "good"
    subprocess.run([example("write_sample"), good], check=True, capture_output=True, timeout=120)

    def copy(name):
        d = tmp_path / name
        d.mkdir()
        for f in good.iterdir():
            (d / f.name.replace("good", name)).write_bytes(f.read_bytes())
        (d / "metadata.yaml").write_text((good / "metadata.yaml").read_text().replace("good_0.mcap", f"{name}_0.mcap"))
        return d

    def every_command(bag, path, *words, info=True):
        for cmd in (["play", bag, "--disable-keyboard-controls"], ["rewrite", bag, tmp_path / "out_never"]) + ((["info", bag],) if info else ()):
            one_line_error(arnie_bag(*cmd), path, *words)
        assert not (tmp_path / "out_never").exists()

    # A missing bag.
    every_command(tmp_path / "nope", tmp_path / "nope")
    # A folder without metadata.yaml (rosbag2 needs it too; reindex makes one).
    d = copy("nometa")
    (d / "metadata.yaml").unlink()
    every_command(d, d, "reindex")
    # Unreadable metadata.yaml: broken YAML, and bytes that are not text.
    d = copy("badyaml")
    (d / "metadata.yaml").write_text("rosbag2_bagfile_information: [")
    every_command(d, d / "metadata.yaml")
    (d / "metadata.yaml").write_bytes(b"\xff\xfe\x00garbage\x80")
    every_command(d, d / "metadata.yaml")
    # An unknown storage id.
    d = copy("sqlite")
    (d / "metadata.yaml").write_text((d / "metadata.yaml").read_text().replace("storage_identifier: mcap", "storage_identifier: sqlite3"))
    every_command(d, d / "metadata.yaml", "sqlite3", info=False)
    # (info reads metadata.yaml alone, as `ros2 bag info` does, so it still describes it.)
    assert "Storage id:        sqlite3\n" in arnie_bag("info", d).stdout
    # A corrupt bag: the MCAP file is something else. (info reads metadata.yaml alone.)
    d = copy("corrupt")
    (d / "corrupt_0.mcap").write_bytes(b"PK\x03\x04 this is a zip file, not MCAP")
    every_command(d, d / "corrupt_0.mcap", info=False)
    # A truncated MCAP (cut off by a crash): named, with the way out.
    d = copy("cut")
    f = d / "cut_0.mcap"
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    every_command(d, f, "truncated", "reindex", info=False)
    one_line_error(arnie_bag("info", f), f, "truncated")  # a bare file is read from its summary
    # A schema that does not match its topic's type in metadata.yaml.
    d = copy("mismatch")
    (d / "metadata.yaml").write_text((d / "metadata.yaml").read_text().replace("type: geometry_msgs/msg/PoseStamped", "type: nav_msgs/msg/Path"))
    every_command(d, d / "mismatch_0.mcap", "/pose", "nav_msgs/msg/Path", "geometry_msgs/msg/PoseStamped", info=False)
    # The recoverable ones: reindex repairs the cut file and the lost metadata.yaml.
    for name in ("cut", "nometa"):
        r = arnie_bag("reindex", tmp_path / name)
        assert r.returncode == 0, r.stderr
        assert arnie_bag("info", tmp_path / name).returncode == 0
        read_rosbags(tmp_path / name)


def test_info_layout_is_ros2_bag_info(tmp_path):
    """`info` prints the lines of `ros2 bag info` in its order and alignment; --json and
    -t carry the same facts."""
    bag = tmp_path / "sample"
    subprocess.run([example("write_sample"), bag, "--max-bag-size", "8192"], check=True, capture_output=True, timeout=120)
    r = arnie_bag("info", bag)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0] == ""
    labels = ["Files:", "Bag size:", "Storage id:", "ROS Distro:", "Duration:", "Start:", "End:", "Messages:", "Topic information:"]
    heads = [ln for ln in lines if ln and not ln.startswith(" ")]
    assert [h.split(":")[0] + ":" for h in heads[: len(labels)]] == labels, heads
    for ln in heads[: len(labels) - 1]:
        assert ln[19] != " " and ln[18] == " ", f"values start at column 19: {ln!r}"
    j = json.loads(arnie_bag("info", bag, "--json").stdout)
    assert len(j["files"]) > 1 and lines[1] == "Files:             " + j["files"][0]
    assert lines[2 : 1 + len(j["files"])] == [" " * 19 + f for f in j["files"][1:]]
    value = {h.split(":")[0]: h[19:] for h in heads}
    assert value["Storage id"] == "mcap" and value["Messages"] == str(j["message_count"]) == "321"
    assert value["Duration"] == f"{j['duration_ns'] // 10**9}.{j['duration_ns'] % 10**9:09d}s"
    assert value["Start"].endswith(f"({j['starting_time_ns'] // 10**9}.{j['starting_time_ns'] % 10**9:09d})")
    topic_lines = [ln[19:] for ln in lines if "| Serialization Format:" in ln]
    assert topic_lines == [f"Topic: {t['name']} | Type: {t['type']} | Count: {t['message_count']} | Serialization Format: cdr" for t in j["topics"]]
    assert arnie_bag("info", bag, "-t").stdout.split() == [t["name"] for t in j["topics"]]
