"""The ASGI app of ``mathhammer serve``: pages, the JSON API and plots (Starlette).

Routes (``<command>`` is a query command's path, e.g. ``wm/duel``):

* ``GET /`` — every query command, grouped as on the command line;
* ``GET|POST /<command>?…`` — the command's form; with a query, its answer (headline,
  results, distributions, plot, a link that reproduces it and the CLI line);
* ``GET|POST /api/<command>?…`` — exactly the CLI's ``--format json`` text;
* ``GET /plot/<command>.svg?…`` (or ``.png``) — the chart ``--plot`` draws;
* ``GET /api/profiles``, ``/api/files``, ``/api/commands``, ``/api/health``.

Query keys are the CLI's option names without ``--`` (``boost-hit``) and argument names
(``attacker``); flags take ``1``. A POST may carry TOML files as multipart parts named
like the parameter (``-F scenario=@my.toml``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mathhammer.web import commands as cmds
from mathhammer.web.runner import (
    Busy, Limits, Outcome, QueryFailed, Runner, Ticket, outcome_points,
)

HERE = Path(__file__).resolve().parent
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; form-action 'self'; frame-ancestors 'none'",
}


class _ClientGone(Exception):
    """The client closed its connection before its answer: the work was stopped."""


class _Answer:
    """A query as understood: the command, its chosen values, the outcome or the error."""

    def __init__(self, command: cmds.Command) -> None:
        self.command = command
        self.chosen: dict[str, list[str]] = {}
        self.outcome: Outcome | None = None
        self.error: str | None = None
        self.status = 200
        self.uploaded: list[str] = []

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return cmds.canonical_query(self.command, self.chosen)

    def link(self, prefix: str = "/") -> str:
        query = _encode(self.pairs)
        return f"{prefix}{self.command.slug}" + (f"?{query}" if query else "")

    @property
    def bad(self) -> frozenset[str]:
        """Keys of the parameters the error line names (their fields are marked)."""
        if not self.error:
            return frozenset()
        return frozenset(p.key for p in self.command.params if _names(self.error, p))

    def folds(self) -> dict[str, bool]:
        """Which folded parts of the form open: one holding a value asked for or a field
        the error names (the seed alone does not open the engine options)."""
        shown = set(self.chosen) | self.bad
        return {"more": any(p.key in shown for p in self.command.more_params),
                "engine": any(p.key in shown - {"seed"} for p in self.command.engine_params)}


def _names(error: str, param: cmds.Param) -> bool:
    """``error`` names ``param``: its flag as a whole word (--target, not --target-ws) or
    its argument name in quotes, as Click writes it."""
    if param.flag:
        return re.search(re.escape(param.flag) + r"(?![\w-])", error) is not None
    return f"'{param.key}'" in error or error.startswith(f"{param.label}:")


def _encode(pairs) -> str:
    """A query string that keeps ids readable: khador/juggernaut, not khador%2Fjuggernaut."""
    return urlencode(pairs, safe="/:,", quote_via=quote)


def create_app(limits: Limits | None = None, *, warm: bool = False,
               allowed_hosts: tuple[str, ...] | None = ("127.0.0.1", "localhost", "::1",
                                                        "[::1]", "testserver")) -> Starlette:
    """The app; ``warm`` runs one small query per kernel at start-up (``serve`` does)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    limits = limits or Limits()
    runner = Runner(limits)
    templates = Environment(loader=FileSystemLoader(HERE / "templates"),
                            autoescape=select_autoescape(["html"]), trim_blocks=True,
                            lstrip_blocks=True)
    state: dict[str, Any] = {"ready": not warm, "warm_seconds": None, "started": time.time()}

    def page(name: str, status: int = 200, **context) -> HTMLResponse:
        from mathhammer import __version__

        html = templates.get_template(name).render(
            groups=_groups(), version=__version__, **context)
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def json_error(line: str, status: int) -> JSONResponse:
        headers = _busy_headers(status)
        return JSONResponse({"error": line, "status": status}, status_code=status, headers=headers)

    # ------------------------------------------------------------------ the query path
    async def answer(request: Request, command: cmds.Command, finish=None) -> _Answer:
        """The query of ``request`` answered; ``finish(outcome)`` (JSON text, page view) is
        made on the worker too, so that a big answer never holds up the event loop."""
        result = _Answer(command)
        try:
            if len(request.url.query) > limits.max_query:
                raise cmds.QueryRefused(
                    f"query: {len(request.url.query):,} characters is above this server's "
                    f"limit of {limits.max_query:,}; fix: a shorter query, or upload a file",
                    status=414)
            query, files = await _read_query(request, limits)
            result.chosen = cmds.normalise(command, query)
            runner.check_caps(command, result.chosen)
            for key in list(files):
                param = command.web_param(key)
                if param is None or not param.takes_file:
                    raise cmds.QueryRefused(f"{cmds.printable(key)[:60]}: {command.name} has no "
                                            "parameter of that name to upload a file for; fix: "
                                            "name the part after a parameter that takes a file")
                files[param.key] = files.pop(key)
                result.chosen[param.key] = [cmds.UPLOADED]
            result.chosen = {p.key: result.chosen[p.key] for p in command.params
                             if p.key in result.chosen}
            cmds.check_not_paths(command, result.chosen, files)
            result.uploaded = sorted(files)
            result.outcome = await _compute(request, command, result, files, finish)
        except cmds.QueryRefused as refused:
            result.error, result.status = refused.line, refused.status
        except QueryFailed as failed:
            result.error, result.status = failed.line, failed.status
        except Busy as busy:
            result.error = f"the server is busy ({busy}); fix: try again in a moment"
            result.status = 503
        except _ClientGone:
            result.error, result.status = "the client closed the connection", 499
        if result.error is not None:  # it may quote the query's text: no raw escape codes
            result.error = cmds.printable(result.error)
        return result

    async def wait_for(request: Request, ticket: Ticket):
        """The job's result; its client leaving or its wait in the queue running out
        cancels it (a queued job never starts, a running one stops: see runner)."""
        future = asyncio.wrap_future(ticket.future)
        gone = asyncio.ensure_future(_client_gone(request))
        try:
            while True:
                done, _ = await asyncio.wait({future, gone}, timeout=0.25,
                                             return_when=asyncio.FIRST_COMPLETED)
                if future in done:
                    if future.cancelled():
                        raise Busy(f"no worker was free within {limits.queue_wait:g} s"
                                   if not runner.stopping.is_set() else "it is shutting down")
                    return future.result()
                if gone in done:
                    ticket.stop("the client left")
                    raise _ClientGone
                now = time.monotonic()
                if ticket.started is None and now - ticket.submitted > limits.queue_wait:
                    ticket.stop(f"no worker was free within {limits.queue_wait:g} s")
                elif ticket.started is not None and now - ticket.started > limits.time_limit + 10:
                    # stuck in native code past every stop: answer; the watchdog keeps at it
                    raise QueryFailed(f"did not finish within this server's "
                                      f"{limits.time_limit:g} s per query", status=422)
        except asyncio.CancelledError:
            ticket.stop("the request was cancelled")
            raise
        finally:
            gone.cancel()
            if not future.done():  # its stopped answer comes later and is nobody's
                future.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def _compute(request: Request, command: cmds.Command, result: _Answer,
                       files, finish) -> Outcome:
        key = (command.slug, tuple(result.pairs))
        if not files:
            hit = runner.cached(key)
            if hit is not None:
                if finish is not None and finish.__name__ not in hit.made:
                    await asyncio.to_thread(finish, hit)  # the other route made it before
                return Outcome(hit.report, hit.table, hit.plot, 0.0, cached=True,
                               made=hit.made)
        upload_folder, saved = runner.save_uploads(files) if files else (None, {})

        def resolve(param, value):
            return value if param.key in saved else runner.bundled_path(param, value, saved)

        server = []
        if "quiet" in command.shared:
            server.append("--quiet")
        if "threads" in command.shared:
            server.append(f"--threads={limits.threads}")
        if command.param("workers") is not None:
            server.append(f"--workers={limits.threads}")
        chosen = {k: ([str(saved[k])] if k in saved else v) for k, v in result.chosen.items()}
        try:
            argv = cmds.to_argv(command, chosen, resolve_path=resolve, server=server)
        except cmds.QueryRefused:
            if upload_folder is not None:
                import shutil

                shutil.rmtree(upload_folder, ignore_errors=True)
            raise
        try:
            ticket = runner.start(lambda t: _made(runner.run(argv, upload_folder, t), finish),
                                  what=command.name)
        except Busy:
            if upload_folder is not None:
                import shutil

                shutil.rmtree(upload_folder, ignore_errors=True)
            raise
        outcome = await wait_for(request, ticket)
        report = outcome.report
        if report.method == "mc" and "seed" not in result.chosen and report.seed is not None:
            result.chosen["seed"] = [str(report.seed)]  # the link reproduces this answer
        if not files and (report.method != "mc" or "seed" in result.chosen):
            runner.remember((command.slug, tuple(result.pairs)), outcome)
        return outcome

    # ------------------------------------------------------------------ handlers
    async def index(request: Request) -> Response:
        return page("index.html", commands=cmds.query_commands())

    async def command_page(request: Request) -> Response:
        command = cmds.find(request.path_params["slug"])
        if command is None:
            return page("missing.html", status=404, slug=request.path_params["slug"])
        has_query = bool(request.url.query) or request.method == "POST"
        result = await answer(request, command, view_of) if has_query else _Answer(command)
        view = view_of(result.outcome) if result.outcome is not None else None
        link = result.link() if has_query else None
        plot = None
        if result.outcome is not None and not result.uploaded and (
                result.outcome.report.distributions or result.outcome.table is not None) \
                and outcome_points(result.outcome) <= limits.max_plot_points:
            plot = result.link("/plot/").replace(f"/plot/{command.slug}",
                                                 f"/plot/{command.slug}.svg", 1)
        return page(
            "command.html", status=result.status, command=command, result=result, view=view,
            values=_form_values(command, result.chosen), link=link, plot=plot,
            api=result.link("/api/") if has_query else None,
            cli=cmds.cli_line(command, result.chosen, path_text=_path_text)
            if has_query and not result.error else None,
            examples=_examples(command), choices=_choices(command),
            bundled_files=_bundled_files(command))

    async def api_command(request: Request) -> Response:
        command = cmds.find(request.path_params["slug"])
        if command is None:
            return json_error(f"no query command {request.path_params['slug']!r}; "
                              "see /api/commands", 404)
        result = await answer(request, command, json_of)
        if result.error is not None:
            return json_error(result.error, result.status)
        text = json_of(result.outcome)  # byte for byte the CLI's --format json
        headers = dict(SECURITY_HEADERS)
        headers["X-Mathhammer-Link"] = result.link()
        headers["X-Mathhammer-Seconds"] = f"{result.outcome.seconds:.4f}"
        return Response(text, media_type="application/json", headers=headers)

    async def plot_route(request: Request) -> Response:
        slug, suffix = request.path_params["slug"], request.path_params["suffix"]
        command = cmds.find(slug)
        if command is None or suffix not in ("svg", "png"):
            return PlainTextResponse("no such plot", status_code=404)
        result = await answer(request, command)
        if result.error is not None:
            return PlainTextResponse(result.error, status_code=result.status,
                                     headers=_busy_headers(result.status))
        # a chart goes through the same queue, time limit and 503s as a query, bounded in
        # the outcomes it draws and the bytes it returns
        outcome = result.outcome
        try:
            runner.check_plot(outcome)
            ticket = runner.start(lambda t: runner.plot_bytes(outcome, f".{suffix}", t),
                                  what="plot")
            data = await wait_for(request, ticket)
        except (cmds.QueryRefused, QueryFailed) as refused:
            return PlainTextResponse(refused.line, status_code=refused.status)
        except Busy as busy:
            return PlainTextResponse(f"the server is busy ({busy}); fix: try again in a moment",
                                     status_code=503, headers=_busy_headers(503))
        except _ClientGone:
            return Response(status_code=499)
        except Exception as err:  # noqa: BLE001 - e.g. a report with nothing to draw
            from mathhammer.web.runner import error_line

            return PlainTextResponse(error_line(err) or "no plot for this query",
                                     status_code=404)
        media = "image/svg+xml" if suffix == "svg" else "image/png"
        return Response(data, media_type=media, headers=SECURITY_HEADERS)

    async def health(request: Request) -> Response:
        from mathhammer import __version__

        return JSONResponse({
            "status": "ok" if state["ready"] else "warming", "version": __version__,
            "warm_seconds": state["warm_seconds"], "in_flight": runner.in_flight,
            "served": runner.served, "workers": limits.workers, "queue": limits.queue,
            "max_trials": limits.max_trials, "time_limit": limits.time_limit,
            "queue_wait": limits.queue_wait, "stopped_jobs": runner.stopped_jobs,
            "dropped_jobs": runner.dropped_jobs,
            "uptime_seconds": round(time.time() - state["started"], 1),
        }, headers=SECURITY_HEADERS)

    async def profiles(request: Request) -> Response:
        game = request.query_params.get("game")
        rows = _profile_rows()
        if game:
            rows = [r for r in rows if r["game"] == game]
        return JSONResponse({"profiles": rows}, headers=SECURITY_HEADERS)

    async def files(request: Request) -> Response:
        return JSONResponse({"files": _bundled_files(None)}, headers=SECURITY_HEADERS)

    async def commands_route(request: Request) -> Response:
        return JSONResponse({"commands": [_describe(c) for c in cmds.query_commands()]},
                            headers=SECURITY_HEADERS)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        if warm:
            began = time.monotonic()
            await asyncio.get_running_loop().run_in_executor(None, warm_up, runner)
            await asyncio.get_running_loop().run_in_executor(None, _profile_rows)
            state["warm_seconds"] = round(time.monotonic() - began, 2)
        state["ready"] = True
        try:
            yield
        finally:
            runner.close()  # queued queries never start; running Monte Carlo stops

    routes = [
        Route("/", index),
        Route("/api/health", health),
        Route("/api/profiles", profiles),
        Route("/api/files", files),
        Route("/api/commands", commands_route),
        Route("/api/{slug:path}", api_command, methods=["GET", "POST"]),
        Route("/plot/{slug:path}.{suffix:str}", plot_route),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        Route("/{slug:path}", command_page, methods=["GET", "POST"]),
    ]
    middleware = [Middleware(OriginPolicy)]
    if allowed_hosts:  # a page elsewhere cannot reach a loopback server by a rebound name
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.runner = runner
    app.state.limits = limits
    return app


