"""Across machines (issue 35): the stack split over two hosts on a virtual LAN.

Two network namespaces stand for two machines of the lab: "rt" (the simulated xPC
Targets and the spine) and "station" (the trajectory server, the brain, the recorder and
the Foxglove bridge). A veth pair joins them, 10.77.0.1/24 on rt and 10.77.0.2/24 on
station; each namespace has only `lo` and its end of the veth, no default route, so every
packet stays between the two. The namespaces are made for each test and deleted after
it, also when it fails; without root or iproute2 the tests skip, saying why.

The test's own rclpy client sits on station (its thread enters the namespace with
setns(2) before rclpy starts the middleware, and leaves it after), so what it sees came
over the link from rt. Nodes are started with `ip netns exec` (helpers.graph's
`Graph.start(netns=...)`); the whole stack is helpers.stack's `Stack`, placed per host.

- the flame passes across the link; the legacy UDP between the simulated controllers and
  the spine goes to the addresses the spine config names (rt's LAN address, not
  loopback); the bag recorded on station holds the topics published on rt; Foxglove on
  station streams rt's topics;
- discovery as a lab configures it: ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET (multicast on
  the LAN, every test here), ROS_STATIC_PEERS with automatic discovery OFF, and
  ROS_DOMAIN_ID separation of two labs on one LAN;
- faults on the link: a 2 s cut during the task, 5 % random packet loss both ways;
- launch/arnie.launch.xml with `part:=rt` on rt and `part:=station` on station (`ros2
  launch`) wires up across the link.
"""
import asyncio
import contextlib
import json
import os
import re
import subprocess
import time

import pytest
from geometry_msgs.msg import PointStamped
from rclpy.qos import qos_profile_sensor_data

from helpers.graph import ROS2, DomainLock, Graph, require_ros2
from helpers.bags import read_bag, stop_recorder
from helpers.diagnostics import Diagnostics
from helpers.stack import PARAMS, Stack
from helpers.netns import RT_IP, STATION_IP, Lan, inside, ip as _ip, netns_unavailable, tool


@pytest.fixture
def lan():
    reason = netns_unavailable()
    if reason:
        pytest.skip(reason)
    if Graph.made_in_initial_netns:
        # Seen: after other tests' clients in this process, the client on station never
        # matches the nodes (Fast DDS keeps process-wide state from the first
        # participant's namespace). Known limit: run this file in its own process.
        pytest.skip("needs its own pytest process (python3 -m pytest test/system/test_two_hosts.py): "
                    "other tests made ROS clients in this process first")
    net = Lan()
    try:
        try:
            net.create()
        except RuntimeError as e:
            net.delete()
            pytest.skip(f"cannot make the virtual LAN: {e}")
        yield net
    finally:
        net.delete()


def discovery(range_="SUBNET", static_peers=""):
    """The discovery variables of a lab host (README "Across machines")."""
    return {"ROS_AUTOMATIC_DISCOVERY_RANGE": range_, "ROS_STATIC_PEERS": static_peers}


@contextlib.contextmanager
def observer(lan, tmp_path, env=None, domain_id=None):
    """A helpers.graph Graph whose rclpy client is on station with `env`'s discovery, on its own
    ROS domain (or `domain_id`, another observer's); the node processes it starts get the
    same variables."""
    env = env or discovery()
    lock = None if domain_id is not None else DomainLock()
    saved = {k: os.environ.get(k) for k in env}
    graph = None
    try:
        with inside(lan.station):
            os.environ.update(env)  # rcl reads them when the context starts
            try:
                tmp_path.mkdir(parents=True, exist_ok=True)
                graph = Graph(lock.id if lock else domain_id, tmp_path)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            graph.env.update(env)
            try:
                yield graph
            finally:
                graph.close()
    finally:
        if lock:
            lock.release()


def on_lan(config, address=RT_IP):
    """The spine config of the lab's network: the spine's inputs bound on rt's LAN address
    and the arm's output sent there (where the simulated xPC Target listens); every input
    takes datagrams from the simulated xPC Targets' address only (allowedSources)."""
    config["host"] = address
    config["interfaces"]["output"]["arm"]["host"] = address
    for interface in config["interfaces"]["input"].values():
        interface["allowedSources"] = [address]


