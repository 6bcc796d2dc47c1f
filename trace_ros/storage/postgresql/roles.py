"""Row-level security: a database role (one per site or robot) confined to its subjects.

``grant_subjects(url, role, subjects)`` creates the role if it is missing, grants it the
ledger's tables and, on every table that has a ``subject_id`` column, enables and forces
row-level security with a policy that lets the role read and write only rows of its
subjects (``USING`` filters what it sees, updates and deletes; ``WITH CHECK`` refuses a
row it would insert or move to another subject). The tables are found in the catalogue
at call time, so tables added by later migrations are covered when it is run again; it
runs the pending migrations first, so it also works on a new database.

Why FORCE, and the owner's policy: forcing makes the table owner go through policies as
well, so no role reaches rows except through a policy named here; the owner (the role
the migrations, the consolidation workers and ``trace-ros sync`` run as) gets an explicit
all-rows policy. A superuser or a role with BYPASSRLS is never confined: such a role, or
one that is a member of a table's owner (it would inherit the owner's policy), is refused.

A table without ``subject_id`` is confined *through its parent* when a foreign key leads
to a confined table: a row is visible when its parent row is (since migration p008 every
ledger table but the global ones has its own ``subject_id``; this stays for tables that
a later migration might add without one). A table with neither is granted to the role
but not confined, and listed in ``Grant.unconfined`` so the operator sees it (``meta``
holds the fleet-wide generation; the schema-version table is only readable). Running it
again replaces the role's subject set with the one given. Run it as the tables' owner or a superuser.

One exception to "only its subjects": the role also reads (never writes) the tombstones
of unknown subject ``''`` — a source ID and a time, no content — left before migration
p008 where migration p009 found no row naming the subject, so that its capture refuses
those IDs as the owner's does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import LedgerError, ValidationError, check_text
from ..url import POSTGRESQL, LedgerURL
from .migrations import SCHEMA_TABLE, migrate

ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,40}")
POLICY_PREFIX = "trace_ros_subjects_"
OWNER_POLICY = "trace_ros_owner"
UNKNOWN_POLICY_PREFIX = "trace_ros_unknown_"


@dataclass(frozen=True)
class Grant:
    """What ``grant_subjects`` did: the role, its subjects, and the tables by how they are
    confined (by their own ``subject_id``, through a parent's, or not at all)."""

    role: str
    subjects: tuple[str, ...]
    created: bool
    confined: tuple[str, ...]
    through_parent: tuple[str, ...]
    unconfined: tuple[str, ...]


def check_role(role: str, field: str = "role") -> str:
    """``role`` if it is a plain lower-case identifier (letters, digits, ``_``), else
    ``ValidationError`` naming ``field``."""
    if not isinstance(role, str) or not ROLE_NAME.fullmatch(role):
        raise ValidationError(field, f"must be a lower-case name of letters, digits and _ "
                                     f"(at most 41, not starting with a digit), got {role!r}")
    if role.startswith("pg_"):
        raise ValidationError(field, f"names starting with pg_ are reserved, got {role!r}")
    return role


def check_subjects(subjects: Sequence[str], field: str = "subject") -> tuple[str, ...]:
    """The distinct subject IDs, in order; ``ValidationError`` if none or one is empty."""
    out = tuple(dict.fromkeys(check_text(field, s) for s in subjects))
    if not out or any(not s.strip() for s in out):
        raise ValidationError(field, "give at least one non-empty subject ID")
    return out


def grant_subjects(url: LedgerURL, role: str, subjects: Sequence[str]) -> Grant:
    """Confine ``role`` to ``subjects`` on the PostgreSQL ledger ``url`` (see the module
    docstring). Raises ``ValidationError`` for a bad role name or subject list or a role
    that cannot be confined, and ``LedgerError`` when the server refuses."""
    check_role(role)
    subjects = check_subjects(subjects)
    if url.engine != POSTGRESQL:
        raise ValidationError("ledger_url", "row-level security needs a postgresql:// ledger")
    import psycopg

    from .base import conninfo

    try:
        with psycopg.connect(**conninfo(url)) as conn:
            migrate(conn)
            with conn.transaction():
                return _grant(conn, role, subjects)
    except psycopg.Error as exc:
        raise LedgerError(f"{url}: cannot grant {role!r} its subjects ({exc})") from exc


def _grant(conn: Any, role: str, subjects: tuple[str, ...]) -> Grant:
    from psycopg import sql

    who = sql.Identifier(role)
    created = not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if created:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(who))
    tables = _tables(conn)
    _refuse_unconfinable(conn, role, {owner for _, owner, _ in tables})
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(
        sql.Identifier(_schema(conn)), who))
    keep = sql.SQL("subject_id = ANY({})").format(sql.Literal(list(subjects)))
    parents = _foreign_keys(conn)
    with_subject = {name for name, _, has_subject in tables if has_subject}
    confined, through, unconfined = [], [], []
    for name, owner, has_subject in tables:
        table = sql.Identifier(name)
        rights = "SELECT" if name == SCHEMA_TABLE else "SELECT, INSERT, UPDATE, DELETE"
        conn.execute(sql.SQL("GRANT " + rights + " ON {} TO {}").format(table, who))
        if has_subject:
            condition = keep
            confined.append(name)
        elif parent := next((p for p in parents.get(name, ()) if p[0] in with_subject), None):
            condition = _through(name, *parent)
            through.append(name)
        else:
            unconfined.append(name)
            continue
        _policies(conn, table, who, sql.Identifier(owner), role, condition)
        if name == "tombstones":
            _read_unknown(conn, table, who, role)
    conn.execute(sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(
        sql.Identifier(_schema(conn)), who))
    return Grant(role, subjects, created, tuple(confined), tuple(through), tuple(unconfined))


