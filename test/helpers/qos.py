"""The QoS profiles the tests subscribe and publish with, by what they are for.

- `reliable(depth)`: reliable, volatile, keep last `depth` (deep enough that a busy test
  loses nothing of a run);
- `latched(depth)`: reliable and transient local ("latched"): a late subscriber still gets
  the last `depth` messages.
Sensor data is rclpy's `qos_profile_sensor_data` (best effort), as the nodes publish it.
"""
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy


def reliable(depth):
    return QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE)


def latched(depth):
    return QoSProfile(depth=depth, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
