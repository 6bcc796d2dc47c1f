"""Start the trace_ros memory: memory_node, consolidation_node and query_node.

    ros2 launch trace_ros memory.launch.py
    ros2 launch trace_ros memory.launch.py namespace:=robot1 db_path:=/data/robot1.db
    ros2 launch trace_ros memory.launch.py params_file:=/path/to/my.yaml log_level:=debug \
        use_sim_time:=true

Arguments: namespace (one per robot; every topic and service is relative, so it moves them
all), params_file (default: config/memory.yaml of the installed package; its "/**" and
"/**/<node>" sections apply under any namespace), db_path (overrides ledger.db_path),
ledger_url (overrides ledger.url: sqlite:///abs/path.db or postgresql://user@host:port/db),
use_sim_time, log_level, autostart. The nodes are lifecycle nodes: with autostart:=true
(the default) each configures (opens the ledger, loads its models) and then activates
(opens topics and services) by itself, and one that cannot configure exits with status 1
and the reason in its log; with autostart:=false they wait for `ros2 lifecycle set`.
Under FastDDS the nodes load config/fastdds_discovery.xml (announcements every 0.25 s, so
a client started later finds them at once) unless FASTDDS_DEFAULT_PROFILES_FILE is set.
Where launch/launch_ros are not installed, `trace-ros up` (or `ros2 run trace_ros
bringup`) starts the same three nodes with the same options.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import LifecycleNode

PACKAGE = "trace_ros"
NODE_EXECUTABLES = ("memory_node", "consolidation_node", "query_node")
TRUE = ("true", "1", "yes", "on")


def _nodes(context):
    from trace_ros.nodes.bringup import discovery_env, normal_namespace, write_overrides

    arg = context.launch_configurations
    overrides = [f"use_sim_time:={'true' if arg['use_sim_time'].lower() in TRUE else 'false'}",
                 f"autostart:={'true' if arg['autostart'].lower() in TRUE else 'false'}"]
    if arg["db_path"]:
        overrides.append(f"ledger.db_path:={os.path.abspath(os.path.expanduser(arg['db_path']))}")
    if arg["ledger_url"]:
        overrides.append(f"ledger.url:={arg['ledger_url']}")
    # A file with "/**/<node>" sections: it beats the node sections of params_file.
    extra = str(write_overrides(NODE_EXECUTABLES, overrides))
    namespace = normal_namespace(arg["namespace"]) if arg["namespace"].strip("/") else ""
    return [
        LifecycleNode(
            package=PACKAGE,
            executable=executable,
            # The node name is fixed so that it matches its section in params_file.
            name=executable,
            namespace=namespace,
            parameters=[arg["params_file"], extra],
            ros_arguments=["--log-level", arg["log_level"]],
            # config/fastdds_discovery.xml unless a FastDDS profile file is set already.
            additional_env=discovery_env(),
            output="screen",
            emulate_tty=True,
        )
        for executable in NODE_EXECUTABLES
    ]


def generate_launch_description():
    default_params = os.path.join(get_package_share_directory(PACKAGE), "config", "memory.yaml")
    arguments = [
        DeclareLaunchArgument("namespace", default_value="",
                              description="Namespace of the three nodes (one per robot)"),
        DeclareLaunchArgument("params_file", default_value=default_params,
                              description="ROS parameter file ('/**' and '/**/<node>' sections)"),
        DeclareLaunchArgument("db_path", default_value="",
                              description="Ledger file; overrides ledger.db_path (empty: keep)"),
        DeclareLaunchArgument("ledger_url", default_value="",
                              description="Ledger URL (sqlite:///abs/path.db or "
                                          "postgresql://user@host:port/db); overrides "
                                          "ledger.url (empty: keep)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="Take every time from /clock (replayed bags)"),
        DeclareLaunchArgument("log_level", default_value="info",
                              description="Log level (debug, info, warn, error, fatal)"),
        DeclareLaunchArgument("autostart", default_value="true",
                              description="Nodes configure and activate themselves at start"),
    ]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
