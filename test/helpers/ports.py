"""Free ports on loopback, and configs that use them (so a running demo or another test
never shares a socket)."""
import json
import random
import socket

import pytest

from helpers.graph import ROOT


def free_udp_ports(n):
    """n distinct free UDP ports on 127.0.0.1 (held together while chosen)."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def spine_sim_config(path):
    """params/spine_sim.json with its three UDP ports replaced by free ones, at `path`."""
    config = json.loads((ROOT / "params" / "spine_sim.json").read_text())
    arm_in, eyes_in, arm_out = free_udp_ports(3)
    config["interfaces"]["input"]["arm"]["port"] = arm_in
    config["interfaces"]["input"]["eyes"]["port"] = eyes_in
    config["interfaces"]["output"]["arm"]["port"] = arm_out
    path.write_text(json.dumps(config, indent=2))
    return path




def free_tcp_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def free_port_offset(ports, what="the config"):
    """A port offset under which every one of `ports` is free on loopback (and below the
    ephemeral range), so the test never collides with anything else."""
    for _ in range(50):
        offset = random.randrange(1000, 6000)
        socks = []
        try:
            for p in sorted(set(ports)):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind(("127.0.0.1", p + offset))
            return offset
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    pytest.fail(f"no free port offset for {what}")
