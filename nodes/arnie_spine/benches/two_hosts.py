"""`cargo xtask bench two-hosts`: the spine's /arm/position to the trajectory server's
host, across the virtual LAN of test/system/test_two_hosts.py beside the same path on one host.

sim and spine_bridge run on "rt" (the spine config with rt's address, as in the test);
two subscribers of /arm/position (rclpy, the trajectory server's QoS: best effort, keep
last 5) run at the same time, one on rt (one host) and one on "station" (across the veth);
each takes, per message, its arrival time minus the header stamp the spine put on it when
it converted the datagram (`node_glue::time::header`, the wall clock: both namespaces share
the machine's clock), at the rate the sim's encoder frames reach the spine. The two
columns differ by the link (veth, the station's UDP socket, Fast DDS over UDP instead of
shared memory or loopback); both include rclpy's own cost. Needs root (namespaces);
prints why not otherwise.

    python3 nodes/arnie_spine/benches/two_hosts.py [--seconds S] [--bin-dir DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # nodes/arnie_spine/benches/two_hosts.py
sys.path.insert(0, str(ROOT / "test"))
from helpers.netns import RT_IP, Lan, netns_unavailable  # noqa: E402

SUBSCRIBER = r"""
import json, sys, time
import rclpy
from geometry_msgs.msg import PointStamped
from rclpy.qos import QoSProfile, ReliabilityPolicy
seconds = float(sys.argv[1])
rclpy.init()
node = rclpy.create_node("latency_probe")
samples = []  # (arrival, latency us)
def on(msg):
    now = time.time_ns()
    stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
    samples.append((time.monotonic(), (now - stamp) / 1000.0))
node.create_subscription(PointStamped, "/arm/position", on,
                         QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT))
deadline = time.monotonic() + 120.0
while time.monotonic() < deadline and (not samples or time.monotonic() < samples[0][0] + 2.0 + seconds):
    rclpy.spin_once(node, timeout_sec=0.1)
# The first 2 s after the first message (discovery settling) are left out.
start = samples[0][0] + 2.0 if samples else 0.0
print(json.dumps([lat for t, lat in samples if t >= start]))
"""


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--bin-dir", default=str(ROOT / "target" / "release"))
    args = ap.parse_args()
    reason = netns_unavailable()
    if reason:
        print(f"two-hosts bench skipped: {reason}")
        return 0
    bins = Path(args.bin_dir)
    for b in ("sim", "spine_bridge"):
        if not (bins / b).exists():
            print(f"two-hosts bench: {bins / b} is missing (cargo build --release -p arnie_sim -p arnie_spine --bins)")
            return 1
    env = dict(os.environ, ROS_DOMAIN_ID=str(102 + os.getpid() % 100), ROS_AUTOMATIC_DISCOVERY_RANGE="SUBNET",
               ROS_STATIC_PEERS="")
    lan = Lan()
    procs = []
    tmp = Path(tempfile.mkdtemp(prefix="arnie-two-hosts-"))
    try:
        lan.create()
        config = json.loads((ROOT / "params" / "spine_sim.json").read_text())
        config["host"] = RT_IP
        config["interfaces"]["output"]["arm"]["host"] = RT_IP
        cfg = tmp / "spine.json"
        cfg.write_text(json.dumps(config))

        def start(netns, cmd, log):
            p = subprocess.Popen(["ip", "netns", "exec", netns, *cmd], env=env, cwd=ROOT,
                                 stdout=open(tmp / log, "w"), stderr=subprocess.STDOUT)
            procs.append(p)
            return p

        start(lan.rt, [str(bins / "sim"), "--ros-args", "--params-file", "params/sim.yaml",
                       "-p", f"spine_config:={cfg}", "-p", "loopback:=false", "-p", "markers_rate_hz:=0.0"], "sim.log")
        start(lan.rt, [str(bins / "spine_bridge"), "--ros-args", "--params-file", "params/spine_bridge.yaml",
                       "-p", f"config_file:={cfg}"], "spine.log")
        subs = {}
        for label, ns in (("one host (rt → rt)", lan.rt), ("across the link (rt → station)", lan.station)):
            subs[label] = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", SUBSCRIBER, str(args.seconds)],
                                           env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rows = []
        for label, p in subs.items():
            out, err = p.communicate(timeout=args.seconds + 180)
            lat = json.loads(out) if p.returncode == 0 and out.strip() else []
            if not lat:
                print(f"two-hosts bench: {label}: no samples\n{err[-2000:]}")
                return 1
            rows.append((label, lat))
        rate = len(rows[0][1]) / args.seconds
        print(f"spine /arm/position publish → subscriber on the trajectory server's host, µs "
              f"({args.seconds:.0f} s, {rate:.0f} messages/s, both subscribers at once; {bins.name} build)\n")
        print("| path | samples | p50 | p90 | p99 | max |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for label, lat in rows:
            print(f"| {label} | {len(lat)} | {pct(lat, 0.5):.0f} | {pct(lat, 0.9):.0f} | {pct(lat, 0.99):.0f} | {max(lat):.0f} |")
        (a, one), (_, across) = rows
        print(f"| added by the link | | {pct(across, 0.5) - pct(one, 0.5):+.0f} | {pct(across, 0.9) - pct(one, 0.9):+.0f} "
              f"| {pct(across, 0.99) - pct(one, 0.99):+.0f} | |")
        return 0
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        lan.delete()


if __name__ == "__main__":
    sys.exit(main())
