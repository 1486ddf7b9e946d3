"""What both of favakit's HTTP servers check before a request reaches a route, and how they run.

:class:`RequestGuard` is an ASGI middleware (``app.add_middleware(RequestGuard, ...)``) that:

- answers 403 to a ``Host`` that is not this server's (a DNS-rebinding page in a browser names
  its own host), unless ``--allow-host`` lets it in;
- answers 415 to a POST whose ``Content-Type`` is not ``application/json`` (a web page can make a
  browser POST form data or text to a local server, never JSON without asking first);
- answers 413 to a body over the limit, from ``Content-Length`` before reading any of it, and
  stops reading a chunked body at the limit; 408 to a body that stops arriving;
- answers 503 with ``Retry-After`` when ``max_pending`` requests are already being worked on,
  so the work queue is bounded;
- cancels a request's work when its client goes away (work not yet started is never run);
- answers 500 with a fixed message, never the exception, where a route fails unexpectedly.

:func:`run_server` runs an app under uvicorn with a connection limit and a timeout for a
request's headers (a client that opens a connection and sends nothing is dropped);
:func:`require_free_port` says a port is taken before a server loads its models.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from favakit.cli_args import positive, positive_int

__all__ = [
    "HttpLimits",
    "RequestGuard",
    "add_http_options",
    "allowed_hosts",
    "api_key",
    "http_limits",
    "protect",
    "require_free_port",
    "run_server",
    "server_config",
]

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
INTERNAL = "internal error: the server's log has the details"


@dataclass(frozen=True)
class HttpLimits:
    max_body_bytes: int = 4_000_000
    body_timeout_s: float = 30.0  # the longest wait for the next part of a body
    header_timeout_s: float = 10.0  # from connecting (or the last answer) to a request's headers
    max_pending: int = 64  # requests being worked on; one more is answered 503
    max_connections: int = 512  # open connections; one more is answered 503 (uvicorn)


def add_http_options(group: Any, max_body_bytes: int) -> None:
    """The request limits' command-line options (an argparse parser or group)."""
    group.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="also answer requests for this Host name (repeat; '*': any). Default: the --host "
        "address, and the loopback names when it is loopback; any name when bound to 0.0.0.0",
    )  # fmt: skip
    group.add_argument(
        "--max-pending", type=positive_int, default=HttpLimits.max_pending,
        help="requests worked on at once; more are answered 503 with Retry-After",
    )  # fmt: skip
    group.add_argument(
        "--max-body-mb", type=positive, default=max_body_bytes / 1e6,
        help="largest request body, in MB (413 beyond it)",
    )  # fmt: skip


def http_limits(args: argparse.Namespace) -> HttpLimits:
    return HttpLimits(max_body_bytes=int(args.max_body_mb * 1e6), max_pending=args.max_pending)


def api_key(args: argparse.Namespace) -> str | None:
    """The key a server asks of every request: ``--api-key``, else ``$FAVAKIT_API_KEY``, else
    none. An empty ``--api-key`` (``--api-key "$KEY"`` with ``KEY`` unset) is refused: it served
    without a key, to anyone who could reach it."""
    from favakit.errors import UsageError

    if args.api_key is not None and not args.api_key.strip():
        raise UsageError("--api-key is empty (a variable that is not set?), and the server would "
                         "answer anyone without one: give the key, or leave --api-key out")  # fmt: skip
    return args.api_key or os.environ.get("FAVAKIT_API_KEY") or None


def is_loopback(bind: str) -> bool:
    """Whether a server bound to ``bind`` is reachable from this machine only."""
    bind = bind.strip("[]").lower()
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return bind == "localhost"


