"""The storage package's shape: one contract the SQLite engine fulfils, all SQL inside the
package, and imports that point one way (storage imports nothing above it)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from trace_ros.ledger import Ledger
from trace_ros.storage import graph_of
from trace_ros.storage.contract import GraphStatements, LedgerContract

PACKAGE = Path(__file__).resolve().parents[2] / "trace_ros"
STORAGE = PACKAGE / "storage"
# What the storage package may import from trace_ros: itself and the ground it stands on.
STORAGE_MAY_IMPORT = {"trace_ros.storage", "trace_ros.errors", "trace_ros.facts"}
SQL = re.compile(r"^\s*(SELECT\s|INSERT (OR \w+ )?INTO\s|UPDATE \w+ SET\s|DELETE FROM\s|"
                 r"CREATE (TABLE|INDEX|VIRTUAL|TRIGGER|UNIQUE)\s|DROP\s|ALTER TABLE\s|PRAGMA\s|"
                 r"BEGIN\b)")


def _members(protocol: type) -> list[str]:
    return [name for name, value in protocol.__dict__.items()
            if (callable(value) or isinstance(value, staticmethod))
            and (not name.startswith("_") or name in ("__enter__", "__exit__"))]


def _same_shape(promised_in: type, actual_in: type, name: str) -> None:
    promised = inspect.getattr_static(promised_in, name)
    actual = inspect.getattr_static(actual_in, name)
    assert isinstance(actual, staticmethod) == isinstance(promised, staticmethod), name
    want = inspect.signature(getattr(promised_in, name))
    got = inspect.signature(getattr(actual_in, name))
    assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in want.parameters.values()], name


def test_the_contract_names_the_operations_above_the_ledger() -> None:
    members = _members(LedgerContract)
    statements = _members(GraphStatements)
    assert len(members) + len(statements) > 100
    assert {"store_sources", "claim_jobs", "forget", "search_sources", "write_audit",
            "perceptions", "subject_summaries"} <= set(members)
    assert {"insert_facts", "insert_edges", "session_rows", "replace_topics"} <= set(statements)
    assert all(isinstance(GraphStatements.__dict__[n], staticmethod) for n in statements)


@pytest.mark.parametrize("name", _members(LedgerContract))
def test_sqlite_ledger_fulfils_the_contract(name: str) -> None:
    _same_shape(LedgerContract, Ledger, name)


@pytest.mark.parametrize("name", _members(GraphStatements))
def test_sqlite_graph_statements_fulfil_the_contract(name: str) -> None:
    _same_shape(GraphStatements, Ledger.graph, name)


def test_an_open_ledger_is_a_contract_instance(tmp_path: Path) -> None:
    with Ledger(tmp_path / "m.db") as led:
        assert isinstance(led, LedgerContract)
        with led.write() as tx:
            assert graph_of(tx) is led.graph


def test_code_above_storage_never_names_an_engine_statement_class() -> None:
    """Consolidation, the resolver and the query reach the statements through
    ``ledger.graph`` or ``graph_of(tx)``, never ``GraphStore.x(conn, ...)``."""
    found = [f"{path.relative_to(PACKAGE)}" for path in PACKAGE.rglob("*.py")
             if STORAGE not in path.parents and path.name != "graphstore.py"
             and re.search(r"\bGraphStore\.\w+\(|\bLedger\.\w+\(conn", path.read_text())]
    assert not found, found


def _imports(path: Path) -> list[str]:
    """Absolute names of the trace_ros modules ``path`` imports (relative ones resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out += [base] if base != package else [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [name for name in out if name == "trace_ros" or name.startswith("trace_ros.")]


def _allowed(name: str, allowed: set[str]) -> bool:
    return any(name == a or name.startswith(a + ".") for a in allowed)


@pytest.mark.parametrize("path", sorted(STORAGE.rglob("*.py")), ids=lambda p: p.name)
def test_storage_imports_nothing_above_it(path: Path) -> None:
    wrong = [n for n in _imports(path) if not _allowed(n, STORAGE_MAY_IMPORT)]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {wrong}"


# DESIGN §7: the consolidation road and the query road meet only in the ledger's layer
# (storage, and the language both read with); neither imports the other, and the
# language imports neither.
ROADS_MAY_NOT_IMPORT = {
    "consolidation": {"trace_ros.query", "trace_ros.nodes", "trace_ros.bench"},
    "query": {"trace_ros.consolidation", "trace_ros.nodes", "trace_ros.bench"},
    "language": {"trace_ros.consolidation", "trace_ros.query", "trace_ros.storage",
                 "trace_ros.nodes", "trace_ros.bench"},
}


@pytest.mark.parametrize("road", sorted(ROADS_MAY_NOT_IMPORT))
def test_the_roads_meet_only_in_the_ledgers_layer(road: str) -> None:
    wrong = {f"{path.relative_to(PACKAGE)} imports {name}"
             for path in sorted((PACKAGE / road).rglob("*.py")) for name in _imports(path)
             if _allowed(name, ROADS_MAY_NOT_IMPORT[road])}
    assert not wrong, sorted(wrong)


def test_the_import_check_resolves_relative_imports() -> None:
    """"from ..storage.vectorindex import VectorIndex" in consolidation/worker.py names
    trace_ros.storage.vectorindex (a check that resolved nothing would pass anything)."""
    names = _imports(PACKAGE / "consolidation" / "worker.py")
    assert "trace_ros.storage.vectorindex" in names
    assert "trace_ros.consolidation.prefetch" in names


def test_the_facades_and_the_resolver_sit_above_storage() -> None:
    """ledger.py and graphstore.py re-export storage; state.py uses storage; none of them
    imports another, so the former circle (ledger, graphstore, state, ledger_spatial) is gone."""
    for name in ("ledger.py", "graphstore.py"):
        assert all(_allowed(n, {"trace_ros.storage"}) for n in _imports(PACKAGE / name)), name
    state = _imports(PACKAGE / "state.py")
    assert not [n for n in state if _allowed(n, {"trace_ros.ledger", "trace_ros.graphstore"})]
    assert not (PACKAGE / "ledger_spatial.py").exists()


def test_no_sql_outside_the_storage_package() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        if STORAGE in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.JoinedStr) and node.values:
                node = node.values[0]  # an f-string: its leading text
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SQL.match(node.value):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not found, found


@pytest.mark.parametrize("name", _members(LedgerContract))
def test_postgresql_ledger_fulfils_the_contract(name: str) -> None:
    from trace_ros.storage.postgresql import PgLedger

    _same_shape(LedgerContract, PgLedger, name)


@pytest.mark.parametrize("name", _members(GraphStatements))
def test_postgresql_graph_statements_fulfil_the_contract(name: str) -> None:
    from trace_ros.storage.postgresql import PgLedger

    _same_shape(GraphStatements, PgLedger.graph, name)
