"""The explorer's web app (FastAPI): the JSON API under ``/api/…`` and one page.

    trace-ros explore --db DB [--host 127.0.0.1] [--port 8765] [--open] [--token T]
    trace-ros explore --demo [--open]     # builds the demo memory in a temp dir first

The ledger is opened read-only (``mode=ro``): nothing here can write, forget or
migrate, and it is safe beside running nodes. The app binds to loopback by
default; any other address needs ``--token``, which every request must carry
(``Authorization: Bearer T``, ``?token=T`` or the cookie the page gets on its
first ``/?token=T`` load). OpenAPI: ``/openapi.json``, rendered at ``/docs``.
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from ..cliargs import ArgParser, add_ledger_url, ledger_file, port
from ..errors import TraceError, ValidationError
from ..ledger import Ledger, Scope
from ..storage.url import POSTGRESQL, LedgerURL, parse_ledger_url
from . import api
from .store import open_read_only

# resolved: the CMake symlink install links each file, and StaticFiles refuses links
STATIC = Path(__file__).resolve().with_name("static")
COOKIE = "trace_ros_explore"
LOOPBACK = ("127.0.0.1", "::1", "localhost")
EngineFactory = Callable[[Ledger], Any]


def _error(status: int, field: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": {"field": field, "reason": reason}}, status_code=status)


def _time(name: str, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValidationError(name, "must be a finite number of epoch seconds")
    return value


def default_engine(ledger: Ledger) -> Any:
    """The query engine of ``trace-ros query`` (MiniLM encoder, configured reader),
    without an audit writer: the explorer never writes."""
    from ..config import load_config
    from ..embed import MiniLMEncoder
    from ..query.answer import QueryEngine
    from ..query.readers import make_reader

    path = ledger.path
    cfg = load_config(None, None, {"ledger.db_path": str(path)} if isinstance(path, Path) else {})
    return QueryEngine(ledger, MiniLMEncoder(cfg.embed), make_reader(cfg.reader), cfg.recall,
                       audit=False)


def create_app(db: str | Path | LedgerURL, *, token: str | None = None,
               engine_factory: EngineFactory | None = None) -> FastAPI:
    """The explorer for the ledger at ``db``; ``token`` (if set) is required on
    every request; ``engine_factory`` builds the query engine on the first question."""
    ledger = open_read_only(db)
    make_engine = engine_factory or default_engine
    engine_lock = threading.Lock()
    engine: list[Any] = []
    # FastAPI's own /docs page loads Swagger UI from a CDN: ours serves the copy that the
    # swagger-ui-bundle-v2 package installs (no network at run time).
    app = FastAPI(title="trace_ros explorer", version="1", docs_url=None, redoc_url=None,
                  description="Read-only view of a trace_ros ledger: sources, facts, update "
                              "chains, the evidence graph and a question's evidence.")
    app.state.ledger = ledger

    @app.middleware("http")
    async def require_token(request: Request, call_next: Callable[[Request], Any]) -> Response:
        if token is None:
            return await call_next(request)
        given = (request.headers.get("authorization", "").removeprefix("Bearer ").strip()
                 or request.query_params.get("token", "") or request.cookies.get(COOKIE, ""))
        if not given or not secrets.compare_digest(given.encode(), token.encode()):
            return _error(401, "token", "missing or wrong token (see `trace-ros explore --token`)")
        response: Response = await call_next(request)
        if request.query_params.get("token"):
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.exception_handler(ValidationError)
    async def bad_value(_: Request, exc: ValidationError) -> JSONResponse:
        return _error(422, exc.field, exc.reason)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(x) for x in first.get("loc", ()) if x not in ("query", "path", "body")]
        return _error(422, ".".join(loc) or "request", str(first.get("msg", "invalid request")))

    @app.exception_handler(api.UnknownSubject)
    async def unknown_subject(_: Request, exc: api.UnknownSubject) -> JSONResponse:
        return _error(404, "subject", f"no subject {exc.subject_id!r} in this ledger")

    @app.exception_handler(TraceError)
    async def trace_error(_: Request, exc: TraceError) -> JSONResponse:
        return _error(400, getattr(exc, "field", "request"), str(exc))

    def scope(subject: str, robot: str, session: str) -> Scope:
        sc = Scope(subject, robot, session)
        sc.check()
        return sc

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/subjects", summary="Every subject with counts and time span")
    def subjects() -> dict[str, Any]:
        return {"db": str(ledger.path), "subjects": ledger.subject_summaries()}

    @app.get("/api/subjects/{subject}", summary="Robots, sessions, time span and graph counts")
    def overview(subject: str) -> dict[str, Any]:
        return api.overview(ledger, subject)

    @app.get("/api/subjects/{subject}/timeline",
             summary="Sources in time order (or FTS5 matches of q) with their facts")
    def timeline(subject: str, robot: str = "", session: str = "", q: str = "",
                 limit: int = Query(2000, ge=1, le=10000),
                 offset: int = Query(0, ge=0)) -> dict[str, Any]:
        return api.timeline(ledger, scope(subject, robot, session), q, limit, offset)

    @app.get("/api/subjects/{subject}/state",
             summary="Keys with current value, superseded chain and conflicts, as of a time")
    def state(subject: str, robot: str = "", session: str = "",
              as_of_valid: float | None = None, as_of_known: float | None = None,
              entity: str = "", changed_only: bool = False) -> dict[str, Any]:
        return api.state(ledger, scope(subject, robot, session),
                         _time("as_of_valid", as_of_valid), _time("as_of_known", as_of_known),
                         entity, changed_only)

    @app.get("/api/subjects/{subject}/graph",
             summary="Sessions, topics, facts and typed edges, with status in the time view")
    def graph(subject: str, robot: str = "", session: str = "",
              as_of_valid: float | None = None,
              as_of_known: float | None = None) -> dict[str, Any]:
        return api.graph(ledger, scope(subject, robot, session),
                         _time("as_of_valid", as_of_valid), _time("as_of_known", as_of_known))

    @app.get("/api/subjects/{subject}/vertex", summary="One vertex, its sources and edges")
    def vertex(subject: str, id: str = Query(..., min_length=1)) -> dict[str, Any]:  # noqa: A002
        return api.vertex(ledger, subject, id)

    @app.get("/api/subjects/{subject}/places",
             summary="Perception events with a pose, by label and time")
    def places(subject: str, robot: str = "", session: str = "", label: str = "",
               since: float | None = None, until: float | None = None) -> dict[str, Any]:
        return api.places(ledger, scope(subject, robot, session), label,
                          _time("since", since), _time("until", until))

    @app.get("/api/subjects/{subject}/questions", summary="Past questions (the audit table)")
    def questions(subject: str, limit: int = Query(50, ge=1, le=1000)) -> dict[str, Any]:
        api.check_subject(ledger, subject)
        return {"subject_id": subject, "questions": ledger.past_questions(subject, limit)}

    @app.get("/api/subjects/{subject}/ask",
             summary="Ask a question: status, answer, plan, routes, evidence, paths, timings")
    def ask(subject: str, q: str = Query(..., min_length=1, max_length=4096),
            robot: str = "", session: str = "", as_of_valid: float | None = None,
            as_of_known: float | None = None,
            budget: int = Query(0, ge=0, le=100000)) -> dict[str, Any]:
        from ..query.answer import QueryRequest

        api.check_subject(ledger, subject)
        req = QueryRequest(scope(subject, robot, session), q,
                           as_of_valid=_time("as_of_valid", as_of_valid),
                           as_of_known=_time("as_of_known", as_of_known), token_budget=budget)
        with engine_lock:
            if not engine:
                engine.append(make_engine(ledger))
            result = engine[0].ask(req)
        out = result.to_dict()
        out["routes"] = result.routes
        out["left_out"] = list(result.left_out)
        return out

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _mount_docs(app)
    return app


def _mount_docs(app: FastAPI) -> None:
    """``/docs``: Swagger UI from the installed swagger-ui-bundle-v2 package."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # pragma: no cover - requirements.txt installs it
        return
    from fastapi.openapi.docs import get_swagger_ui_html

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="trace_ros explorer API",
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/docs-assets/favicon-32x32.png")

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")


