"""launch_testing: launch/fleet.launch.py starts two consolidation workers and a query node
(no memory node) on one ledger, under a namespace; what a robot stores there is projected.

Needs a ROS 2 install with launch, launch_ros and launch_testing (not on PyPI: in the plain
`make setup` venv its one test is skipped, as test/test_launch_file.py's). Run it with
    launch_test test/test_fleet_launch_file.py   or   python -m pytest test/test_fleet_launch_file.py
The ledger is a SQLite file in a temporary folder (the launch file passes any URL through;
a fleet names its PostgreSQL database). The layout itself is tested without ROS in
test/engine/test_fleet_layout.py.
"""

import atexit
import importlib.util
import os
import shutil
import tempfile
import time
import unittest

import pytest

_NEEDED = ("launch", "launch_testing", "launch_ros", "ament_index_python")


def _missing():
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
    def test_fleet_launch_file_needs_the_launch_system():
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

    LAUNCH_FILE = os.path.join(os.path.dirname(__file__), "..", "launch", "fleet.launch.py")
    NAMESPACE = "fleet_test_site"
    WORKDIR = tempfile.mkdtemp(prefix="trace_ros_fleet_launch_test_")
    LEDGER = os.path.join(WORKDIR, "fleet.db")
    atexit.register(shutil.rmtree, WORKDIR, True)
    SERVICE_TIMEOUT_S = 120.0

    @pytest.mark.launch_test
    def generate_test_description():
        fleet = IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.abspath(LAUNCH_FILE)),
            launch_arguments={"namespace": NAMESPACE, "ledger_url": f"sqlite://{LEDGER}",
                              "workers": "2", "log_level": "warn"}.items(),
        )
        return launch.LaunchDescription([fleet, launch_testing.actions.ReadyToTest()])

    class TestFleetBringup(unittest.TestCase):
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

        def test_workers_and_query_node_share_the_ledger(self):
            from trace_ros.msg import Scope as ScopeMsg

            from trace_ros.capture import Event, ingest
            from trace_ros.config import CaptureConfig
            from trace_ros.ledger import Ledger, Scope

            context = rclpy.Context()
            rclpy.init(context=context)
            try:
                node = rclpy.create_node("trace_ros_fleet_probe", context=context)
                try:
                    reply = self._call(node, Query, f"/{NAMESPACE}/memory/query", Query.Request(
                        question="what do you remember?", scope=ScopeMsg(subject_id="nobody")))
                    self.assertEqual(reply.status, Query.Response.STATUS_MISSING)
                    names = [f"/{NAMESPACE}/query_node"] + [
                        f"/{NAMESPACE}/worker_{i}/consolidation_node" for i in (1, 2)]
                    for name in names:
                        state = self._call(node, GetState, f"{name}/get_state",
                                           GetState.Request()).current_state
                        self.assertEqual(state.id, State.PRIMARY_STATE_ACTIVE, name)
                    running = {f"{ns.rstrip('/')}/{n}"
                               for n, ns in node.get_node_names_and_namespaces()}
                    self.assertFalse([n for n in running if n.endswith("/memory_node")])
                finally:
                    node.destroy_node()
            finally:
                rclpy.shutdown(context=context)
            # A robot's memory node would store here; the workers project it.
            with Ledger(LEDGER) as ledger:
                ingest(ledger, [Event("dialogue", Scope(f"s{i}", "r1", "x"), f"I am {i}.",
                                      "Ann", stamp=1.0 + i) for i in range(4)],
                       CaptureConfig())
                deadline = time.monotonic() + 60.0
                while ledger.job_counts()["done"] < 4 and time.monotonic() < deadline:
                    time.sleep(0.2)
                self.assertEqual(ledger.job_counts()["done"], 4)

    @launch_testing.post_shutdown_test()
    class TestFleetShutdown(unittest.TestCase):
        def test_nodes_exit_cleanly(self, proc_info):
            launch_testing.asserts.assertExitCodes(proc_info,
                                                   allowable_exit_codes=[0, -2, -15])
            self.assertEqual(len(proc_info.process_names()), 3)

        def test_remove_temporary_folder(self):
            shutil.rmtree(WORKDIR, ignore_errors=True)
            self.assertFalse(os.path.exists(WORKDIR))
