#!/usr/bin/env python3
"""Writes the committed seed corpora, corpus/<target>/, from the project's own files.

Run from the repo root: `python3 fuzz/make_seeds.py [BAG_DIR]`. BAG_DIR holds bags
written by the project's example (`write_sample b_none --compression none --messages 4`,
and zstd/lz4, in a ROS shell): the bag seeds are taken from there when given.
Nothing here comes from ../shared/reference (`cargo xtask fuzz` copies those at run time).
"""
import json, shutil, struct, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"


def put(target, name, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def xor(b):
    x = 0
    for c in b:
        x ^= c
    return x


def frame(cmd, payload):
    size = len(payload) + 1
    head = bytes([size]) if size < 0x80 else bytes([0x80 | size >> 8, size & 0xFF])
    body = head + bytes([cmd]) + payload
    return body + bytes([xor(body)])


SIZES = {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "float": 4, "float64": 8}
defs = {}
for name in ["arm_status", "motor_target", "ping", "pong", "set_led"]:
    text = (ROOT / "nodes/lib/arnie_packets/packets" / f"{name}.json").read_text()
    put("comms_definitions", name, text)
    d = json.loads(text)
    defs[name] = (d["id"], sum(SIZES[f["type"]] for f in d["data"].values()))

# UART: control byte (odd: with the definitions' lengths) + frames of each packet.
stream = b"".join(frame(i, bytes(range(1, n + 1))) for i, n in defs.values())
put("comms_uart", "all_packets", b"\x21" + stream)
put("comms_uart", "noise_between", b"\x40" + b"\x00\x07" + stream[:9] + b"\xff" + stream)
put("comms_uart", "long_frame", b"\x10" + frame(20, bytes(200)))

# CAN over UDP: [len][datagram: id u32 le (bit 31 extended), dlc, 8 data bytes].
def dgram(ident, data, ext):
    return struct.pack("<IB", ident | (1 << 31 if ext else 0), len(data)) + data

one = dgram(1 << 5 | 3, b"\x01\x02\x03", False)
pages = [dgram(20 << 23 | 2 << 18 | (1 << 17 if p == 2 else 0) | p, bytes([p] * 8), True) for p in range(3)]
put("comms_can", "single", bytes([len(one)]) + one)
put("comms_can", "paged", b"".join(bytes([len(p)]) + p for p in pages))

# Spine: the library's own examples.
put("spine_wire", "csv", "1,2,3;4,5,6\n")
put("spine_wire", "csv_one", "-2,1,3")
put("spine_wire", "simulink", struct.pack("<6d", 1, 2, 3, -4.5, 0.25, 1e3))
for f in ["spine_sim.json", "spine_brainjs.json"]:
    put("spine_config", f, (ROOT / "params" / f).read_text())

# Instructions, English, strategy: the project's task files and fixtures.
put("instructions", "flame_passing.json", (ROOT / "params/tasks/flame_passing.json").read_text())
put("instructions", "golden_sample.json", (ROOT / "nodes/lib/arnie_english/tests/golden/sample.json").read_text())
put("english", "flame_passing.txt", (ROOT / "params/tasks/flame_passing.txt").read_text())
put("english", "home.txt", "Create an action called home.\nThe first step is to move to 0, 0, 0.\n"
    "home has no decisions.\nhome has no reset condition.\n")
put("strategy", "demo_strategy.json", (ROOT / "nodes/arnie_strategy/examples/demo_strategy.json").read_text())

# Planner: the demo PGM, and small maps in every format.
put("planner_maps", "demo.pgm", (ROOT / "params/maps/demo.pgm").read_bytes())
put("planner_maps", "ascii", ".#.\n.#.\n...\n")
put("planner_maps", "movingai.map", "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n.T..\n")
put("planner_maps", "p2.pgm", "P2\n# a comment\n3 2\n255\n0 255 255\n255 128 0\n")
put("planner_maps", "test.scen", "version 1\n0\tm.map\t4\t3\t0\t0\t3\t2\t3.82842712\n")

# Bags: files written by the project's example write_sample.
if len(sys.argv) > 1:
    bags = Path(sys.argv[1])
    for c in ["none", "zstd", "lz4"]:
        mcap = (bags / f"b_{c}" / f"b_{c}_0.mcap").read_bytes()
        put("bag_mcap", f"{c}.mcap", mcap)
        if c != "lz4":
            put("bag_reindex", f"{c}_cut.mcap", mcap[: len(mcap) * 2 // 3])
    put("bag_reindex", "lz4_whole.mcap", (bags / "b_lz4" / "b_lz4_0.mcap").read_bytes())
    put("bag_metadata", "metadata.yaml", (bags / "b_none" / "metadata.yaml").read_text())
    put("bag_metadata", "split_metadata.yaml", (bags / "b_split" / "metadata.yaml").read_text())

# Planner PNG maps: the project's two maps (params/maps/demo.pgm, params/eurobot/table.pgm)
# as PNG in the colour types and depths map_server's files come in.
import zlib


def read_pgm(path):
    data = path.read_bytes()
    words, i = [], 0
    while len(words) < 4:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            i = data.index(b"\n", i) + 1
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        words.append(data[i:j])
        i = j
    w, h, maxval = int(words[1]), int(words[2]), int(words[3])
    if words[0] == b"P5":
        px = list(data[i + 1:i + 1 + w * h])
    else:
        px = [int(v) for v in data[i:].split()[: w * h]]
    return w, h, [v * 255 // maxval for v in px]


def png(w, h, rows, colour, depth, palette=None, interlace=0):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + r for r in rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, interlace))
    if palette:
        out += chunk(b"PLTE", palette)
    return out + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def pack_bits(values, bits):
    out, acc, n = bytearray(), 0, 0
    for v in values:
        acc = acc << bits | v
        n += bits
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


for name, path in [("demo", ROOT / "params/maps/demo.pgm"), ("table", ROOT / "params/eurobot/table.pgm")]:
    w, h, px = read_pgm(path)
    rows = [px[y * w:(y + 1) * w] for y in range(h)]
    put("planner_png", f"{name}_grey8.png", png(w, h, [bytes(r) for r in rows], 0, 8))
    if name == "demo":
        put("planner_png", f"{name}_rgb8.png", png(w, h, [bytes(v for p in r for v in (p, p, p)) for r in rows], 2, 8))
        put("planner_png", f"{name}_rgba8.png", png(w, h, [bytes(v for p in r for v in (p, p, p, 255)) for r in rows], 6, 8))
        put("planner_png", f"{name}_grey16.png", png(w, h, [b"".join(struct.pack(">H", p * 257) for p in r) for r in rows], 0, 16))
        put("planner_png", f"{name}_grey1.png", png(w, h, [pack_bits([p >> 7 for p in r], 1) for r in rows], 0, 1))
        put("planner_png", f"{name}_palette2.png", png(w, h, [pack_bits([p >> 6 for p in r], 2) for r in rows], 3, 2,
                                                     palette=bytes(v for i in range(4) for v in (i * 85,) * 3)))
        put("planner_png", f"{name}_grey_alpha_interlaced.png",
            png(w, h, [bytes(v for p in r for v in (p, 255)) for r in rows], 4, 8, interlace=1))

# Launch files: the project's own, and a file with an include (the text after `---` is
# the included file, see fuzz_targets/launch_xml.rs).
for f in ["arnie.launch.xml", "eurobot.launch.xml"]:
    put("launch_xml", f, (ROOT / "launch" / f).read_text())
put("launch_xml", "include_group_subst.launch.xml",
    '<launch>\n  <arg name="fast" default="false"/>\n  <let name="tick" value="$(env ARNIE_FUZZ 2.5)"/>\n'
    '  <group namespace="g" unless="$(var fast)">\n    <push-ros-namespace namespace="sub"/>\n'
    '    <node pkg="brain" exec="brain" name="b" args="-x 1" on_exit="shutdown">\n'
    '      <param from="$(dirname)/brain.yaml"/>\n      <param name="tick_s" value="$(var tick)"/>\n'
    '      <remap from="/a" to="b"/>\n    </node>\n  </group>\n'
    '  <executable cmd="ros2 bag record -a" name="rec" if="$(var fast)"/>\n'
    '  <include file="$(find-pkg-share arnie_bringup)/launch/inner.launch.xml"><arg name="rate" value="5"/></include>\n'
    '</launch>\n---\n<launch><arg name="rate"/><node pkg="p" exec="inner"><param name="rate" value="$(var rate)"/></node></launch>\n')

# Table scenario: the project's Eurobot table.
put("table_scenario", "table.json", (ROOT / "params/eurobot/table.json").read_text())

# The motor-board link: frames of every board packet (nodes/lib/arnie_packets/packets), field
# values by name, little-endian as the comms codec writes them.
FMT = {"int8": "b", "uint8": "B", "bool": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "float": "f", "float64": "d"}
VALUES = {"seq": 7, "cmd_seq": 6, "linear_mm_s": 300, "angular_mrad_s": -500, "watchdog_ms": 400, "x_mm": 1200,
          "y_mm": 800, "theta_mrad": 1571, "flags": 1, "sensor": 2, "distance_mm": 350, "bearing_mrad": -200,
          "command": 30, "status": 0, "actuator": 1, "action": 2, "element": 3}
board = {}
for f in sorted((ROOT / "nodes/lib/arnie_packets/packets").glob("*.json")):
    d = json.loads(f.read_text())
    payload = b"".join(struct.pack("<" + FMT[v["type"]], VALUES.get(k, 1)) for k, v in d["data"].items())
    board[d["name"]] = frame(d["id"], payload)
put("board_link", "commands", b"\x30" + b"".join(board[n] for n in ["SetPose", "DriveSpeed", "Actuator", "Stop"] if n in board))
put("board_link", "reports", b"\x30" + b"".join(board[n] for n in ["Odometry", "ObstacleReport", "Ack", "ActuatorDone"] if n in board))
put("board_link", "all_packets_bytewise", b"\x00" + b"".join(board.values()))

# The LD06 LiDAR: a revolution and a half of packets (10 Hz, 4500 samples/s, a box at
# 0.5 m), then the same with garbage, a corrupted CRC and a packet cut short; the first
# byte sets the chunk size and the time between chunks.
CRC_POLY = 0x4D
CRC = []
for i in range(256):
    c = i
    for _ in range(8):
        c = ((c << 1) ^ CRC_POLY) & 0xFF if c & 0x80 else (c << 1) & 0xFF
    CRC.append(c)


def crc8(b):
    c = 0
    for x in b:
        c = CRC[c ^ x]
    return c


def ld06(j):
    a0 = j * 12 * 0.8
    pts = b"".join(struct.pack("<HB", 500 if 80 <= (a0 + i * 0.8) % 360 <= 100 else 2000, 200) for i in range(12))
    body = struct.pack("<BBHH", 0x54, 0x2C, 3600, round(a0 * 100) % 36000) + pts + struct.pack("<HH", round((a0 + 8.8) * 100) % 36000, j % 30000)
    return body + bytes([crc8(body)])


stream = b"".join(ld06(j) for j in range(60))
put("ld06", "revolutions", b"\x07" + stream)
bad = bytearray(stream)
bad[47 * 3 + 10] ^= 0x40
put("ld06", "damaged", b"\x45" + b"\x00\x54\x2c\xff" + bytes(bad[: 47 * 20]) + bytes(bad[47 * 20 + 5 :]))

# The arm simulator: its scenario files, then (after `---`) target datagrams as the spine
# sends them (Simulink: little-endian doubles), one per line.
targets = struct.pack("<3d", 100, 50, 200) + b"\n" + struct.pack("<3d", -120, 80, 150) + b"\n" + struct.pack("<3d", 0, 0, 250)
for f in ["scenario_sample.json", "scenario_flame.json"]:
    put("sim_world", f, (ROOT / "params" / f).read_bytes() + b"\n---\n" + targets)
put("sim_world", "targets_only", targets)

# The trajectory server: settings as params/trajectory_server.yaml gives them (as JSON),
# a legacy target, the arm's position, then the arm following (and one lost sample).
import re
yaml = (ROOT / "params/trajectory_server.yaml").read_text()
cfg = {}
for k, v in re.findall(r"^\s+(\w+):\s*([-0-9.]+)\s*$", yaml, re.M):
    cfg[k] = float(v) if "." in v else int(v)
ws_min = [cfg.pop(f"workspace_min_{a}_mm", -1000.0) for a in "xyz"]
ws_max = [cfg.pop(f"workspace_max_{a}_mm", 1000.0) for a in "xyz"]
cfg["workspace_min_mm"], cfg["workspace_max_mm"] = ws_min, ws_max
follow = "\n".join(f"{100 + 4 * k},{-20 + k},{150 - 2 * k}" for k in range(40))
put("trajectory_moves", "params_follow", json.dumps(cfg) + "\n100,50,200,extra\n100,-20,150\n" + follow + "\n\nnot a sample\n")
put("trajectory_moves", "defaults_short", "12.5, 0, 300\n0,0,300\n0,0,300\n5,0,300\n")