def keyless_note(bind: str, key: str | None) -> str | None:
    """What to tell the person starting a server that anyone on the network may use: bound
    beyond loopback with no key. None where a key is asked or only this machine can reach it."""
    if key is not None or is_loopback(bind):
        return None
    where = "every address of this machine" if bind.strip("[]") in ("0.0.0.0", "::", "") else bind
    return (
        f"warning: listening on {where} with no API key: anyone who can reach it can use "
        "the model; give --api-key KEY (or set FAVAKIT_API_KEY), or bind 127.0.0.1"
    )


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """The ``Host`` names a server bound to ``bind`` answers (None: any). Bound to loopback:
    the loopback names; bound to one address: that address too; bound to every address
    (0.0.0.0, ::): any host, since clients reach it by names it cannot know, unless ``extra``
    names them. ``extra`` adds names; ``*`` allows any."""
    names = {h.strip().lower().strip("[]") for h in extra if h.strip()}
    if "*" in names:
        return None
    bind = bind.strip("[]").lower()
    if bind in ("0.0.0.0", "::", ""):
        return frozenset(names) if names else None
    return frozenset({bind, *names, *(LOOPBACK_NAMES if is_loopback(bind) else ())})


def host_name(header: str) -> str:
    """``Host`` without its port: ``[::1]:8080`` -> ``::1``, ``Example.org:80`` -> ``example.org``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _Refused(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}

    async def answer(self, send: Send) -> None:
        await reply(send, self.status, self.message, self.headers)


async def reply(
    send: Send, status: int, message: str, headers: dict[str, str] | None = None
) -> None:
    """A JSON error answer ``{"detail": message}``, as FastAPI words its own."""
    body = json.dumps({"detail": message}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """The checks of this module, in front of an ASGI app."""

    def __init__(
        self,
        app: Any,
        limits: HttpLimits | None = None,
        hosts: Iterable[str] | None = LOOPBACK_NAMES,
    ) -> None:
        """``hosts``: the ``Host`` names answered (:func:`allowed_hosts`); None: any."""
        self.app = app
        self.limits = limits or HttpLimits()
        self.hosts = None if hosts is None else frozenset(hosts)
        self.pending = 0  # POST requests being worked on

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        post = scope["method"] == "POST"
        try:
            self._check_host(headers)
            if post:
                self._check_type(headers)
                self._check_room()
        except _Refused as refused:
            await refused.answer(send)
            return
        if not post:
            await self._run(scope, receive, send, None)
            return
        self.pending += 1  # counted from here: its body is read while others wait
        try:
            body = await self._read_body(receive, headers)
            await self._run(scope, receive, send, body)
        except _Refused as refused:
            await refused.answer(send)
        finally:
            self.pending -= 1

    def _check_room(self) -> None:
        if self.pending >= self.limits.max_pending:
            raise _Refused(
                503, f"the server is busy ({self.pending} requests in progress); retry soon",
                {"retry-after": "1"},
            )  # fmt: skip

    def _check_host(self, headers: dict[str, str]) -> None:
        if self.hosts is None:
            return
        host = host_name(headers.get("host", ""))
        if host not in self.hosts:
            raise _Refused(
                403, f"this server does not answer for host {host!r} "
                "(start it with --allow-host NAME to let a name in)",
            )  # fmt: skip

    @staticmethod
    def _check_type(headers: dict[str, str]) -> None:
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            raise _Refused(
                415, f"the body must be JSON with Content-Type: application/json (got {media!r})"
            )

    async def _read_body(self, receive: Receive, headers: dict[str, str]) -> bytes:
        cap = self.limits.max_body_bytes
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                raise _Refused(400, "Content-Length is not a number")
            if int(declared) > cap:
                raise _Refused(413, f"the body is {int(declared)} bytes; the limit is {cap}")
        parts: list[bytes] = []
        size = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.limits.body_timeout_s)
            except TimeoutError:
                raise _Refused(
                    408, f"the body stopped arriving for {self.limits.body_timeout_s:g} s"
                ) from None
            if message["type"] == "http.disconnect":
                raise _Refused(400, "the client went away before sending its body")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                raise _Refused(413, f"the body is over the limit of {cap} bytes")
            parts.append(chunk)
            if not message.get("more_body", False):
                return b"".join(parts)

    async def _run(self, scope: Scope, receive: Receive, send: Send, body: bytes | None) -> None:
        """The app, given the body read here; cancelled if the client disconnects first."""
        gone = asyncio.Event()
        started = False

        async def replay() -> Message:
            nonlocal body
            if body is not None:
                message, body = {"type": "http.request", "body": body, "more_body": False}, None
                return message
            await gone.wait()
            return {"type": "http.disconnect"}

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        app = asyncio.ensure_future(
            self.app(scope, replay if body is not None else receive, tracked)
        )
        watcher = asyncio.ensure_future(watch()) if body is not None else None
        try:
            if watcher is None:
                await app
                return
            await asyncio.wait({app, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if not app.done():  # the client is gone: stop its work (queued work never runs)
                app.cancel()
                log.info("%s %s: the client went away; its work is cancelled", scope["method"],
                         scope["path"])  # fmt: skip
            await asyncio.gather(app, return_exceptions=True)
            failure = None if app.cancelled() else app.exception()
            if failure is not None:
                raise failure
        except Exception:
            log.exception("%s %s failed", scope["method"], scope["path"])
            if not started:
                await reply(send, 500, INTERNAL)
        finally:
            if watcher is not None:
                watcher.cancel()


def protect(app: Any, limits: HttpLimits, hosts: Iterable[str] | None = LOOPBACK_NAMES) -> None:
    """Put a :class:`RequestGuard` in front of a FastAPI ``app``, and answer an unexpected
    failure with a fixed 500 message (the guard logs it) instead of the framework's text."""
    from fastapi.responses import JSONResponse

    async def internal(request: Any, exc: Exception) -> Any:
        return JSONResponse({"detail": INTERNAL}, status_code=500)

    app.add_exception_handler(Exception, internal)
    app.add_middleware(RequestGuard, limits=limits, hosts=hosts)


