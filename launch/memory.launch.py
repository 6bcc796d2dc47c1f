"""Start the trace_ros memory: memory_node, consolidation_node and query_node.

    ros2 launch trace_ros memory.launch.py
    ros2 launch trace_ros memory.launch.py params_file:=/path/to/my.yaml log_level:=debug

Every node reads its section of one parameter file (default: config/memory.yaml from the
installed package share directory). Where only rclpy is available (no launch/launch_ros),
`ros2 run trace_ros bringup` starts the same three nodes as child processes.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "trace_ros"
NODE_EXECUTABLES = ("memory_node", "consolidation_node", "query_node")


def generate_launch_description():
    default_params = os.path.join(
        get_package_share_directory(PACKAGE), "config", "memory.yaml"
    )
    params_file = LaunchConfiguration("params_file")
    log_level = LaunchConfiguration("log_level")

    arguments = [
        DeclareLaunchArgument(
            "params_file",
            default_value=default_params,
            description="ROS parameter file with memory_node, consolidation_node and "
            "query_node sections",
        ),
        DeclareLaunchArgument(
            "log_level",
            default_value="info",
            description="Log level for all three nodes (debug, info, warn, error, fatal)",
        ),
    ]
    nodes = [
        Node(
            package=PACKAGE,
            executable=executable,
            # The node name is fixed so that it matches its section in params_file.
            name=executable,
            parameters=[params_file],
            ros_arguments=["--log-level", log_level],
            output="screen",
            emulate_tty=True,
        )
        for executable in NODE_EXECUTABLES
    ]
    return LaunchDescription(arguments + nodes)
