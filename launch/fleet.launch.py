"""Start a fleet's shared back end: N consolidation workers and one query node on one
ledger, no memory node (each robot runs its own, writing to the same ledger).

    ros2 launch trace_ros fleet.launch.py ledger_url:=postgresql://trace@db:5432/fleet
    ros2 launch trace_ros fleet.launch.py ledger_url:=postgresql://… workers:=4 namespace:=site_a

Arguments: ledger_url (required; passed through as ledger.url), workers (1-64, default 2),
namespace (the query node's; workers run in <namespace>/worker_<i>, see
trace_ros/nodes/fleet.py), params_file (default: config/memory.yaml of the installed
package), use_sim_time, log_level, autostart (as in memory.launch.py). A missing or bad
ledger_url or workers stops the launch with one line naming it.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import LifecycleNode

PACKAGE = "trace_ros"
TRUE = ("true", "1", "yes", "on")


def _nodes(context):
    from trace_ros.nodes.bringup import discovery_env, write_overrides
    from trace_ros.nodes.fleet import QUERY, WORKER, check_ledger_url, check_workers, fleet_nodes

    arg = context.launch_configurations
    url = check_ledger_url(arg["ledger_url"])
    layout = fleet_nodes(arg["namespace"], check_workers(arg["workers"]))
    overrides = [f"use_sim_time:={'true' if arg['use_sim_time'].lower() in TRUE else 'false'}",
                 f"autostart:={'true' if arg['autostart'].lower() in TRUE else 'false'}",
                 f"ledger.url:={url}"]
    extra = str(write_overrides((WORKER, QUERY), overrides))
    return [
        LifecycleNode(
            package=PACKAGE,
            executable=node.executable,
            name=node.executable,  # matches its section in params_file
            namespace=node.namespace,
            parameters=[arg["params_file"], extra],
            ros_arguments=["--log-level", arg["log_level"]],
            additional_env=discovery_env(),
            output="screen",
            emulate_tty=True,
        )
        for node in layout
    ]


def generate_launch_description():
    default_params = os.path.join(get_package_share_directory(PACKAGE), "config", "memory.yaml")
    arguments = [
        DeclareLaunchArgument("ledger_url", default_value="",
                              description="The fleet's ledger (postgresql://user@host:port/db "
                                          "or sqlite:///abs/path.db); required"),
        DeclareLaunchArgument("workers", default_value="2",
                              description="Consolidation workers to start (1-64)"),
        DeclareLaunchArgument("namespace", default_value="",
                              description="Namespace of the query node; workers run in "
                                          "<namespace>/worker_<i>"),
        DeclareLaunchArgument("params_file", default_value=default_params,
                              description="ROS parameter file ('/**' and '/**/<node>' sections)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="Take every time from /clock (replayed bags)"),
        DeclareLaunchArgument("log_level", default_value="info",
                              description="Log level (debug, info, warn, error, fatal)"),
        DeclareLaunchArgument("autostart", default_value="true",
                              description="Nodes configure and activate themselves at start"),
    ]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