def _timed_protocol(header_timeout_s: float) -> type:
    """uvicorn's h11 protocol, closing a connection whose request headers have not all
    arrived ``header_timeout_s`` after it opened or after its last answer (uvicorn has no such
    timeout: a client sending a header a minute keeps a connection and a file open)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimedH11Protocol(H11Protocol):
        _timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.loop.call_later(header_timeout_s, self._late, self.cycle)

        def _late(self, cycle: Any) -> None:
            if self.cycle is cycle and not self.transport.is_closing():
                self.transport.close()  # no new request began in time

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
            super().connection_lost(exc)

    return HeaderTimedH11Protocol


def server_config(
    app: Any, host: str, port: int, limits: HttpLimits, graceful_s: float = 30.0
) -> Any:
    """uvicorn's configuration for ``app``, with the limits' connection cap and header
    timeout."""
    import uvicorn

    return uvicorn.Config(
        app, host=host, port=port, log_level="warning",
        timeout_graceful_shutdown=max(1, round(graceful_s)),
        http=_timed_protocol(limits.header_timeout_s), limit_concurrency=limits.max_connections,
        timeout_keep_alive=5,
    )  # fmt: skip


def require_free_port(host: str, port: int) -> None:
    """A clear error, at once, where ``host:port`` cannot be bound (another server holds it):
    uvicorn would say so only after the models had loaded, and exit 3."""
    import errno
    import socket

    from favakit.errors import UsageError

    if port == 0:  # any free port
        return
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise UsageError(
            f"--host {host}: not an address this machine can serve on ({exc})"
        ) from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            why = "in use (another server?)" if exc.errno == errno.EADDRINUSE else str(exc)
            raise UsageError(
                f"cannot serve on {host}:{port}: {why}; choose another --port"
            ) from None


def run_server(
    app: Any, host: str, port: int, limits: HttpLimits, graceful_s: float = 30.0
) -> None:
    """Serve ``app`` in the foreground until stopped (uvicorn), as :func:`server_config` says."""
    import uvicorn

    uvicorn.Server(server_config(app, host, port, limits, graceful_s)).run()