def start_rt_side(graph, tmp_path, netns, address, env=None):
    """sim and spine_bridge (the xPC Targets' side) in `netns`, on params/spine_sim.json
    with the LAN address `address`; returns (sim, spine)."""
    config = json.loads((PARAMS / "spine_sim.json").read_text())
    on_lan(config, address)
    path = tmp_path / f"spine_{netns}.json"
    path.write_text(json.dumps(config, indent=2))
    sim = graph.start("sim", params_file=PARAMS / "sim.yaml", netns=netns, env=env,
                      params={"spine_config": str(path), "loopback": False})
    spine = graph.start("spine_bridge", params_file=PARAMS / "spine_bridge.yaml", netns=netns, env=env,
                        params={"config_file": str(path)})
    return sim, spine


def split_stack(graph, tmp_path, lan, **kw):
    """test_e2e's Stack with rt's and station's nodes on their hosts and the config's
    addresses (sim and spine without loopback)."""
    return Stack(graph, tmp_path, spine_edit=on_lan,
                 netns={"sim": lan.rt, "spine_bridge": lan.rt, "trajectory_server": lan.station, "brain": lan.station},
                 params={"sim": {"loopback": False}}, **kw)


def recorder_sees(graph, topics):
    """The recorder subscribed to every one of `topics` (seen on the graph)."""
    def subscribed(topic):
        return any(i.node_name == "rosbag2_recorder" for i in graph.node.get_subscriptions_info_by_topic(topic))
    return all(subscribed(t) for t in topics)


# ---------------------------------------------------------------------------- tests

def test_flame_passes_across_two_hosts(lan, tmp_path):
    with observer(lan, tmp_path) as g:
        bag = tmp_path / "station_bag"
        rec = g.start("arnie_bag", "record", "--all", "-o", str(bag), netns=lan.station)
        from helpers.foxglove import Client, until
        port = 8765  # station's own loopback: nothing else there
        g.start("foxglove_bridge", params={"port": port, "address": "127.0.0.1"}, netns=lan.station)
        stack = split_stack(g, tmp_path, lan)
        stack.ready()
        rt_topics = ["/arm/position", "/eyes/observations", "/sim/truth"]
        g.spin_until(lambda: recorder_sees(g, rt_topics), 60.0, f"the recorder on station subscribed to {rt_topics}")
        g.settle_discovery()
        tx0, _ = lan.counters(lan.rt)

        stack.run_task()
        stack.wait_lit("candle")
        stack.assert_flame_passed_taper_first()
        assert stack.count("/trajectory_server: move_to", "reached") > 0, stack.summary()
        tx1, _ = lan.counters(lan.rt)
        # DDS data crossed the veth (not shared memory): rt sent thousands of packets.
        assert tx1 - tx0 > 1000, (tx0, tx1)

        # The legacy UDP went where the config says: the spine's inputs on rt's address.
        sim_log = g.output(stack.sim)
        assert f"sends positions to {RT_IP}:" in sim_log and f"arm listens on {RT_IP}:" in sim_log, sim_log

        # Foxglove on station streams a topic published on rt.
        async def watch():
            c = await Client.connect(f"ws://127.0.0.1:{port}")
            try:
                await until(g, lambda: "/arm/position" in c.channels, "/arm/position advertised by Foxglove on station")
                await c.send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": c.channels["/arm/position"]["id"]}]})
                await until(g, lambda: c.messages, "an /arm/position message through Foxglove")
            finally:
                await c.close()
        asyncio.run(watch())

        stack.cancel()
        out = stop_recorder(g, rec)
        msgs, conns = read_bag(bag)
        counts = {}
        for topic, _, _ in msgs:
            counts[topic] = counts.get(topic, 0) + 1
        for topic in rt_topics + ["/arm/command", "/brain/state"]:
            assert counts.get(topic, 0) > 0, f"{topic} not in the bag recorded on station: {counts}\n{out}"



