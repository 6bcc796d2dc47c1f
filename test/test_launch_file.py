"""launch_testing: launch/memory.launch.py brings up the nodes and /memory/query appears.

Needs a ROS 2 install with launch, launch_ros and launch_testing (they are not on PyPI, so
in the plain `make setup` venv this module is skipped at collection). Run it with
    launch_test test/test_launch_file.py        or        python -m pytest test/test_launch_file.py
with trace_ros installed and AMENT_PREFIX_PATH covering its prefix.
"""
# The imports below the importorskip calls are deliberate: they only run where the skip did not.
# ruff: noqa: E402

import os
import tempfile
import unittest

import pytest

_WHY = "needs a ROS 2 install with launch_testing and launch_ros (not on PyPI)"
# One guard for every import the test needs: a half-installed launch system (launch
# without launch_ros, launch_testing without its asserts, no ament index) is skipped
# with the missing module named, instead of failing at collection.
try:
    import launch
    import launch_ros.actions  # noqa: F401 - used by the launch file
    import launch_testing.actions
    import launch_testing.asserts
    import rclpy
    import yaml
    from ament_index_python.packages import get_package_share_directory
    from launch.actions import IncludeLaunchDescription
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from trace_ros.srv import Query
except ImportError as _exc:  # ModuleNotFoundError included
    pytest.skip(f"{_WHY}; missing: {_exc.name or _exc}", allow_module_level=True)

LAUNCH_FILE = os.path.join(os.path.dirname(__file__), "..", "launch", "memory.launch.py")
NODE_SECTIONS = ("memory_node", "consolidation_node", "query_node")
# query_node may load its encoder before it offers the service.
SERVICE_TIMEOUT_S = 120.0


def _private_params_file(workdir):
    """The installed config/memory.yaml with the ledger (ledger.db_path) moved into workdir."""
    installed = os.path.join(get_package_share_directory("trace_ros"), "config", "memory.yaml")
    with open(installed, encoding="utf-8") as stream:
        params = yaml.safe_load(stream) or {}
    db_path = os.path.join(workdir, "memory.db")
    for section in ("/**", *NODE_SECTIONS):
        node_params = params.setdefault(section, {}).setdefault("ros__parameters", {})
        if section == "/**" or "ledger" in node_params:
            node_params.setdefault("ledger", {})["db_path"] = db_path
    path = os.path.join(workdir, "memory.yaml")
    with open(path, "w", encoding="utf-8") as stream:
        yaml.safe_dump(params, stream)
    return path


@pytest.mark.launch_test
def generate_test_description():
    workdir = tempfile.mkdtemp(prefix="trace_ros_launch_test_")
    memory = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(os.path.abspath(LAUNCH_FILE)),
        launch_arguments={"params_file": _private_params_file(workdir)}.items(),
    )
    return launch.LaunchDescription([memory, launch_testing.actions.ReadyToTest()])


class TestMemoryBringup(unittest.TestCase):
    def test_query_service_becomes_available(self):
        context = rclpy.Context()
        rclpy.init(context=context)
        try:
            node = rclpy.create_node("trace_ros_launch_probe", context=context)
            client = node.create_client(Query, "/memory/query")
            try:
                self.assertTrue(
                    client.wait_for_service(timeout_sec=SERVICE_TIMEOUT_S),
                    f"/memory/query did not appear within {SERVICE_TIMEOUT_S:.0f} s",
                )
            finally:
                node.destroy_node()
        finally:
            rclpy.shutdown(context=context)


@launch_testing.post_shutdown_test()
class TestMemoryShutdown(unittest.TestCase):
    def test_nodes_exit_cleanly(self, proc_info):
        # 0: main() caught the interrupt; -2/-15: stopped by launch's SIGINT/SIGTERM.
        launch_testing.asserts.assertExitCodes(proc_info, allowable_exit_codes=[0, -2, -15])