def _made(outcome: Outcome, finish) -> Outcome:
    if finish is not None:
        finish(outcome)
    return outcome


def json_of(outcome: Outcome) -> str:
    """The CLI's ``--format json`` text of the answer (made once)."""
    if "json_of" not in outcome.made:
        from mathhammer.present.render import render

        outcome.made["json_of"] = render(outcome.report, "json", command=outcome.command)
    return outcome.made["json_of"]


def view_of(outcome: Outcome):
    """The page's view of the answer (made once)."""
    if "view_of" not in outcome.made:
        from mathhammer.web.view import build

        outcome.made["view_of"] = build(outcome.report, outcome.table)
    return outcome.made["view_of"]


def _busy_headers(status: int) -> dict[str, str]:
    headers = dict(SECURITY_HEADERS)
    if status == 503:
        headers["Retry-After"] = "1"
    return headers


async def _client_gone(request: Request) -> None:
    """Return once the client has closed its connection (its body was read before)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


class OriginPolicy:
    """Browsers may use this server from its own pages only (docs/guide/web.md).

    No response carries CORS headers, so another site's script can never read an answer.
    Beyond that, a request is refused (403) when a browser says it comes from elsewhere:
    an ``Origin`` header that is not this server's own address (``null`` included), or a
    ``Sec-Fetch-Site`` of ``cross-site`` / ``same-site`` on anything but a plain link
    followed (a GET navigation). So another page can link to an answer, but cannot make
    the visitor's browser post forms, fetch the API or pull charts as images here.
    Clients that are not browsers (curl, scripts) send neither header and are served.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            refusal = foreign_request(scope)
            if refusal is not None:
                body = json.dumps({"error": refusal, "status": 403}).encode()
                await send({"type": "http.response.start", "status": 403, "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *[(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def foreign_request(scope) -> str | None:
    """Why a browser request from another site is refused, or None (see OriginPolicy)."""
    from urllib.parse import urlsplit

    headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get(b"host", "").strip().lower()
    origin = headers.get(b"origin")
    if origin is not None:
        try:
            netloc = urlsplit(origin.strip()).netloc.lower()
        except ValueError:
            netloc = ""
        if not netloc or netloc != host:
            return (f"origin: this server answers its own pages only (got "
                    f"{cmds.printable(origin)[:80]}); fix: open the page on this server, or "
                    "call the API from a script (no Origin header)")
    site = headers.get(b"sec-fetch-site", "").lower()
    mode = headers.get(b"sec-fetch-mode", "").lower()
    if site in ("cross-site", "same-site") and not (
            mode == "navigate" and scope.get("method") in ("GET", "HEAD")):
        return (f"origin: this server answers its own pages only (a {site} "
                f"{mode or 'request'}); fix: open the page on this server")
    return None


# ---------------------------------------------------------------------- request → query
async def _read_query(request: Request, limits: Limits):
    """(multi-dict of the query, {param: (filename, bytes)}) from the URL and a POST body."""
    query: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        query.setdefault(key, []).append(value)
    files: dict[str, tuple[str, bytes]] = {}
    if request.method != "POST":
        return query, files
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body + 65536:
        raise cmds.QueryRefused(f"body: {int(declared):,} bytes is above this server's limit of "
                                f"{limits.max_body:,} bytes; fix: send a smaller file", 413)
    body = bytearray()
    try:
        async with asyncio.timeout(limits.body_timeout):  # a slow sender holds no slot long
            async for chunk in request.stream():
                body.extend(chunk)
                if len(body) > limits.max_body + 65536:
                    raise cmds.QueryRefused(f"body: above this server's limit of "
                                            f"{limits.max_body:,} bytes; fix: send a smaller "
                                            "file", 413)
    except TimeoutError:
        raise cmds.QueryRefused(f"body: not received within this server's "
                                f"{limits.body_timeout:g} s; fix: send the request at once",
                                408) from None
    except ClientDisconnect:  # the client left half-way: nobody to answer
        raise _ClientGone from None
    request._body = bytes(body)  # the form parser reads the body we have already capped
    kind = request.headers.get("content-type", "")
    if not kind.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        if body:
            raise cmds.QueryRefused("body: a POST carries a form (multipart/form-data or "
                                    f"urlencoded), not {kind or 'untyped data'}; fix: "
                                    "curl -F scenario=@my.toml …", 415)
        return query, files
    try:
        form = await request.form(max_files=8, max_fields=400)
    except Exception as err:  # noqa: BLE001 - a malformed multipart body
        raise cmds.QueryRefused(f"body: not a readable form ({type(err).__name__}); fix: "
                                "send multipart/form-data", 400) from None
    for key, value in form.multi_items():
        if hasattr(value, "read"):
            data = await value.read()
            if data:  # an empty file field is "no upload"
                files[key] = (value.filename or key, data)
        else:
            query.setdefault(key, []).append(str(value))
    await form.close()
    return query, files


# ---------------------------------------------------------------------- page helpers
def _groups() -> list[tuple[str, list[cmds.Command]]]:
    groups: dict[str, list[cmds.Command]] = {}
    for command in cmds.query_commands():
        groups.setdefault(command.path[0] if len(command.path) > 1 else "", []).append(command)
    titles = {"": "Dice and analysis", "wm": "Warmachine", "fb": "Fantasy / Ninth Age",
              "magic": "Magic"}
    return [(titles.get(name, name), items) for name, items in groups.items()]


def _form_values(command: cmds.Command, chosen: dict[str, list[str]]) -> dict[str, str]:
    values = {}
    for param in command.params:
        given = chosen.get(param.key)
        if given:
            values[param.key] = "\n".join(given) if param.multiple else given[-1]
        else:
            values[param.key] = param.default_text()
    return values


def _path_text(param: cmds.Param, value: str) -> str:
    if value == cmds.UPLOADED:
        return f"YOUR_{param.key.upper()}.toml"
    ident = value.strip().removesuffix(".toml").removeprefix("profiles/")
    return f"profiles/{ident}.toml"


_GAME_OF_GROUP = {"wm": "warmachine", "fb": "fantasy", "magic": "magic"}
#: parameters whose text is a bundled id: offer the ids as suggestions
_SUGGEST = {"attacker": "profiles", "target": "profiles", "defender": "profiles",
            "unit": "profiles", "enemy": "profiles", "opponent": "profiles", "ruleset": "rulesets",
            "list-a": "lists", "list_a": "lists", "list-b": "lists", "list_b": "lists",
            "lists": "lists", "list": "lists", "meta": "metas", "options": "options",
            "army": "lists", "then": "profiles", "unit_a": "profiles", "unit_b": "profiles",
            "unit-a": "profiles", "unit-b": "profiles",
            "model_a": "profiles", "model_b": "profiles"}


@functools.cache
def _profile_rows() -> list[dict]:
    """The rows of ``mathhammer profiles list --format json`` (bundled data: read once)."""
    from mathhammer.present.catalogue import profile_games, summary_row
    from mathhammer.present.flags import error_line
    from mathhammer.errors import ProfileError
    from mathhammer.profiles import bundled_ids, load_profile

    rows = []
    for game in profile_games():
        for ident in bundled_ids(game):
            try:
                rows.append(summary_row(game, load_profile(game, ident)))
            except ProfileError as err:  # as the CLI: one broken file does not hide the rest
                rows.append({"game": game, "id": ident, "name": "", "kind": "INVALID",
                             "points": None, "confidence": "", "low_confidence": 0,
                             "error": error_line(err)})
    return rows


@functools.cache
def _choices(command: cmds.Command) -> dict[str, list[str]]:
    game = _GAME_OF_GROUP.get(command.path[0]) if len(command.path) > 1 else None
    out = {}
    for param in command.params:
        source = _SUGGEST.get(param.key)
        if source == "profiles":
            out[param.key] = [r["id"] for r in _profile_rows() if game in (None, r["game"])]
        elif source == "rulesets":
            out[param.key] = ["basic", "wfb8", "t9a1"]
        elif source in ("lists", "metas", "options"):
            out[param.key] = [f["id"].split("/", 1)[1] for f in _bundled_files(None)
                              if f["id"].startswith(source + "/")]
    return out


@functools.cache
def _bundled_files(command: cmds.Command | None) -> list[dict]:
    """Bundled data files that are not unit profiles: scenarios, lists, examples (read once:
    the bundled data does not change while the server runs)."""
    import tomllib

    from mathhammer import game as games
    from mathhammer.profiles import profiles_root

    GAMES = games.names(lists=True)

    root = profiles_root()
    out = []
    want = _GAME_OF_GROUP.get(command.path[0]) if command and len(command.path) > 1 else None
    for path in sorted(root.rglob("*.toml")):
        rel = path.relative_to(root)
        if rel.parts[0] in GAMES:
            continue
        try:
            game = tomllib.loads(path.read_text(encoding="utf-8")).get("game")
        except (OSError, ValueError):
            game = None
        if want is not None and game != want:
            continue
        out.append({"id": rel.with_suffix("").as_posix(), "game": game})
    return out


@functools.cache
def _examples(command: cmds.Command) -> list[tuple[str, str]]:
    """(link, CLI line) of the demo's and warm-up's queries of this command."""
    from mathhammer.present.tour import DEMO_STEPS, WARMUP_ARGV
    from mathhammer.profiles import profiles_root

    root = str(profiles_root().resolve())

    def path_id(value: str) -> str:
        return str(Path(value).resolve()).removeprefix(root + "/").removesuffix(".toml")

    seen, out = set(), []
    for argv in [argv for _, argv in DEMO_STEPS] + list(WARMUP_ARGV):
        n = len(command.path)
        if tuple(argv[:n]) != command.path:
            continue
        pairs = cmds.argv_to_query(command, argv[n:], path_id=path_id)
        query = _encode(pairs)
        if query in seen:
            continue
        seen.add(query)
        chosen: dict[str, list[str]] = {}
        for key, value in pairs:
            chosen.setdefault(key, []).append(value)
        out.append((f"/{command.slug}?{query}", cmds.cli_line(command, chosen, _path_text)))
    return out[:4]


def _describe(command: cmds.Command) -> dict:
    question = {p.key for p in command.question_params}
    return {
        "command": command.name, "page": f"/{command.slug}", "api": f"/api/{command.slug}",
        "summary": command.summary,
        "params": [{"key": p.key, "flag": p.flag, "type": p.kind, "required": p.required,
                    "default": p.default if isinstance(p.default, (int, float, str, bool))
                    or p.default is None else str(p.default),
                    "multiple": p.multiple, "help": p.help,
                    "upload": p.takes_file,  # takes an uploaded file (-F key=@file)
                    "question": p.key in question}  # a form asks it first (the rest fold)
                   for p in command.params if p.key not in cmds.SERVER_OWNED],
    }


def warm_up(runner: Runner) -> None:
    """Run the warm-up queries of ``mathhammer warmup`` once: kernels loaded and compiled."""
    from mathhammer.present.tour import WARMUP_ARGV

    for argv in WARMUP_ARGV:
        try:
            runner.run([*argv, "--quiet"])
        except QueryFailed:
            pass  # a warm-up query a newer command changed: its kernel warms on first use


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2)
