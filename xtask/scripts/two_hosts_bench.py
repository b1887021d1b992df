"""`cargo xtask bench two-hosts`: the spine's /arm/position to the trajectory server's
host, across the virtual LAN of test/system/test_two_hosts.py beside the same path on one
host, with plain UDP DDS (Fast DDS's defaults) and with the TLS profiles of `cargo xtask
secure` (docs/SECURITY.md), in the same run.

sim and spine_bridge run on "rt" (the spine config with rt's address, as in the test);
two subscribers of /arm/position (rclpy, the trajectory server's QoS: best effort, keep
last 5) run at the same time, one on rt (one host) and one on "station" (across the veth);
each takes, per message, its arrival time minus the header stamp the spine put on it when
it converted the datagram (`node_glue::time::header`, the wall clock: both namespaces share
the machine's clock), at the rate the sim's encoder frames reach the spine. The two
columns differ by the link (veth, Fast DDS over UDP or TLS instead of shared memory or
loopback); both include rclpy's own cost. Throughput: an rclpy publisher on rt sends
PointStamped (reliable, keep last 100) as fast as it can for the same time, an rclpy
subscriber on station counts them. Needs root (namespaces); prints why not otherwise.

    python3 xtask/scripts/two_hosts_bench.py [--seconds S] [--bin-dir DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from helpers.netns import RT_IP, STATION_IP, Lan, netns_unavailable  # noqa: E402

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

FLOOD_PUB = r"""
import sys, time
import rclpy
from geometry_msgs.msg import PointStamped
from rclpy.qos import QoSProfile, ReliabilityPolicy
seconds = float(sys.argv[1])
rclpy.init()
node = rclpy.create_node("flood")
pub = node.create_publisher(PointStamped, "/bench/flood", QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
while pub.get_subscription_count() == 0:
    rclpy.spin_once(node, timeout_sec=0.05)
time.sleep(1.0)
m = PointStamped(); n = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    m.point.x = float(n); pub.publish(m); n += 1
print(n)
time.sleep(2.0)
"""

FLOOD_SUB = r"""
import json, sys, time
import rclpy
from geometry_msgs.msg import PointStamped
from rclpy.qos import QoSProfile, ReliabilityPolicy
seconds = float(sys.argv[1])
rclpy.init()
node = rclpy.create_node("flood_sink")
got = []
node.create_subscription(PointStamped, "/bench/flood", lambda m: got.append(time.monotonic()),
                         QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
deadline = time.monotonic() + 120.0
while time.monotonic() < deadline and (not got or time.monotonic() < got[0] + seconds + 2.0):
    rclpy.spin_once(node, timeout_sec=0.05)
span = (got[-1] - got[0]) if len(got) > 1 else 0.0
print(json.dumps({"received": len(got), "span_s": span}))
"""


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def lab_envs(bins, tmp):
    """The TLS lab (rt, station) made with arnie_secure: {namespace key: env}, and the
    discovery servers' profiles."""
    lab = tmp / "lab"
    sec = str(bins / "arnie_secure")
    for args in (["init"], ["add-host", "rt", "--address", RT_IP], ["add-host", "station", "--address", STATION_IP]):
        subprocess.run([sec, "--dir", str(lab), *args], check=True, capture_output=True)
    envs = {}
    for host in ("rt", "station"):
        env = {}
        for line in (lab / "hosts" / host / "env").read_text().splitlines():
            m = re.match(r"export (\w+)=(.*)$", line)
            if m:
                env[m.group(1)] = m.group(2)
        envs[host] = (env, lab / "hosts" / host / "discovery_server.xml")
    return envs


def measure(mode, bins, seconds, tmp, base_env):
    """One scenario on a fresh LAN: latency rows and the throughput."""
    lan = Lan()
    procs = []
    try:
        lan.create()
        envs = {}
        if mode == "tls":
            labs = lab_envs(bins, tmp)
            for host, ns in (("rt", lan.rt), ("station", lan.station)):
                env, xml = labs[host]
                envs[ns] = dict(base_env, **env)
        else:
            envs = {lan.rt: base_env, lan.station: base_env}
        config = json.loads((ROOT / "params" / "spine_sim.json").read_text())
        config["host"] = RT_IP
        config["interfaces"]["output"]["arm"]["host"] = RT_IP
        for interface in config["interfaces"]["input"].values():
            interface["allowedSources"] = [RT_IP]
        cfg = tmp / f"spine_{mode}.json"
        cfg.write_text(json.dumps(config))

        def start(netns, cmd, log, **kw):
            out = kw["stdout"] if "stdout" in kw else open(tmp / log, "w")
            p = subprocess.Popen(["ip", "netns", "exec", netns, *cmd], env=envs[netns], cwd=ROOT,
                                 stdout=out, stderr=kw.get("stderr", subprocess.STDOUT), text=True)
            procs.append(p)
            return p

        if mode == "tls":
            ds = os.path.join(os.path.dirname(sys.executable), "fast-discovery-server")
            for host, ns in (("rt", lan.rt), ("station", lan.station)):
                start(ns, [ds, "-x", f"arnie_discovery_server@{labs[host][1]}"], f"ds_{host}.log")
        start(lan.rt, [str(bins / "sim"), "--ros-args", "--params-file", "params/sim.yaml",
                       "-p", f"spine_config:={cfg}", "-p", "loopback:=false", "-p", "markers_rate_hz:=0.0"], f"sim_{mode}.log")
        start(lan.rt, [str(bins / "spine_bridge"), "--ros-args", "--params-file", "params/spine_bridge.yaml",
                       "-p", f"config_file:={cfg}"], f"spine_{mode}.log")
        subs = {}
        for label, ns in (("one host (rt → rt)", lan.rt), ("across the link (rt → station)", lan.station)):
            subs[label] = start(ns, [sys.executable, "-c", SUBSCRIBER, str(seconds)], None,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rows = []
        for label, p in subs.items():
            out, err = p.communicate(timeout=seconds + 180)
            lat = json.loads(out) if p.returncode == 0 and out.strip() else []
            if not lat:
                raise RuntimeError(f"{mode}: {label}: no samples\n{err[-2000:]}")
            rows.append((label, lat))
        # Throughput across the link.
        sink = start(lan.station, [sys.executable, "-c", FLOOD_SUB, str(seconds)], None,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        flood = start(lan.rt, [sys.executable, "-c", FLOOD_PUB, str(seconds)], None,
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        fout, ferr = flood.communicate(timeout=seconds + 180)
        sout, serr = sink.communicate(timeout=seconds + 180)
        sent = int(fout.strip() or 0)
        got = json.loads(sout) if sout.strip() else {"received": 0, "span_s": 0.0}
        return rows, sent, got
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        lan.delete()


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
    for b in ("sim", "spine_bridge", "arnie_secure"):
        if not (bins / b).exists():
            print(f"two-hosts bench: {bins / b} is missing (cargo build --release -p arnie_sim -p arnie_spine -p arnie_secure --bins)")
            return 1
    base_env = dict(os.environ, ROS_DOMAIN_ID=str(102 + os.getpid() % 100), ROS_AUTOMATIC_DISCOVERY_RANGE="SUBNET",
                    ROS_STATIC_PEERS="")
    for var in ("FASTDDS_DEFAULT_PROFILES_FILE", "FASTRTPS_DEFAULT_PROFILES_FILE", "OPENSSL_CONF"):
        base_env.pop(var, None)
    tmp = Path(tempfile.mkdtemp(prefix="arnie-two-hosts-"))
    results = {}
    for mode in ("udp", "tls"):
        try:
            results[mode] = measure(mode, bins, args.seconds, tmp, base_env)
        except RuntimeError as e:
            print(f"two-hosts bench: {e}")
            return 1
    print(f"spine /arm/position publish → subscriber on the trajectory server's host, µs "
          f"({args.seconds:.0f} s each, both subscribers at once; {bins.name} build; plain UDP DDS, then TLS)\n")
    print("| DDS | path | samples | p50 | p90 | p99 | max |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    names = {"udp": "UDP (defaults)", "tls": "TCP + TLS"}
    for mode, (rows, _, _) in results.items():
        for label, lat in rows:
            print(f"| {names[mode]} | {label} | {len(lat)} | {pct(lat, 0.5):.0f} | {pct(lat, 0.9):.0f} "
                  f"| {pct(lat, 0.99):.0f} | {max(lat):.0f} |")
    across = {mode: rows[1][1] for mode, (rows, _, _) in results.items()}
    print(f"| TLS − UDP | across the link | | {pct(across['tls'], 0.5) - pct(across['udp'], 0.5):+.0f} "
          f"| {pct(across['tls'], 0.9) - pct(across['udp'], 0.9):+.0f} "
          f"| {pct(across['tls'], 0.99) - pct(across['udp'], 0.99):+.0f} | |")
    print(f"\nthroughput rt → station (rclpy publisher as fast as it can, reliable, keep last 100; {args.seconds:.0f} s)\n")
    print("| DDS | published | received | received/s |")
    print("| --- | ---: | ---: | ---: |")
    for mode, (_, sent, got) in results.items():
        rate = got["received"] / got["span_s"] if got["span_s"] > 0 else 0.0
        print(f"| {names[mode]} | {sent} | {got['received']} | {rate:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
