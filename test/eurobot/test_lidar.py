"""The LD06 driver (`lidar`, arnie_lidar) on a real pseudo-terminal, fed by this test's
own LD06 encoder (Python, written from the datasheet: header 0x54 0x2C, speed, start
angle, 12 x (distance, intensity), end angle, timestamp, CRC-8 with polynomial 0x4D),
so the node's decoder is checked against an implementation it does not share; rclpy
reads `scan` and /diagnostics.

- scans at the LiDAR's rate: one per revolution, ~450 rays at 10 Hz, clockwise order
  (negative angle_increment), frame `laser`, the scene's distances where the mounting
  puts them, REP 117 NaN for "no return";
- garbage between packets, corrupted packets and packets cut short on the line: counted
  by kind on /diagnostics, and the scans stay right;
- the LiDAR goes silent: status ERROR and no scans; the device vanishes (the pty closed,
  its symlink removed) and comes back on a new pty behind the same symlink: the node
  opens it again and scans come back;
- bad parameters stop the node at start, naming the parameter.
"""
import math
import os
import struct
import threading
import time
import tty

import pytest
from diagnostic_msgs.msg import DiagnosticStatus
from sensor_msgs.msg import LaserScan
from rclpy.qos import qos_profile_sensor_data

from helpers.diagnostics import Diagnostics

STATUS = "/lidar: lidar"


def crc8(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x4D) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def ld06_packet(start_deg, distances, speed=3600, stamp=0):
    """One 47-byte packet: 12 (distance mm, intensity) from `start_deg`, 0.8° apart."""
    body = struct.pack("<BBHH", 0x54, 0x2C, speed, round(start_deg * 100) % 36000)
    for d in distances:
        body += struct.pack("<HB", d, 200 if d else 0)
    body += struct.pack("<HH", round((start_deg + 11 * 0.8) * 100) % 36000, stamp % 30000)
    return body + bytes([crc8(body)])


def scene(angle_deg):
    """The device's view: a box 0.5 m away at 80-100° (clockwise: the robot's right),
    no return at 200-210°, a wall 2 m away elsewhere."""
    a = angle_deg % 360
    if 80 <= a <= 100:
        return 500
    if 200 <= a <= 210:
        return 0
    return 2000


class Ld06:
    """A simulated LD06 on a pty behind `link` (a symlink, as a udev rule would make it),
    streaming in real time from a thread; `damage` makes it send garbage, corrupted and
    truncated packets now and then."""

    def __init__(self, link, damage=False):
        self.link = link
        self.damage = damage
        self.sending = threading.Event()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.master = self.slave = None
        self.plug()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def plug(self):
        master, slave = os.openpty()
        tty.setraw(slave)
        tmp = str(self.link) + ".new"
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.link)
        with self.lock:
            self.master, self.slave = master, slave
        self.sending.set()

    def unplug(self):
        self.sending.clear()
        with self.lock:
            os.unlink(self.link)
            os.close(self.master)
            os.close(self.slave)
            self.master = self.slave = None

    def run(self):
        j, t0 = 0, time.monotonic()
        while not self.stop.is_set():
            if not self.sending.is_set():
                time.sleep(0.01)
                t0, j = time.monotonic(), j + 1
                continue
            due = int((time.monotonic() - t0) * 4500 / 12)
            out = b""
            while j < due:
                a0 = (j * 12 * 0.8) % 360
                p = ld06_packet(a0, [scene(a0 + i * 0.8) for i in range(12)], stamp=j)
                if self.damage and j % 97 == 13:
                    out += b"\x00\xff\x54\x13garbage"
                if self.damage and j % 101 == 50:
                    p = p[:20] + bytes([p[20] ^ 0x55]) + p[21:]  # a bad CRC
                if self.damage and j % 89 == 30:
                    p = p[:25]  # cut short by the next packet
                out += p
                j += 1
            with self.lock:
                if self.master is not None and out:
                    try:
                        os.write(self.master, out)
                    except OSError:
                        pass
            time.sleep(0.01)

    def close(self):
        self.stop.set()
        self.thread.join(2.0)
        with self.lock:
            for fd in (self.master, self.slave):
                if fd is not None:
                    os.close(fd)


def ray(scan, angle):
    """The range of the ray nearest to `angle` (laser frame)."""
    def off(i):
        d = scan.angle_min + i * scan.angle_increment - angle
        return abs(math.atan2(math.sin(d), math.cos(d)))
    return scan.ranges[min(range(len(scan.ranges)), key=off)]


@pytest.fixture
def lidar_link(graph):
    devices = []

    def make(damage=False):
        d = Ld06(graph.tmp / "ld06", damage)
        devices.append(d)
        return d
    yield make
    for d in devices:
        d.close()


