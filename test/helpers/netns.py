"""The virtual LAN of test/system/test_two_hosts.py and `cargo xtask bench two-hosts`: two
network namespaces, "rt" (10.77.0.1/24) and "station" (10.77.0.2/24), joined by a veth
pair, with nothing but `lo` and the veth and no default route, so every packet stays
between them. No pytest, no ROS: plain iproute2 and setns(2).
"""
import ctypes
import itertools
import os
import shutil
import subprocess
from contextlib import contextmanager

RT_IP, STATION_IP = "10.77.0.1", "10.77.0.2"
PREFIX = 24
CLONE_NEWNET = 0x40000000
LIBC = ctypes.CDLL(None, use_errno=True)
_SERIAL = itertools.count()


def ip(*args, netns=None, check=True):
    """`ip [-n NETNS] ARGS`; RuntimeError with its stderr when it fails (check)."""
    cmd = ["ip"] + (["-n", netns] if netns else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if check and r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed ({r.returncode}): {r.stderr.strip()}")
    return r


class Lan:
    """Two namespaces (`rt`, `station`) joined by a veth pair: the virtual LAN."""

    def __init__(self):
        tag = f"{os.getpid() % 100000}x{next(_SERIAL)}"
        self.rt, self.station = f"arnie-rt-{tag}", f"arnie-st-{tag}"
        # Interface names: at most 15 characters.
        self.veth = {self.rt: f"av{tag}r", self.station: f"av{tag}s"}
        self.ip_of = {self.rt: RT_IP, self.station: STATION_IP}
        self.made = []

    def create(self):
        for ns in (self.rt, self.station):
            ip("netns", "add", ns)
            self.made.append(ns)
        ip("link", "add", self.veth[self.rt], "type", "veth", "peer", "name", self.veth[self.station])
        for ns in (self.rt, self.station):
            dev = self.veth[ns]
            ip("link", "set", dev, "netns", ns)
            ip("addr", "add", f"{self.ip_of[ns]}/{PREFIX}", "dev", dev, netns=ns)
            ip("link", "set", "lo", "up", netns=ns)
            ip("link", "set", dev, "up", netns=ns)
        # Nothing but the LAN: no default route, only lo and the veth.
        for ns in (self.rt, self.station):
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
        """Cuts (up=False) or restores the link: both ends of the veth."""
        for ns in (self.rt, self.station):
            ip("link", "set", self.veth[ns], "up" if up else "down", netns=ns)

    def counters(self, ns):
        """(tx packets, rx packets) of the namespace's end of the veth."""
        stats = f"/sys/class/net/{self.veth[ns]}/statistics"
        r = subprocess.run(["ip", "netns", "exec", ns, "cat", f"{stats}/tx_packets", f"{stats}/rx_packets"],
                           capture_output=True, text=True, timeout=30, check=True)
        tx, rx = r.stdout.split()
        return int(tx), int(rx)


def netns_unavailable():
    """Why network namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs as root)"
    if shutil.which("ip") is None:
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
