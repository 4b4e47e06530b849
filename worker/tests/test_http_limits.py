"""The HTTP layer's defenses, over raw sockets: the token is checked before a body is read, oversized and malformed
bodies are refused without waiting for them, stalled connections are closed after the request timeout, the number of
connections is bounded, and a huge prompt gets its 400 at once. Also `python -m trace_worker serve` itself: port 0
announced, SIGTERM stops it cleanly with a stalled connection open."""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from trace_worker.engine import Engine

from .worker_http import RunningWorker

TIMEOUT = 1.0  # the request timeout of the workers here
CONNECTIONS = 8  # and their connection limit
WORKER_DIRECTORY = Path(__file__).resolve().parents[1]


@pytest.fixture()
def guarded(engine: Engine) -> Iterator[RunningWorker]:
    running = RunningWorker(engine, api_key="secret", max_request_bytes=64 << 20, request_timeout=TIMEOUT, max_connections=CONNECTIONS)
    yield running
    running.close()


def exchange(port: int, data: bytes, wait: float = 10.0, trickle: float = 0.0) -> tuple[bytes, float, bool]:
    """Sends `data` (a byte every `trickle` seconds, if given), then reads until the server closes the connection or
    `wait` seconds pass: what came back, the seconds from the last byte sent to the close, and whether it closed."""
    with socket.create_connection(("127.0.0.1", port)) as connection:
        if trickle:
            for byte in data:
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    break  # closed by the server meanwhile
                time.sleep(trickle)
        elif data:
            connection.sendall(data)
        sent = time.monotonic()
        connection.settimeout(wait)
        received = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except TimeoutError:
                return received, time.monotonic() - sent, False
            except ConnectionResetError:
                return received, time.monotonic() - sent, True
            if not chunk:
                return received, time.monotonic() - sent, True
            received += chunk


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def json_body(response: bytes) -> Any:
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


def head(method: str, path: str, length: int | str | None = None, token: str | None = None, extra: str = "") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: worker", "Content-Type: application/json"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode()


def test_the_token_is_checked_before_the_body_is_read(guarded: RunningWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_arguments: Any) -> None:
        raise AssertionError("an unauthenticated request reached the application")

    monkeypatch.setattr(guarded.application, "handle", never)
    # 50 MB announced, 100 bytes sent: the 401 comes at once (no wait for the body) and the connection closes.
    for token in (None, "wrong", "secre", "secret2"):
        response, seconds, closed = exchange(guarded.port, head("POST", "/v1/trainer/forward_backward", 50_000_000, token) + b"{" * 100)
        assert status_of(response) == 401 and closed and seconds < TIMEOUT / 2, (token, response, seconds)
        assert json_body(response)["error"]["type"] == "authentication_error"
    # /health stays open; a right token passes.
    monkeypatch.undo()
    assert guarded.request("GET", "/health", headers={"Authorization": ""})[0] == 200
    assert status_of(exchange(guarded.port, head("GET", "/health", extra="Connection: close\r\n"))[0]) == 200
    assert guarded.request("GET", "/v1/models")[0] == 200


def test_connections_send_without_nagle_delay(guarded: RunningWorker) -> None:
    """TCP_NODELAY on every accepted connection: with Nagle, a response's body (written after its head) waited for the
    client's delayed ACK, about 40 ms per request."""
    connection = http.client.HTTPConnection("127.0.0.1", guarded.port, timeout=10)
    try:
        connection.request("GET", "/health")
        assert connection.getresponse().read()
        protocols = list(guarded.server.server.server_state.connections)  # the connection, kept alive
        assert protocols
        for protocol in protocols:
            assert protocol.transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        connection.close()


def test_an_oversized_body_gets_413_unread_and_malformed_lengths_get_400(guarded: RunningWorker) -> None:
    response, seconds, closed = exchange(guarded.port, head("POST", "/v1/trainer/forward", (64 << 20) + 1, "secret"))
    assert status_of(response) == 413 and closed and seconds < TIMEOUT / 2
    assert json_body(response)["error"]["param"] == "Content-Length"
    # h11 refuses a length that is not a number; none of them waits for a body.
    for length in ("-5", "abc", "1e3", "0x10", "5, 6", " "):
        response, seconds, closed = exchange(guarded.port, head("POST", "/v1/trainer/forward", length, "secret"))
        assert status_of(response) == 400 and closed and seconds < TIMEOUT / 2, (length, response)
    # No Content-Length, or a chunked body: 400 from the worker (a body must announce its length).
    for request in (head("POST", "/v1/trainer/forward", None, "secret", "Connection: close\r\n"), head("POST", "/v1/trainer/forward", None, "secret", "Transfer-Encoding: chunked\r\n") + b"2\r\n{}\r\n0\r\n\r\n"):
        response, seconds, closed = exchange(guarded.port, request)
        assert status_of(response) == 400 and json_body(response)["error"]["param"] == "Content-Length" and closed and seconds < TIMEOUT / 2, response
    assert guarded.request("GET", "/health")[1]["status"] == "ok"