# -- command line ------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = ArgParser(prog="trace-ros explore",
                  description="A read-only web explorer of a ledger.")
    p.add_argument("--db", help="ledger file")
    add_ledger_url(p)
    p.add_argument("--demo", action="store_true",
                   help="build the demo memory (trace_ros.demo's script, no ROS) and open it")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port, default=8765)
    p.add_argument("--token", default=None,
                   help="required on every request; mandatory for a non-loopback --host")
    p.add_argument("--open", action="store_true", help="open the page in a browser")
    args = p.parse_args(argv)
    args.url = None
    if args.ledger_url and not args.db:
        try:
            args.url = parse_ledger_url(args.ledger_url, "--ledger-url")
        except TraceError as exc:
            p.error(str(exc))
    if args.url is None or args.url.engine != POSTGRESQL:
        args.url = None
        ledger_file(p, args)
    if not args.db and not args.url and not args.demo:
        p.error("--db, --ledger-url or --demo is required")
    if args.host not in LOOPBACK and not args.token:
        p.error(f"--host {args.host} is not loopback: --token is required")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    import uvicorn

    args = parse_args(argv)
    db = args.url or args.db
    if args.demo:
        from .demo_data import build_demo_ledger

        db = build_demo_ledger(args.db)
        print(f"demo memory: {db}", file=sys.stderr)
    try:
        app = create_app(db, token=args.token)
    except (TraceError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{args.port}/" + (f"?token={args.token}" if args.token else "")
    if args.token:
        print(f"token required on every request (listening on {args.host})", file=sys.stderr)
    print(f"trace_ros explorer: {url}  (read-only: {db})", flush=True)
    if args.open:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, (url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
