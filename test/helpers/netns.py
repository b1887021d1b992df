"""The virtual LAN of test/system/test_two_hosts.py and `cargo xtask bench two-hosts`: two
network namespaces, "rt" (10.77.0.1/24) and "station" (10.77.0.2/24), joined by a veth
pair, with nothing but `lo` and the veth and no default route, so every packet stays
between them. With `intruder=True` (test/system/test_two_hosts_tls.py) a third namespace,
"intruder" (10.77.0.3/24), is on the same link: each of the three has a veth to a bridge in
a fourth namespace (the switch). No pytest, no ROS: plain iproute2 and setns(2).
"""
import ctypes
import itertools
import os
import shutil
import subprocess
from contextlib import contextmanager

RT_IP, STATION_IP, INTRUDER_IP = "10.77.0.1", "10.77.0.2", "10.77.0.3"
PREFIX = 24
CLONE_NEWNET = 0x40000000
LIBC = ctypes.CDLL(None, use_errno=True)
_SERIAL = itertools.count()


def ip(*args, netns=None, check=True):
    """`ip [-n NETNS] ARGS`; RuntimeError with its stderr when it fails (check)."""
    cmd = [tool("ip") or "ip"] + (["-n", netns] if netns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed ({r.returncode}): {r.stderr.strip()}")
    return r


class Lan:
    """Two namespaces (`rt`, `station`) joined by a veth pair: the virtual LAN; with
    `intruder`, a third one on the same link (a bridge in a switch namespace)."""

    def __init__(self, intruder=False):
        tag = f"{os.getpid() % 100000}x{next(_SERIAL)}"
        self.rt, self.station = f"arnie-rt-{tag}", f"arnie-st-{tag}"
        self.intruder = f"arnie-in-{tag}" if intruder else None
        self.switch = f"arnie-sw-{tag}" if intruder else None
        # Interface names: at most 15 characters.
        self.veth = {self.rt: f"av{tag}r", self.station: f"av{tag}s"}
        self.ip_of = {self.rt: RT_IP, self.station: STATION_IP}
        if intruder:
            self.veth[self.intruder] = f"av{tag}i"
            self.ip_of[self.intruder] = INTRUDER_IP
        # The switch's end of each host's veth (bridged), when there is a switch.
        self.port = {ns: f"{dev}w" for ns, dev in self.veth.items()} if intruder else {}
        self.made = []

    def hosts(self):
        return [ns for ns in (self.rt, self.station, self.intruder) if ns]

    def create(self):
        for ns in self.hosts() + ([self.switch] if self.switch else []):
            ip("netns", "add", ns)
            self.made.append(ns)
        if self.switch:
            bridge = "br0"
            ip("link", "add", bridge, "type", "bridge", netns=self.switch)
            ip("link", "set", bridge, "up", netns=self.switch)
            for ns in self.hosts():
                ip("link", "add", self.veth[ns], "type", "veth", "peer", "name", self.port[ns])
                ip("link", "set", self.port[ns], "netns", self.switch)
                ip("link", "set", self.port[ns], "master", bridge, netns=self.switch)
                ip("link", "set", self.port[ns], "up", netns=self.switch)
        else:
            ip("link", "add", self.veth[self.rt], "type", "veth", "peer", "name", self.veth[self.station])
        for ns in self.hosts():
            dev = self.veth[ns]
            ip("link", "set", dev, "netns", ns)
            ip("addr", "add", f"{self.ip_of[ns]}/{PREFIX}", "dev", dev, netns=ns)
            ip("link", "set", "lo", "up", netns=ns)
            ip("link", "set", dev, "up", netns=ns)
        # Nothing but the LAN: no default route, only lo and the veth.
        for ns in self.hosts():
            routes = ip("route", "show", netns=ns).stdout
            links = ip("-o", "link", "show", netns=ns).stdout
            names = {line.split(":")[1].strip().split("@")[0] for line in links.splitlines()}
            if "default" in routes or names != {"lo", self.veth[ns]}:
                raise RuntimeError(f"{ns} is not isolated: links {sorted(names)}, routes {routes!r}")

    def delete(self):
        """Deleting a namespace deletes its end of the veth, and with it the pair."""
        for ns in self.made:
            ip("netns", "delete", ns, check=False)
        self.made = []

    def link(self, up):
        """Cuts (up=False) or restores the link between rt and station: both ends of each
        veth."""
        for ns in (self.rt, self.station):
            ip("link", "set", self.veth[ns], "up" if up else "down", netns=ns)
            if self.switch:
                ip("link", "set", self.port[ns], "up" if up else "down", netns=self.switch)

    def counters(self, ns):
        """(tx packets, rx packets) of the namespace's end of the veth."""
        stats = f"/sys/class/net/{self.veth[ns]}/statistics"
        r = subprocess.run(["ip", "netns", "exec", ns, "cat", f"{stats}/tx_packets", f"{stats}/rx_packets"],
                           capture_output=True, text=True, timeout=30, check=True)
        tx, rx = r.stdout.split()
        return int(tx), int(rx)


# iproute2's programs live in /usr/sbin and /sbin, which a non-login PATH may lack.
SBIN = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")


def tool(name):
    """The path of `ip` or `tc`: on the PATH or in the sbin folders; None when absent."""
    return shutil.which(name) or next((p for p in (os.path.join(d, name) for d in SBIN) if os.access(p, os.X_OK)), None)


def netns_unavailable():
    """Why network namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs as root)"
    if tool("ip") is None:
        return "no `ip` command (iproute2) to make network namespaces"
    return None


@contextmanager
def inside(netns):
    """This thread in network namespace `netns` (setns(2)); back in its own after. Threads
    and processes started meanwhile stay where they were started."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
    try:
        if LIBC.setns(target, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns into {netns}: {os.strerror(err)}")
        yield
    finally:
        if LIBC.setns(own, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns back: {os.strerror(err)}")
        os.close(own)
        os.close(target)