def test_stalled_connections_are_closed_after_the_request_timeout(guarded: RunningWorker) -> None:
    partial = head("POST", "/v1/trainer/forward", 10, "secret")[:-4]
    cases = {
        # Nothing at all, part of a head, a head trickled in a byte at a time (that would take ~10 s: the head has one
        # timeout, not one per byte): closed without an answer.
        "silent": (b"", 0.0),
        "partial head": (partial, 0.0),
        "trickled head": (partial, 0.1),
        # A body shorter than its Content-Length: 408 once nothing more comes for the timeout, then closed.
        "short body": (head("POST", "/v1/trainer/forward", 100, "secret") + b'{"datums": ', 0.0),
        # An idle keep-alive connection after an answer.
        "idle": (head("GET", "/health"), 0.0),
    }
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(cases)) as pool:
        futures = {name: pool.submit(exchange, guarded.port, data, 10.0, trickle) for name, (data, trickle) in cases.items()}
        results = {name: future.result() for name, future in futures.items()}
    assert time.monotonic() - started < 3 * TIMEOUT
    for name in ("silent", "partial head", "trickled head"):
        response, _seconds, closed = results[name]
        assert closed and response == b"", (name, response)
    response, seconds, closed = results["short body"]
    assert status_of(response) == 408 and closed and 0.8 * TIMEOUT < seconds < 3 * TIMEOUT, (response, seconds)
    assert json_body(response)["error"]["param"] == "body"
    response, seconds, closed = results["idle"]
    assert status_of(response) == 200 and closed and 0.8 * TIMEOUT < seconds < 3 * TIMEOUT, (response, seconds)
    assert guarded.request("GET", "/health")[1]["status"] == "ok"


def test_connections_are_bounded(guarded: RunningWorker) -> None:
    def open_idle() -> socket.socket:
        connection = socket.create_connection(("127.0.0.1", guarded.port))
        connection.sendall(head("GET", "/health"))
        connection.settimeout(5)
        received = b""
        while not received.endswith(b"}"):
            received += connection.recv(65536)
        assert status_of(received) == 200
        return connection  # kept alive, idle

    idle = [open_idle() for _ in range(CONNECTIONS - 1)]
    try:
        response, _seconds, closed = exchange(guarded.port, head("GET", "/health"))
        assert status_of(response) == 503 and closed  # with this one, CONNECTIONS open: the limit
    finally:
        idle.pop().close()
    deadline = time.monotonic() + 5
    while status_of(exchange(guarded.port, head("GET", "/health", extra="Connection: close\r\n"))[0]) != 200:
        assert time.monotonic() < deadline, "the freed connection did not make room"
        time.sleep(0.05)
    for connection in idle:
        connection.close()


def test_a_50_mb_prompt_gets_its_400_without_being_tokenized(guarded: RunningWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    # Behaviour, not a timing: the refusal comes from the length bound, before the chat template or the tokenizer
    # sees the text (tokenizing 50 MB would take minutes).
    from trace_worker import server

    rendered: list[int] = []
    original = server.render_prompt
    monkeypatch.setattr(server, "render_prompt", lambda *arguments: rendered.append(1) or original(*arguments))
    body = json.dumps({"model": guarded.application.engine.served_name, "messages": [{"role": "user", "content": "y" * 50_000_000}]}).encode()
    connection = http.client.HTTPConnection("127.0.0.1", guarded.port, timeout=30)
    try:
        connection.request("POST", "/v1/chat/completions", body, {"Authorization": "Bearer secret", "Content-Type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 400 and answer["error"]["param"] == "messages", answer
    assert "at least" in answer["error"]["message"], answer
    assert rendered == [], "the prompt was rendered before it was refused"


def test_serve_announces_its_port_and_stops_on_sigterm_with_a_stalled_connection_open(tiny_checkpoint: Path) -> None:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(WORKER_DIRECTORY), os.environ.get("PYTHONPATH")])))
    environment.pop("TRACE_WORKER_PARENT_PID", None)
    command = [sys.executable, "-m", "trace_worker", "serve", "--model", str(tiny_checkpoint), "--port", "0", "--device", "cpu", "--request-timeout", "30"]
    process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"on http://127\.0\.0\.1:(\d+) ", line)
        assert match, line + (process.stderr.read() if process.stderr else "")
        port = int(match.group(1))
        assert port > 0
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/health")
        assert json.loads(connection.getresponse().read())["status"] == "ok"
        connection.close()
        with socket.create_connection(("127.0.0.1", port)) as stalled:
            stalled.sendall(head("POST", "/v1/trainer/forward", 10)[:-4])
            time.sleep(0.2)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