def test_static_peers_with_multicast_off(lan, tmp_path):
    # ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST on both hosts (no multicast, this host only)
    # and ROS_STATIC_PEERS naming rt on station: the station's nodes announce themselves
    # to rt, whose nodes answer, so one side naming the other is enough. A client on
    # station naming no peer (and named by none) sees nothing of rt. (With OFF nothing is
    # discovered, static peers neither: ROS 2's documented table, and so measured here.)
    rt_env = discovery("LOCALHOST", "")
    with observer(lan, tmp_path, discovery("LOCALHOST", RT_IP)) as g:
        start_rt_side(g, tmp_path, lan.rt, RT_IP, env=rt_env)
        g.start("trajectory_server", params_file=PARAMS / "trajectory_server.yaml", netns=lan.station)
        positions = g.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
        diag = Diagnostics(g, 100)
        # A second client on station, same domain, multicast off and no peers: it must see
        # nothing of rt while the first one does.
        with observer(lan, tmp_path / "lonely", discovery("LOCALHOST", ""), domain_id=g.domain_id) as lonely:
            lonely_positions = lonely.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
            g.spin_until(lambda: len(positions) >= 10, 60.0, "/arm/position from rt through the static peers")
            g.spin_until(lambda: diag.counter("/trajectory_server: move_to", "positions", 0) > 0, 60.0,
                         "positions from rt counted by the trajectory server on station")
            g.wait_for_nodes({"/sim", "/spine_bridge", "/trajectory_server"})
            lonely.spin_for(3.0)
            assert "/trajectory_server" in lonely.node_names(), "the lonely client does not even see its own host"
            assert not lonely_positions, "a client without static peers got rt's positions"
            assert not {"/sim", "/spine_bridge"} & lonely.node_names(), lonely.node_names()


def test_domain_ids_keep_two_labs_apart(lan, tmp_path):
    # Lab A on rt, lab B on station, one LAN, subnet discovery, two ROS_DOMAIN_IDs: each
    # lab's client (both on station) sees its own lab's spine and nothing of the other.
    with observer(lan, tmp_path / "a") as a, observer(lan, tmp_path / "b") as b:
        assert a.domain_id != b.domain_id
        start_rt_side(a, tmp_path, lan.rt, RT_IP)
        start_rt_side(b, tmp_path, lan.station, STATION_IP)
        got = {g: g.collect(PointStamped, "/arm/position", qos_profile_sensor_data) for g in (a, b)}
        for g in (a, b):
            g.spin_until(lambda: len(got[g]) >= 10, 60.0, f"/arm/position in domain {g.domain_id}")
            g.wait_for_nodes({"/sim", "/spine_bridge"})
        a.spin_for(3.0)
        b.spin_for(1.0)
        for g in (a, b):
            names = [n for n, _ in g.node.get_node_names_and_namespaces()]
            assert names.count("spine_bridge") == 1 and names.count("sim") == 1, (g.domain_id, names)
            assert g.node.count_publishers("/arm/position") == 1, g.domain_id


def stamp_s(msg):
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def test_link_cut_for_two_seconds_during_the_task(lan, tmp_path):
    with observer(lan, tmp_path) as g:
        link_cut_for_two_seconds(lan, g, split_stack(g, tmp_path, lan))


def link_cut_for_two_seconds(lan, g, stack):
    """The link cut mid-task: nothing crosses meanwhile, no set-point on a stale position,
    the same processes complete the task after (also test_two_hosts_tls.py)."""
    stack.ready()
    stack.run_task()
    # Cut as lightSelf starts its move to the source (as test_e2e kills the spine).
    stack.wait(lambda: any(a.name == "lightSelf" and a.step == 2 for s in stack.states[-1:] for a in s.active),
               "lightSelf sending step 2")
    positions_before = len(stack.positions)
    cut = time.time()
    lan.link(up=False)
    g.spin_for(2.0)
    restored = time.time()
    lan.link(up=True)
    # Nothing of rt reached station while the link was down: the cut was real.
    late = [p for p in stack.positions[positions_before:] if cut + 0.5 < stamp_s(p) < restored - 0.1]
    assert not late, f"{len(late)} positions stamped during the cut reached station"
    # The trajectory server held: no set-point with a stale position (its
    # position_timeout_ms is 100 ms; 1 s of margin for the last samples in flight).
    stale_commands = [c for c in stack.commands if cut + 1.0 < stamp_s(c) < restored]
    assert not stale_commands, f"{len(stale_commands)} set-points on a stale position during the cut"
    # The same nodes, no restart: positions flow again and the task completes.
    g.spin_until(lambda: len(stack.positions) > positions_before + 10, 60.0, "positions again after the cut")
    stack.wait_lit("candle")
    stack.assert_flame_passed_taper_first()
    assert all(proc.poll() is None for proc in (stack.sim, stack.spine, stack.trajectory, stack.brain)), g.logs()
    stack.cancel()


