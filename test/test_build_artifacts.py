"""The CMake build (make setup) produced the interfaces and entry points; the launch file is sane.

The interface tests need the venv from `make setup` (rclpy and the generated trace_ros.msg);
the launch file check is static (the launch packages are not on PyPI).
"""

import ast
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LAUNCH_FILE = REPO / "launch" / "memory.launch.py"
NODE_EXECUTABLES = ("memory_node", "consolidation_node", "query_node")

# Names are the contract (DESIGN.md section 6); fields may grow, so these are subsets.
MESSAGE_FIELDS = {
    "Scope": {"subject_id", "robot_id", "session_id"},
    "DialogueEvent": {"header", "scope", "source_id", "speaker", "text", "payload_json"},
    "PerceptionEvent": {
        "header", "scope", "source_id", "actor", "label", "description", "confidence",
        "has_pose", "pose", "payload_json",
    },
    "Ack": {"header", "source_id", "status", "field", "reason", "sequence"},
    "Evidence": {
        "source_id", "modality", "speaker", "text", "source_time", "scope", "score",
        "label", "confidence", "has_pose", "pose",
    },
}
SERVICE_FIELDS = {
    "Query": (
        {"scope", "question", "as_of_valid", "as_of_known", "token_budget", "has_region",
         "region_center", "region_radius", "window_start", "window_end", "asker"},
        {
            "status", "answer", "source_ids", "evidence", "paths", "plan_json", "reader",
            "timings_json", "message",
        },
    ),
    "Forget": (
        {"scope", "source_ids", "allow_reingest"},
        {"status", "message", "sources_removed", "facts_removed", "removed_source_ids"},
    ),
}


def _fields(cls):
    return set(cls.get_fields_and_field_types())


@pytest.fixture(scope="module")
def interfaces():
    pytest.importorskip("rclpy", reason="needs the venv from `make setup` (ROS 2 wheels)")
    from trace_ros import msg, srv

    return msg, srv


@pytest.mark.parametrize("name", sorted(MESSAGE_FIELDS))
def test_message_imports_with_fields(interfaces, name):
    msg, _ = interfaces
    cls = getattr(msg, name)
    missing = MESSAGE_FIELDS[name] - _fields(cls)
    assert not missing, f"trace_ros/msg/{name} lacks {sorted(missing)}"
    cls()  # constructible with defaults


def test_nested_types():
    pytest.importorskip("rclpy", reason="needs the venv from `make setup` (ROS 2 wheels)")
    from trace_ros.msg import Ack, DialogueEvent, PerceptionEvent

    types = DialogueEvent.get_fields_and_field_types()
    assert types["scope"] == "trace_ros/Scope"
    assert types["header"] == "std_msgs/Header"
    assert PerceptionEvent.get_fields_and_field_types()["pose"] == "geometry_msgs/PoseStamped"
    assert (Ack.STATUS_ACCEPTED, Ack.STATUS_DUPLICATE, Ack.STATUS_REJECTED) == (
        "accepted", "duplicate", "rejected",
    )


@pytest.mark.parametrize("name", sorted(SERVICE_FIELDS))
def test_service_imports_with_fields(interfaces, name):
    _, srv = interfaces
    cls = getattr(srv, name)
    request, response = SERVICE_FIELDS[name]
    assert not request - _fields(cls.Request), f"{name}.Request lacks {request - _fields(cls.Request)}"
    assert not response - _fields(cls.Response), (
        f"{name}.Response lacks {response - _fields(cls.Response)}"
    )


def test_query_response_carries_evidence():
    pytest.importorskip("rclpy", reason="needs the venv from `make setup` (ROS 2 wheels)")
    from trace_ros.srv import Query

    assert Query.Response.get_fields_and_field_types()["evidence"] == "sequence<trace_ros/Evidence>"


def test_entry_points_installed_in_prefix():
    prefix = Path(sys.prefix)
    if not (prefix / "share/ament_index/resource_index/packages/trace_ros").exists():
        pytest.skip(f"trace_ros is not installed into {prefix} (run `make setup`)")
    for name in (*NODE_EXECUTABLES, "bringup"):
        path = prefix / "lib" / "trace_ros" / name
        assert path.is_file() and os.access(path, os.X_OK), f"{path} missing or not executable"
        assert f"from trace_ros.nodes.{name} import main" in path.read_text(encoding="utf-8")
    cli = prefix / "bin" / "trace-ros"
    assert cli.is_file() and os.access(cli, os.X_OK), f"{cli} missing or not executable"
    assert "from trace_ros.cli import main" in cli.read_text(encoding="utf-8")
    share = prefix / "share" / "trace_ros"
    assert (share / "launch" / "memory.launch.py").is_file()
    assert (share / "package.xml").is_file()


def _launch_tree():
    return ast.parse(LAUNCH_FILE.read_text(encoding="utf-8"), filename=str(LAUNCH_FILE))


def test_launch_file_parses_and_defines_entry():
    tree = _launch_tree()
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "generate_launch_description" in functions


def test_launch_file_names_nodes_and_params_file():
    tree = _launch_tree()
    strings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    for expected in (*NODE_EXECUTABLES, "trace_ros", "memory.yaml", "config", "params_file",
                     "log_level", "namespace", "db_path", "use_sim_time", "autostart"):
        assert expected in strings, f"{LAUNCH_FILE.name} does not mention {expected!r}"
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert {"launch_ros.actions", "ament_index_python.packages"} <= imported


def test_launch_file_params_file_exists_in_tree():
    assert (REPO / "config" / "memory.yaml").is_file(), "config/memory.yaml is missing"


def test_service_status_constants():
    pytest.importorskip("rclpy", reason="needs the venv from `make setup` (ROS 2 wheels)")
    from trace_ros.srv import Forget, Query

    statuses = {Query.Response.STATUS_ANSWERED, Query.Response.STATUS_MISSING,
                Query.Response.STATUS_CONFLICT, Query.Response.STATUS_ABSTAINED,
                Query.Response.STATUS_ERROR}
    assert statuses == {"answered", "missing", "conflict", "abstained", "error"}
    assert (Forget.Response.STATUS_OK, Forget.Response.STATUS_ERROR) == ("ok", "error")