def _policies(conn: Any, table: Any, who: Any, owner: Any, role: str, condition: Any) -> None:
    """Enable and force RLS on ``table``; (re)create the role's and the owner's policy."""
    from psycopg import sql

    mine = sql.Identifier(POLICY_PREFIX + role)
    conn.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(table))
    conn.execute(sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(table))
    conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(mine, table))
    conn.execute(sql.SQL("CREATE POLICY {} ON {} FOR ALL TO {} USING ({}) WITH CHECK ({})")
                 .format(mine, table, who, condition, condition))
    conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(
        sql.Identifier(OWNER_POLICY), table))
    conn.execute(sql.SQL("CREATE POLICY {} ON {} FOR ALL TO {} USING (true) WITH CHECK (true)")
                 .format(sql.Identifier(OWNER_POLICY), table, owner))


def _read_unknown(conn: Any, table: Any, who: Any, role: str) -> None:
    """The role also reads the tombstones of unknown subject (``''``: left before
    migration p008 and named by no row p009 could read), so its capture refuses their
    IDs as the owner's does; it cannot change or lift them (only the owner can)."""
    from psycopg import sql

    name = sql.Identifier(UNKNOWN_POLICY_PREFIX + role)
    conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(name, table))
    conn.execute(sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (subject_id = '')")
                 .format(name, table, who))


def _through(child: str, parent: str, pairs: Sequence[tuple[str, str]]) -> Any:
    """A row of ``child`` is visible when its parent row is (the parent's own policy
    applies inside the subquery, to the same role)."""
    from psycopg import sql

    match = sql.SQL(" AND ").join(
        sql.SQL("p.{} = {}.{}").format(sql.Identifier(pc), sql.Identifier(child),
                                       sql.Identifier(cc)) for cc, pc in pairs)
    return sql.SQL("EXISTS (SELECT 1 FROM {} p WHERE {})").format(sql.Identifier(parent), match)


def _schema(conn: Any) -> str:
    return str(conn.execute("SELECT current_schema()").fetchone()[0])


def _tables(conn: Any) -> list[tuple[str, str, bool]]:
    """(name, owner, has a subject_id column) of every table in the ledger's schema."""
    return [(r[0], r[1], bool(r[2])) for r in conn.execute(
        "SELECT c.relname, pg_get_userbyid(c.relowner), EXISTS (SELECT 1 FROM pg_attribute a "
        "WHERE a.attrelid = c.oid AND a.attname = 'subject_id' AND NOT a.attisdropped) "
        "FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relkind IN ('r', 'p') ORDER BY c.relname")]


def _foreign_keys(conn: Any) -> dict[str, list[tuple[str, list[tuple[str, str]]]]]:
    """For each table: (parent table, [(child column, parent column)]) per foreign key."""
    out: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {}
    for child, parent, cols, pcols in conn.execute(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, "
            "ARRAY(SELECT attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN "
            "pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), "
            "ARRAY(SELECT attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN "
            "pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) "
            "FROM pg_constraint c WHERE c.contype = 'f' "
            "AND c.connamespace = current_schema()::regnamespace ORDER BY c.conname"):
        out.setdefault(child, []).append((parent, list(zip(cols, pcols, strict=True))))
    return out


def _refuse_unconfinable(conn: Any, role: str, owners: set[str]) -> None:
    """A superuser, a BYPASSRLS role or a member of a table owner sees every row anyway."""
    row = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %s",
                       (role,)).fetchone()
    if row[0]:
        raise ValidationError("role", f"{role!r} is a superuser or has BYPASSRLS: "
                                      "row-level security cannot confine it")
    for owner in sorted(owners):
        if conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (role, owner)).fetchone()[0]:
            raise ValidationError("role", f"{role!r} owns the ledger's tables or is a member "
                                          f"of their owner {owner!r}: it cannot be confined")