LOSS_ONE_IN = 20  # 5 %
# Classic BPF for cls_bpf: A = random u32 (SKF_AD_RANDOM); A %= 20; match (-1) when 0,
# else no match (0). A match runs the action: redirect to a veth whose peer is down (no
# carrier), where mirred drops it. (This kernel has no netem, no gact and no matchall.)
DROP_ONE_IN_20 = f"5,32 0 0 {0xfffff000 + 56},148 0 0 {LOSS_ONE_IN},21 0 1 0,6 0 0 {0xffffffff},6 0 0 0"


# By its path: `ip netns exec` looks a bare `tc` up on the PATH, which may lack /usr/sbin.
TC = tool("tc") or "tc"


def random_loss(lan):
    """5 % of the packets leaving each end of the veth dropped at random; returns a
    function giving the packets dropped so far. Fails, saying why, where the kernel cannot
    (the namespaces are made as root: nothing here is skipped)."""
    for ns in (lan.rt, lan.station):
        sink, peer = f"{lan.veth[ns]}k", f"{lan.veth[ns]}p"
        try:
            _ip("link", "add", sink, "type", "veth", "peer", "name", peer, netns=ns)
            _ip("link", "set", sink, "up", netns=ns)
            for cmd in (["qdisc", "add", "dev", lan.veth[ns], "clsact"],
                        ["filter", "add", "dev", lan.veth[ns], "egress", "bpf", "bytecode", DROP_ONE_IN_20,
                         "action", "mirred", "egress", "redirect", "dev", sink]):
                r = subprocess.run(["ip", "netns", "exec", ns, TC, *cmd], capture_output=True, text=True, timeout=30)
                if r.returncode != 0:
                    pytest.fail(f"no random packet loss on this kernel: `tc {' '.join(cmd)}`: {r.stderr.strip()}")
        except RuntimeError as e:
            pytest.fail(f"no random packet loss on this kernel: {e}")

    def dropped():
        """mirred drops what it sends to a device without carrier and counts it as the
        action's overlimits."""
        total = 0
        for ns in (lan.rt, lan.station):
            r = subprocess.run(["ip", "netns", "exec", ns, TC, "-s", "filter", "show", "dev", lan.veth[ns], "egress"],
                               capture_output=True, text=True, timeout=30, check=True)
            total += sum(int(n) for n in re.findall(r"overlimits (\d+)", r.stdout))
        return total
    return dropped


def test_five_percent_packet_loss_on_the_link(lan, tmp_path):
    with observer(lan, tmp_path) as g:
        five_percent_loss(lan, g, lambda: split_stack(g, tmp_path, lan))


def five_percent_loss(lan, g, make_stack):
    """5 % random loss both ways: the task completes (also test_two_hosts_tls.py)."""
    dropped = random_loss(lan)
    stack = make_stack()
    stack.ready()
    stack.run_task()
    stack.wait_lit("candle")
    stack.assert_flame_passed_taper_first()
    assert dropped() > 0, "no packet was dropped: the loss had no effect"
    stack.cancel()


def test_launch_file_parts_on_two_hosts(lan, tmp_path):
    # The lab's way: the same launch file on both machines, `part:=rt` on rt (with the
    # LAN's spine config, loopback:=false) and `part:=station` on station.
    require_ros2()
    config = json.loads((PARAMS / "spine_sim.json").read_text())
    on_lan(config)
    path = tmp_path / "lab_spine.json"
    path.write_text(json.dumps(config, indent=2))
    with observer(lan, tmp_path) as g:
        diag = Diagnostics(g, 100)
        g.launch("ip", "netns", "exec", lan.rt, ROS2, "launch", "arnie_bringup", "arnie.launch.xml",
                 "part:=rt", "loopback:=false", f"spine_config:={path}", name="launch_rt")
        g.launch("ip", "netns", "exec", lan.station, ROS2, "launch", "arnie_bringup", "arnie.launch.xml",
                 "part:=station", "tick_period_s:=2.0", name="launch_station")
        g.wait_for_nodes({"/sim", "/spine_bridge", "/trajectory_server", "/brain"}, timeout=90.0)

        def counted(status, key):
            return diag.counter(status, key, 0) > 0
        g.spin_until(lambda: counted("/trajectory_server: move_to", "positions") and counted("/brain: inputs", "positions")
                     and counted("/brain: inputs", "observation_messages"), 90.0,
                     "rt's positions and observations counted by the trajectory server and the brain on station")
        names = [n for n, _ in g.node.get_node_names_and_namespaces()]
        for node in ("sim", "spine_bridge", "trajectory_server", "brain"):
            assert names.count(node) == 1, names  # each started once, by its host's part