def test_scans_have_the_ld06_s_shape_and_the_scene_s_ranges_despite_a_damaged_line(graph, lidar_link):
    diagnostics = Diagnostics(graph)
    scans = graph.collect(LaserScan, "/scan", qos_profile_sensor_data)
    device = lidar_link(damage=True)
    graph.start("lidar", params={"port": str(device.link)})
    graph.spin_until(lambda: len(scans) >= 12, 30.0, "a dozen scans")
    for s in list(scans)[2:]:
        assert s.header.frame_id == "laser"
        assert 440 <= len(s.ranges) <= 460 and len(s.intensities) == len(s.ranges), len(s.ranges)
        assert s.angle_increment == pytest.approx(-math.radians(0.8), rel=0.02)
        assert s.angle_max == pytest.approx(s.angle_min + (len(s.ranges) - 1) * s.angle_increment, abs=1e-4)
        assert s.scan_time == pytest.approx(0.1, rel=0.1) and s.time_increment > 0
        assert (s.range_min, s.range_max) == (pytest.approx(0.02), pytest.approx(12.0))
        # Device 90° clockwise = laser -90°: the box; the wall behind and on the left.
        assert ray(s, -math.pi / 2) == pytest.approx(0.5, abs=1e-3)
        assert ray(s, math.pi) == pytest.approx(2.0, abs=1e-3)
        assert ray(s, math.pi / 2) == pytest.approx(2.0, abs=1e-3)
        # No return at device 205°: NaN (REP 117), never 0.
        assert math.isnan(ray(s, -math.radians(205)))
        assert not any(r == 0.0 for r in s.ranges)
    stamps = [s.header.stamp.sec + s.header.stamp.nanosec * 1e-9 for s in scans]
    steps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert all(0.05 < d < 0.3 for d in steps[1:]), steps
    graph.spin_until(lambda: (diagnostics.counter(STATUS, "bad_crc", 0) > 0
                              and diagnostics.counter(STATUS, "truncated", 0) > 0
                              and diagnostics.counter(STATUS, "garbage_bytes", 0) > 0), 20.0,
                     "bad CRCs, truncated packets and garbage counted")
    v = diagnostics.values(STATUS)
    assert int(v["packets"]) > 300 and int(v["scans_published"]) >= 8, v
    assert diagnostics.status(STATUS).level == DiagnosticStatus.OK, diagnostics.status(STATUS)


def test_a_silent_or_unplugged_lidar_is_an_error_and_a_replugged_one_streams_again(graph, lidar_link):
    diagnostics = Diagnostics(graph)
    scans = graph.collect(LaserScan, "/scan", qos_profile_sensor_data)
    device = lidar_link()
    node = graph.start("lidar", params={"port": str(device.link), "silence_timeout_ms": 300, "reopen_ms": 100})
    graph.spin_until(lambda: len(scans) >= 3, 30.0, "scans")
    # The motor stalls: nothing on the line.
    device.sending.clear()
    graph.spin_until(lambda: diagnostics.counter(STATUS, "silences", 0) >= 1
                     and diagnostics.status(STATUS).level == DiagnosticStatus.ERROR, 10.0, "the silence as an ERROR")
    assert "no data from the LiDAR" in diagnostics.status(STATUS).message
    n = len(scans)
    graph.spin_for(0.5)
    assert len(scans) == n, "no scan while silent"
    device.sending.set()
    graph.spin_until(lambda: len(scans) >= n + 3, 10.0, "scans again")
    # Unplugged: the pty closes and the device path goes; then plugged back on a new pty.
    device.unplug()
    graph.spin_until(lambda: diagnostics.counter(STATUS, "closes", 0) >= 1
                     and "not open" in diagnostics.status(STATUS).message, 10.0, "the port closed")
    device.plug()
    n = len(scans)
    graph.spin_until(lambda: len(scans) >= n + 3, 15.0, "scans from the new pty")
    assert diagnostics.counter(STATUS, "opens", 0) >= 2
    assert node.poll() is None, graph.output(node)
    assert "panicked" not in graph.output(node)


@pytest.mark.parametrize("params,expect", [
    ({"baud": 230401}, "baud"),
    ({"range_min_m": 5.0, "range_max_m": 1.0}, "range_min_m"),
    ({"port": "''"}, "port"),
    ({"cut_angle_rad": 9.0}, "cut_angle_rad"),
])
def test_bad_parameters_stop_the_node_naming_them(graph, params, expect):
    graph.start_refused("lidar", params=params, expect=[expect])
