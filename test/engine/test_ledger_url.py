"""``ledger.url`` / ``--ledger-url``: parsed and checked up front, one clear line when bad."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_ros.cli import main
from trace_ros.config import MemoryConfig, load_config
from trace_ros.errors import ConfigError
from trace_ros.ledger import Ledger
from trace_ros.storage.url import parse_ledger_url


def test_sqlite_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_ledger_url("sqlite:///abs/dir/m.db").path == Path("/abs/dir/m.db")
    assert parse_ledger_url("sqlite:rel/m.db").path == Path("rel/m.db")
    assert parse_ledger_url("SQLite:m.db").engine == "sqlite"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert parse_ledger_url("sqlite:~/m.db").path == tmp_path / "m.db"
    assert parse_ledger_url("sqlite:///a%20b.db").path == Path("/a b.db")


def test_postgresql_form() -> None:
    url = parse_ledger_url("postgresql://fleet:s3cret@db.site:6543/memory?sslmode=require")
    assert (url.engine, url.user, url.password, url.host, url.port, url.database) == (
        "postgresql", "fleet", "s3cret", "db.site", 6543, "memory")
    assert url.options == (("sslmode", "require"),)
    assert "s3cret" not in str(url) and "s3cret" not in repr(url)
    assert parse_ledger_url("postgres://u@h/db").port == 5432


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("mysql://u@h/db", "unknown engine"),
    ("/just/a/path.db", "unknown engine"),
    ("sqlite://host/m.db", "names no host"),
    ("sqlite:///", "no file path"),
    ("sqlite:", "no file path"),
    ("sqlite:///dir/", "directory"),
    ("sqlite:///m.db?mode=ro", "no options"),
    ("postgresql:///db", "no host"),
    ("postgresql://u@h:99999/db", "port"),
    ("postgresql://u@h:0/db", "port"),
    ("postgresql://u@h:abc/db", "port"),
    ("postgresql://u@[::1/db", "malformed"),
    ("postgresql://u@h:5432", "no database"),
    ("postgresql://u@h:5432/db/extra", "contains '/'"),
    ("postgresql://u@h/db?sslmode=sometimes", "sslmode"),
    ("postgresql://u@h/db?pool=3", "unknown option"),
    ("postgresql://u@h/db?connect_timeout=soon", "connect_timeout"),
])
def test_bad_urls_name_the_setting_and_the_reason(text: str, reason: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_ledger_url(text, "--ledger-url")
    assert str(err.value).startswith("--ledger-url: ") and reason in str(err.value)
    assert "\n" not in str(err.value)


def test_a_password_never_shows_in_an_error() -> None:
    with pytest.raises(ConfigError) as err:
        parse_ledger_url("postgresql://u:hunter2@h:99999/db")
    assert "hunter2" not in str(err.value)


def test_config_default_url_is_db_path(tmp_path: Path) -> None:
    cfg = load_config(None, None, {"ledger.db_path": str(tmp_path / "m.db")})
    assert cfg.ledger_url.engine == "sqlite" and cfg.ledger_url.path == tmp_path / "m.db"
    cfg = load_config(None, None, {"ledger.url": f"sqlite://{tmp_path}/u.db"})
    assert cfg.db_path == tmp_path / "u.db"
    with pytest.raises(ConfigError, match="^ledger.url: unknown engine"):
        MemoryConfig.from_flat({"ledger.url": "oracle://x"})


def test_params_file_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    params = tmp_path / "p.yaml"
    params.write_text("/**:\n  ros__parameters:\n    ledger:\n"
                      f"      url: \"sqlite://{tmp_path}/from-url.db\"\n")
    Ledger(tmp_path / "from-url.db").close()
    assert main(["stats", "--params", str(params)]) == 0
    assert json.loads(capsys.readouterr().out)["db_path"] == str(tmp_path / "from-url.db")
    params.write_text("/**:\n  ros__parameters:\n    ledger:\n      url: \"sqlite://x/m.db\"\n")
    assert main(["stats", "--params", str(params)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ledger.url: ") and "no host" in err and "\n" not in err


def test_cli_opens_the_ledger_a_url_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    Ledger(tmp_path / "m.db").close()
    assert main(["stats", "--ledger-url", f"sqlite://{tmp_path}/m.db"]) == 0
    assert json.loads(capsys.readouterr().out)["db_path"] == str(tmp_path / "m.db")
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--ledger-url", "sqlite:m.db"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"] == 0


@pytest.mark.parametrize("argv, needle", [
    (["stats", "--ledger-url", "sqlite://h/m.db"], "--ledger-url: a SQLite URL names no host"),
    (["stats", "--ledger-url", "redis://h/0"], "--ledger-url: unknown engine"),
    (["stats", "--ledger-url", "postgresql://u@nohost.invalid:5432/memory"],
     "--ledger-url: postgresql://u@nohost.invalid:5432/memory: cannot open the ledger"),
    (["query", "--ledger-url", "postgresql://u@nohost.invalid/memory", "--subject", "a", "q"],
     "--ledger-url: postgresql://u@nohost.invalid:5432/memory: cannot open the ledger"),
    (["stats", "--db", "a.db", "--ledger-url", "sqlite:b.db"], "--ledger-url: give --db"),
    (["forget", "--ledger-url", "sqlite:///no/such/dir/m.db", "--subject", "a"],
     "no ledger there"),
])
def test_bad_ledger_url_on_the_cli_is_one_line(argv: list[str], needle: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    (["explore", "--ledger-url", "postgresql://u@nohost.invalid/db"],
     "error: postgresql://u@nohost.invalid:5432/db: cannot open the ledger"),
    (["explore", "--ledger-url", "nope"], "--ledger-url: unknown engine"),
    (["up", "--ledger-url", "sqlite://h/x.db"], "--ledger-url: a SQLite URL names no host"),
])
def test_delegated_commands_check_the_url(argv: list[str], needle: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err


def test_a_unix_socket_directory_is_a_host() -> None:
    url = parse_ledger_url("postgresql://postgres:@/postgres?host=/tmp/pg_socket")
    assert (url.host, dict(url.options)["host"], url.database) == ("", "/tmp/pg_socket",
                                                                   "postgres")
    with pytest.raises(ConfigError, match="Unix socket directory"):
        parse_ledger_url("postgresql://u@/db?host=relative/dir")


@pytest.mark.parametrize("argv, needle", [
    (["demo", "--ledger-url", "sqlite://h/x.db"], "--ledger-url: a SQLite URL names no host"),
    (["bench", "faults", "--ledger-url", "postgresql://u@h/db"],
     "--ledger-url: PostgreSQL engine not available in this build for trace-ros bench faults"),
    (["bench", "load", "--db", "a.db", "--ledger-url", "sqlite:b.db"], "not both"),
    (["bench", "capture", "--ledger-url", "mysql://x"], "--ledger-url: unknown engine"),
    (["bench", "locomo", "--data", "d", "--out", "o", "--ledger-url", "sqlite:"],
     "--ledger-url: no file path"),
])
def test_commands_with_a_ledger_file_take_a_url(argv: list[str], needle: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err


def test_a_sqlite_url_becomes_the_ledger_file(tmp_path: Path) -> None:
    from trace_ros.bench import faults, load
    from trace_ros.demo import parse_args as demo_args

    url = f"sqlite://{tmp_path}/x.db"
    assert demo_args(["--ledger-url", url]).db == str(tmp_path / "x.db")
    assert faults.parse_args(["--ledger-url", url]).db == str(tmp_path / "x.db")
    assert load.parse_args(["--ledger-url", "sqlite:rel.db"]).db == "rel.db"
