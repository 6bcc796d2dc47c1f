"""launch_testing: launch/memory.launch.py brings the nodes to active under a namespace.

Needs a ROS 2 install with launch, launch_ros and launch_testing (they are not on PyPI, so
in the plain `make setup` venv this module's one test is skipped). Run it with
    launch_test test/test_launch_file.py        or        python -m pytest test/test_launch_file.py
with trace_ros installed and AMENT_PREFIX_PATH covering its prefix (colcon test runs it
through add_launch_test). Its ledger lives in a temporary folder removed after shutdown.
"""

import atexit
import importlib.util
import os
import shutil
import tempfile
import unittest

import pytest

_NEEDED = ("launch", "launch_testing", "launch_ros", "ament_index_python")


def _missing():
    """Modules of the launch system that are absent (a half-installed one counts)."""
    out = []
    for name in _NEEDED:
        try:
            if importlib.util.find_spec(name) is None:
                out.append(name)
        except (ImportError, ValueError):
            out.append(name)
    return out


MISSING = _missing()

if MISSING:
    # No module-level skip: with launch_testing's pytest plugin loaded, that would leave
    # pytest with nothing collected. One test says what is missing instead.
    def test_launch_file_needs_the_launch_system():
        pytest.skip("needs a ROS 2 install with launch_testing and launch_ros (not on PyPI); "
                    f"missing: {', '.join(MISSING)}")
else:
    import launch
    import launch_testing.actions
    import launch_testing.asserts
    import rclpy
    from launch.actions import IncludeLaunchDescription
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from lifecycle_msgs.msg import State
    from lifecycle_msgs.srv import GetState
    from rclpy.executors import SingleThreadedExecutor
    from trace_ros.srv import Query

    LAUNCH_FILE = os.path.join(os.path.dirname(__file__), "..", "launch", "memory.launch.py")
    NAMESPACE = "launch_test_robot"
    WORKDIR = tempfile.mkdtemp(prefix="trace_ros_launch_test_")
    # Also removed when the run ends early (before the post-shutdown test runs).
    atexit.register(shutil.rmtree, WORKDIR, True)
    # query_node loads its encoder before it offers the service.
    SERVICE_TIMEOUT_S = 120.0

    @pytest.mark.launch_test
    def generate_test_description():
        memory = IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.abspath(LAUNCH_FILE)),
            launch_arguments={"namespace": NAMESPACE,
                              "db_path": os.path.join(WORKDIR, "memory.db"),
                              "log_level": "warn"}.items(),
        )
        return launch.LaunchDescription([memory, launch_testing.actions.ReadyToTest()])

    class TestMemoryBringup(unittest.TestCase):
        def _call(self, node, srv_type, name, request):
            client = node.create_client(srv_type, name)
            self.assertTrue(client.wait_for_service(timeout_sec=SERVICE_TIMEOUT_S),
                            f"{name} did not appear within {SERVICE_TIMEOUT_S:.0f} s")
            future = client.call_async(request)
            executor = SingleThreadedExecutor(context=node.context)
            rclpy.spin_until_future_complete(node, future, executor=executor, timeout_sec=30.0)
            executor.shutdown()
            self.assertIsNotNone(future.result(), f"{name} did not answer")
            return future.result()

        def test_nodes_are_active_and_answer_under_the_namespace(self):
            context = rclpy.Context()
            rclpy.init(context=context)
            try:
                node = rclpy.create_node("trace_ros_launch_probe", context=context)
                try:
                    reply = self._call(node, Query, f"/{NAMESPACE}/memory/query", Query.Request(
                        question="what do you remember?", scope=_scope("nobody")))
                    self.assertEqual(reply.status, Query.Response.STATUS_MISSING)
                    for name in ("memory_node", "consolidation_node", "query_node"):
                        state = self._call(node, GetState, f"/{NAMESPACE}/{name}/get_state",
                                           GetState.Request()).current_state
                        self.assertEqual(state.id, State.PRIMARY_STATE_ACTIVE, name)
                finally:
                    node.destroy_node()
            finally:
                rclpy.shutdown(context=context)
            self.assertTrue(os.path.isfile(os.path.join(WORKDIR, "memory.db")))

    def _scope(subject_id):
        from trace_ros.msg import Scope

        return Scope(subject_id=subject_id)

    @launch_testing.post_shutdown_test()
    class TestMemoryShutdown(unittest.TestCase):
        def test_nodes_exit_cleanly(self, proc_info):
            # 0: main() caught the interrupt; -2/-15: stopped by launch's SIGINT/SIGTERM.
            launch_testing.asserts.assertExitCodes(proc_info,
                                                   allowable_exit_codes=[0, -2, -15])

        def test_remove_temporary_folder(self):
            shutil.rmtree(WORKDIR, ignore_errors=True)
            self.assertFalse(os.path.exists(WORKDIR))
