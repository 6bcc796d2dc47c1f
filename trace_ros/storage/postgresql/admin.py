"""Server administration a benchmark or an operator needs beside a ledger: a fresh
database on a server named by an administrator's URL."""

from __future__ import annotations

from ..url import LedgerURL
from .base import conninfo


def fresh_database(admin: LedgerURL, name: str) -> LedgerURL:
    """Drop and create database ``name`` on ``admin``'s server; its URL. The name must be
    a plain identifier (letters, digits, underscores)."""
    import psycopg

    if not name.replace("_", "").isalnum():
        raise ValueError(f"database name {name!r}: letters, digits and underscores only")
    with psycopg.connect(**conninfo(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return LedgerURL(admin.engine, user=admin.user, password=admin.password, host=admin.host,
                     port=admin.port, database=name, options=admin.options)
