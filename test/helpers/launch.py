"""Launch command lines: `ros2 launch` where it is installed, else the project's own
launcher (`cargo xtask launch`, the binary cargo built), on the same launch files.
"""
from helpers.graph import ROS2, binary, require_ros2


STARTUP_S = 90.0


def launcher_cmd(launcher, file, *args):
    if launcher == "ros2":
        require_ros2()
        return [ROS2, "launch", "arnie_bringup", file, *args]
    # The project's launcher as `cargo xtask launch` runs it (the binary cargo built).
    return [binary("xtask"), "launch", "arnie_bringup", file, *args]


def any_launcher():
    """`ros2 launch` where it is installed, else the project's launcher."""
    return "ros2" if ROS2 else "xtask"
