"""The worker's HTTP server: uvicorn (h11) with a small ASGI app in front of `WorkerApplication.handle` (the protocol is
worker/PROTOCOL.md).

What the transport enforces, and where:
- uvicorn: HTTP/1.1 parsing through h11 (a malformed request line or header, e.g. a negative or non-numeric
  Content-Length, gets 400 and the connection is closed; a request head over 16 KiB likewise), `limit_concurrency`
  (with that many connections open or requests in flight, a further request gets 503), idle keep-alive connections
  closed after `timeout_keep_alive`, a graceful shutdown bounded by `timeout_graceful_shutdown`.
- here, `_HeadTimeoutProtocol`: uvicorn 0.54 arms no timer until a connection's first response is complete, and
  disarms its keep-alive timer at the first byte of the next request, so a client that connects and sends nothing, or
  part of a request head and then nothing, would hold its connection (and a `limit_concurrency` slot) forever. The
  subclass arms the keep-alive timer at connect and keeps it armed until a complete head has arrived, so the whole head
  must arrive within the request timeout.
- here, `WorkerASGI`: the bearer token is checked from the head before the body is read, a declared body over
  `max_request_bytes` gets 413 unread, and each wait for more of the body is bounded (`asyncio.wait_for` around
  `receive()`: uvicorn has no body timeout), so a body shorter than its Content-Length gets 408 and a closed
  connection. Handler calls block (they wait for the engine thread), so they run on a bounded pool of daemon threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import math
import os
import platform
import queue
import socket
import threading
import time
import traceback
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Awaitable, Callable

import h11
import peft
import torch
import transformers
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .chat_format import parse_completion, render_prompt
from .collective import Collective
from .engine import Engine
from .errors import BadRequest, Forbidden, NotFound, PayloadTooLarge, RequestTimeout, Unauthorized, WorkerError
from .executor import EngineExecutor
from .fields import number_field
from .sampler import Sampler, SamplingRequest, SamplingResult, finite, token_text
from .trainer import Trainer

log = logging.getLogger("trace_worker")

TRAINER_CALLS = ("create_adapter", "delete_adapter", "merge_adapters", "forward_backward", "forward", "optim_step", "save_adapter", "save_state", "load_state", "export_merged")


def describe_accelerator(device: torch.device) -> str:
    """The GPU's name (`NVIDIA H100 80GB HBM3`), or the CPU's model and how many of its cores this process may use."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores"


def library_versions() -> dict[str, str]:
    """Python's and the numerical libraries' versions: what a figure depends on besides the code and the machine."""
    return {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__}


class WorkerApplication:
    """Routes requests to the sampler and trainer; every model operation goes through the engine thread."""

    def __init__(
        self, engine: Engine, collective: Collective | None = None, api_key: str | None = None, max_request_bytes: int = 64 << 20, file_root: str | None = None
    ) -> None:
        self.engine = engine
        self.collective = collective or Collective()
        self.trainer = Trainer(engine, self.collective)
        self.sampler = Sampler(engine)
        self.executor = EngineExecutor(self.sampler)
        self.api_key = api_key
        self.max_request_bytes = max_request_bytes
        #: When set, every file path a request names (adapters, states, merged checkpoints) must lie under it.
        self.file_root = None if file_root is None else Path(file_root).resolve()
        #: What the worker computes on, for reports that name the machine behind their figures (`/health`).
        self.accelerator = describe_accelerator(engine.device)
        self.versions = library_versions()

    # -- calls that every rank runs -----------------------------------------------------------------------------

    def run_everywhere(self, operation: str, body: dict[str, Any]) -> Any:
        """Runs a state-changing call on the engine thread, first telling the other ranks (if any) to run it too."""

        def task() -> Any:
            if self.collective.world_size > 1:
                self.collective.broadcast_object((operation, body))
            return perform(self.trainer, operation, body)

        return self.executor.call(task, weight_changes(operation, body))

    # -- routes -------------------------------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        route = path.split("?", 1)[0].rstrip("/")
        if method == "GET":
            if route == "/health":
                return 200, self.health()
            if route == "/v1/models":
                return 200, self.models()
            if route == "/v1/trainer/adapters":
                return 200, self.executor.call(self.trainer.list_adapters, frozenset())
            raise NotFound(f"no route GET {route}", "path", route)
        if method != "POST":
            raise BadRequest(f"method {method} is not served", "method", method)
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object", "body", None)
        if route == "/v1/chat/completions":
            return 200, self.chat_completion(body)
        if route in ("/tokenize", "/v1/tokenize"):
            return 200, self.tokenize(body)
        if route in ("/detokenize", "/v1/detokenize"):
            return 200, self.detokenize(body)
        if route == "/v1/load_lora_adapter":
            name, path_value = body.get("lora_name"), body.get("lora_path")
            if not isinstance(path_value, str) or not path_value:
                raise BadRequest("lora_path must be a non-empty string", "lora_path", path_value)
            self.confine(path_value, "lora_path")
            self.run_everywhere("load_lora_adapter", {"lora_name": name, "lora_path": path_value})
            return 200, f"Success: LoRA adapter '{name}' added successfully."
        if route == "/v1/unload_lora_adapter":
            name = body.get("lora_name")
            if not isinstance(name, str):
                raise BadRequest("lora_name must be a string", "lora_name", name)
            self.run_everywhere("unload_lora_adapter", {"lora_name": name})
            return 200, f"Success: LoRA adapter '{name}' removed successfully."
        if route.startswith("/v1/trainer/"):
            operation = route[len("/v1/trainer/") :]
            if operation not in TRAINER_CALLS:
                raise NotFound(f"no trainer call {operation!r} (calls: {', '.join(TRAINER_CALLS)})", "path", route)
            if isinstance(body.get("path"), str):
                self.confine(body["path"], "path")
            return 200, self.run_everywhere(operation, body)
        raise NotFound(f"no route POST {route}", "path", route)

    def confine(self, value: str, field: str) -> None:
        """Refuses (403) a path outside the file root, symbolic links and `..` resolved first."""
        if self.file_root is None:
            return
        resolved = Path(value).resolve()
        if resolved != self.file_root and self.file_root not in resolved.parents:
            raise Forbidden(f"{field} {value!r} is outside the worker's file root {self.file_root}", field, value)

    def health(self) -> dict[str, Any]:
        return {
            "status": "ok",
            "model": self.engine.served_name,
            "device": str(self.engine.device),
            "dtype": str(self.engine.dtype).replace("torch.", ""),
            "world_size": self.collective.world_size,
            "fused_kernels": self.engine.fused_kernels,
            "deterministic": self.trainer.deterministic,
            "accelerator": self.accelerator,
            "versions": self.versions,
            "sampling_batches": self.executor.sampling_batches,
            "largest_batch": self.executor.largest_batch,
            "decode_steps": self.executor.decode_steps,
            "sampling_seconds": round(self.executor.sampling_seconds, 3),
            "call_seconds": round(self.executor.call_seconds, 3),
            "prompt_tokens": self.sampler.prompt_tokens,
            "prefix_cached_tokens": self.sampler.prefixes.reused_tokens,
            "prefill_tokens": self.sampler.prefill_tokens,
            "prefill_positions": self.sampler.prefill_positions,
        }

    def models(self) -> dict[str, Any]:
        names = self.executor.call(self.engine.model_names, frozenset())
        data = []
        for index, name in enumerate(names):
            parent = None if index == 0 else self.engine.served_name
            root = str(self.engine.model_path) if index == 0 else self.engine.adapters[name].path or name
            data.append({"id": name, "object": "model", "created": 0, "owned_by": "trace-worker", "root": root, "parent": parent})
        return {"object": "list", "data": data}

    # -- tokenizer (vLLM's /tokenize and /detokenize) -------------------------------------------------------------

    def tokenize(self, body: dict[str, Any]) -> dict[str, Any]:
        """`{prompt, add_special_tokens?}` or `{messages, tools?}` (rendered with the chat template) → token ids."""
        tokenizer = self.engine.tokenizer
        if "messages" in body:
            tokens = render_prompt(tokenizer, body.get("messages"), body.get("tools"))
        else:
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                raise BadRequest("prompt must be a string (or send messages)", "prompt", prompt)
            tokens = list(tokenizer.encode(prompt, add_special_tokens=bool(body.get("add_special_tokens", False))))
        strings = [tokenizer.decode([token]) for token in tokens] if body.get("return_token_strs") else None
        return {"count": len(tokens), "max_model_len": self.sampler.context_length(), "tokens": tokens, "token_strs": strings}

    def detokenize(self, body: dict[str, Any]) -> dict[str, Any]:
        tokens = body.get("tokens")
        vocabulary = int(self.engine.base.get_output_embeddings().weight.shape[0])
        if not isinstance(tokens, list) or not all(isinstance(token, int) and not isinstance(token, bool) and 0 <= token < vocabulary for token in tokens):
            raise BadRequest(f"tokens must be a list of token ids in [0, {vocabulary})", "tokens", tokens)
        return {"prompt": self.engine.tokenizer.decode(tokens)}

    # -- chat completions ---------------------------------------------------------------------------------------

    def chat_completion(self, body: dict[str, Any]) -> dict[str, Any]:
        model = body.get("model")
        if not isinstance(model, str):
            raise BadRequest("model must be the base model's name or an adapter's name", "model", model)
        if body.get("stream"):
            raise BadRequest("stream is not supported by the worker", "stream", True)
        if body.get("n", 1) != 1:
            raise BadRequest("only n = 1 is supported", "n", body.get("n"))
        request = SamplingRequest(prompt_ids=[])
        request.adapter = None if model == self.engine.served_name else model
        request.temperature = number_field(body, "temperature", 1.0, 0.0, 100.0)
        request.top_p = number_field(body, "top_p", 1.0, 1e-9, 1.0)
        default_tokens = self.sampler.context_length()
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        if max_tokens is None:
            max_tokens = default_tokens
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise BadRequest(f"max_tokens must be a positive integer, got {max_tokens!r}", "max_tokens", max_tokens)
        request.max_tokens = max_tokens
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise BadRequest(f"seed must be an integer, got {seed!r}", "seed", seed)
        request.seed = seed
        salt = body.get("cache_salt")
        if salt is not None and (not isinstance(salt, str) or not salt):
            raise BadRequest(f"cache_salt must be a non-empty string, got {salt!r}", "cache_salt", salt)
        request.cache_salt = salt
        stop = body.get("stop")
        if stop is None:
            request.stop = []
        elif isinstance(stop, str):
            request.stop = [stop] if stop else []
        elif isinstance(stop, list) and all(isinstance(item, str) and item for item in stop):
            request.stop = list(stop)
        else:
            raise BadRequest("stop must be a string or a list of non-empty strings", "stop", stop)
        want_logprobs = bool(body.get("logprobs"))
        top = body.get("top_logprobs") or 0
        if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= 20:
            raise BadRequest(f"top_logprobs must be an integer in [0, 20], got {top!r}", "top_logprobs", top)
        request.top_logprobs = top if want_logprobs else 0
        extra_ids = body.get("logprob_token_ids") or []
        if not isinstance(extra_ids, list) or not all(isinstance(item, int) and not isinstance(item, bool) for item in extra_ids):
            raise BadRequest("logprob_token_ids must be a list of token ids", "logprob_token_ids", extra_ids)
        request.logprob_token_ids = list(extra_ids)
        if extra_ids:
            want_logprobs = True
        as_ids = bool(body.get("return_tokens_as_token_ids"))
        # Rendering needs only the tokenizer and the check only reads the adapter table: both run on the request's own
        # thread, so concurrent requests reach the engine thread together and decode as one batch.
        self.sampler.check_length_bound(body.get("messages"), body.get("tools"))
        request.prompt_ids = render_prompt(self.engine.tokenizer, body.get("messages"), body.get("tools"))
        self.sampler.check(request)
        started = time.time()
        result = self.executor.sample(request)
        return self._completion_body(model, request, result, want_logprobs, as_ids, bool(body.get("return_token_ids")), started)

    def _completion_body(
        self, model: str, request: SamplingRequest, result: SamplingResult, want_logprobs: bool, as_ids: bool, return_ids: bool, started: float
    ) -> dict[str, Any]:
        parsed = parse_completion(result.text)
        message: dict[str, Any] = {"role": "assistant", "content": parsed.content}
        if parsed.tool_calls:
            message["tool_calls"] = parsed.tool_calls
        finish = result.finish_reason
        if parsed.tool_calls and finish == "stop":
            finish = "tool_calls"
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
        if parsed.error:
            choice["tool_call_parse_error"] = parsed.error
        if want_logprobs:

            def name(token_id: int) -> str:
                return f"token_id:{token_id}" if as_ids else token_text(self.engine, token_id)

            content = []
            for position in result.positions:
                text = name(position.token_id)
                entry: dict[str, Any] = {"token": text, "logprob": finite(position.logprob), "bytes": list(text.encode("utf-8"))}
                entry["top_logprobs"] = [
                    {"token": name(token_id), "logprob": finite(logprob), "bytes": list(name(token_id).encode("utf-8"))}
                    for token_id, logprob in position.candidates
                ]
                content.append(entry)
            choice["logprobs"] = {"content": content}
        else:
            choice["logprobs"] = None
        if return_ids:
            choice["token_ids"] = result.completion_ids
        response: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(started),
            "model": model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": len(request.prompt_ids),
                "completion_tokens": len(result.completion_ids),
                "total_tokens": len(request.prompt_ids) + len(result.completion_ids),
            },
        }
        if return_ids:
            response["prompt_token_ids"] = request.prompt_ids
        return response


#: Calls that change no weights, and the body field naming the one adapter whose weights a call changes (or creates or
#: removes). Any other call may change any weights.
READ_ONLY_CALLS = frozenset({"forward", "forward_backward", "save_adapter", "save_state", "export_merged", "list_adapters"})
CHANGED_ADAPTER_FIELD = {
    "optim_step": "adapter",
    "load_state": "adapter",
    "create_adapter": "name",
    "delete_adapter": "name",
    "merge_adapters": "name",
    "load_lora_adapter": "lora_name",
    "unload_lora_adapter": "lora_name",
}


def weight_changes(operation: str, body: dict[str, Any]) -> frozenset[str] | None:
    """The adapters whose weights `operation` may change (None: any weights), for the prefix cache to drop."""
    if operation in READ_ONLY_CALLS:
        return frozenset()
    name = body.get(CHANGED_ADAPTER_FIELD.get(operation, ""))
    return frozenset({name}) if isinstance(name, str) else None


def perform(trainer: Trainer, operation: str, body: dict[str, Any]) -> Any:
    """One state-changing call, as every rank runs it."""
    if operation == "load_lora_adapter":
        record = trainer.engine.load_adapter(body["lora_name"], body["lora_path"])
        trainer.collective.broadcast_tensors(list(record.parameters))
        return record.describe()
    if operation == "unload_lora_adapter":
        trainer.engine.delete_adapter(body["lora_name"], "lora_name")
        return None
    if operation == "list_adapters":
        return trainer.list_adapters()
    method: Callable[[dict[str, Any]], Any] = getattr(trainer, operation)
    with trainer.algorithms():
        return method(body)


def follow_rank_zero(trainer: Trainer) -> None:
    """A rank other than 0: runs every call rank 0 broadcasts (`WorkerApplication.run_everywhere`) until "shutdown"."""
    while True:
        operation, body = trainer.collective.broadcast_object(None)
        if operation == "shutdown":
            return
        try:
            perform(trainer, operation, body)
        except WorkerError:
            pass  # rank 0 met the same error and answered it


#: Seconds a client may take to send a request head (from connecting, or from the previous response), and may leave
#: the body without a byte, before the worker closes the connection; also the idle keep-alive limit.
REQUEST_TIMEOUT = 60.0
#: Open connections (idle keep-alive ones included) or requests in flight at which further requests get 503.
MAX_CONNECTIONS = 1024
#: Requests handled at once (the rest wait for a thread); chat requests on them reach the engine thread together.
HANDLER_THREADS = 256
#: Seconds in-flight requests get to finish when the server stops.
SHUTDOWN_GRACE = 5.0
#: Pending connections the listening socket queues (many rollout workers connect at once).
BACKLOG = 2048

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class ClientGone(Exception):
    """The client closed the connection before its request was read."""


class DaemonThreadPool:
    """Runs blocking calls on at most `size` daemon threads, started as needed. Unlike ThreadPoolExecutor's threads,
    which the interpreter joins at exit, a thread stuck in a long trainer call does not hold up the worker's exit."""

    def __init__(self, size: int, name: str = "trace-http") -> None:
        self.size = size
        self.name = name
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._threads = 0

    def submit(self, function: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((future, function))
        if not self._idle.acquire(blocking=False):
            with self._lock:
                if self._threads < self.size:
                    self._threads += 1
                    threading.Thread(target=self._run, name=f"{self.name}-{self._threads}", daemon=True).start()
        return future

    def _run(self) -> None:
        while True:
            future, function = self._jobs.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(function())
                except BaseException as error:  # handed to the waiting request
                    future.set_exception(error)
            self._idle.release()


class _HeadTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol whose keep-alive timer also bounds the time to receive a request head (see the module
    docstring): armed at connect, left armed by data that does not complete a head (uvicorn disarms it when h11 yields
    the request), and closing with `abort` so a client that reads nothing cannot keep the socket open on an unflushed
    write buffer. Every connection gets TCP_NODELAY."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # No Nagle delay: uvicorn writes a response's head and body separately, and with Nagle the body waited for the
        # client's delayed ACK of the head, about 40 ms per request (measured: a 300 kB trainer request answered in
        # 55–65 ms instead of 8). asyncio sets TCP_NODELAY itself only on sockets made with proto IPPROTO_TCP; `bind`'s
        # (proto 0, the default) and their accepted connections are not.
        connection = transport.get_extra_info("socket")
        if connection is not None and connection.family in (socket.AF_INET, socket.AF_INET6):
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        self.conn.receive_data(data)
        self.handle_events()

    def timeout_keep_alive_handler(self) -> None:
        if self.conn.their_state is h11.SEND_BODY:
            return  # a body is being read: the app bounds that (uvicorn disarms the timer first, so never seen)
        self.transport.abort()  # connection_lost then updates h11's state


class WorkerASGI:
    """The ASGI app: checks a request's head (token, declared size), reads its body with each wait bounded, and runs
    `WorkerApplication.handle` (JSON parsing and encoding included) on a handler thread."""

    def __init__(self, application: WorkerApplication, request_timeout: float = REQUEST_TIMEOUT, handler_threads: int = HANDLER_THREADS) -> None:
        self.application = application
        self.request_timeout = request_timeout
        self.threads = DaemonThreadPool(handler_threads)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan is off and websockets are not served
        method: str = scope["method"]
        path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            path += "?" + scope["query_string"].decode("latin-1")
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        # A body left unread (a refusal from the head alone, or a method that takes none) is not drained: the
        # connection closes after the answer.
        has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        try:
            self.authorize(path, headers)
            if method == "POST":
                raw: bytes | None = await self.read_body(receive, self.declared_length(headers))
                has_body = False
            else:
                raw = None
            if method == "GET" and path.split("?", 1)[0].rstrip("/") == "/health":
                status, data, content_type = self.respond(method, path, raw)  # no engine call: answered even when every thread waits
            else:
                status, data, content_type = await asyncio.wrap_future(self.threads.submit(lambda: self.respond(method, path, raw)))
        except ClientGone:
            return
        except WorkerError as error:
            status, data, content_type = encode(error.status, error.to_json())
        response_headers = [(b"content-type", content_type), (b"content-length", str(len(data)).encode())]
        if has_body:
            response_headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": data})

    def authorize(self, path: str, headers: dict[str, str]) -> None:
        """Every route but /health needs `Authorization: Bearer KEY` when the worker has a key (401 otherwise)."""
        key = self.application.api_key
        if key is None or path.split("?", 1)[0].rstrip("/") == "/health":
            return
        if not hmac.compare_digest(headers.get("authorization", "").encode(), f"Bearer {key}".encode()):
            raise Unauthorized("missing or wrong bearer token (Authorization: Bearer …)", "Authorization", None)

    def declared_length(self, headers: dict[str, str]) -> int:
        """The body's Content-Length (h11 has checked its syntax), refused with 413 over the limit before any is read."""
        value = headers.get("content-length")
        if value is None or "transfer-encoding" in headers:
            raise BadRequest("Content-Length is required", "Content-Length", None)
        try:
            length = int(value)
        except ValueError as error:
            raise BadRequest("Content-Length must be an integer", "Content-Length", value) from error
        limit = self.application.max_request_bytes
        if length > limit:
            raise PayloadTooLarge(f"the body has {length} bytes, over the worker's limit of {limit}", "Content-Length", length)
        return length

    async def read_body(self, receive: Receive, length: int) -> bytes:
        """The whole body; 408 when none of it arrives for `request_timeout` seconds."""
        chunks: list[bytes] = []
        received = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.request_timeout)
            except asyncio.TimeoutError:
                raise RequestTimeout(
                    f"the body stopped arriving: {received} of {length} bytes, then nothing for {self.request_timeout:g} s", "body", None
                ) from None
            if message["type"] == "http.disconnect":
                raise ClientGone()
            chunk = message.get("body", b"")
            received += len(chunk)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def respond(self, method: str, path: str, raw: bytes | None) -> tuple[int, bytes, bytes]:
        """Parses, handles and encodes one request (on a handler thread): the status, the body and its content type."""
        try:
            body = None
            if raw is not None:
                try:
                    body = json.loads(raw) if raw else {}
                except (json.JSONDecodeError, UnicodeDecodeError) as error:
                    raise BadRequest(f"the body is not JSON: {error}", "body", None) from error
            status, payload = self.application.handle(method, path, body)
        except WorkerError as error:
            status, payload = error.status, error.to_json()
        except Exception as error:  # the worker answers 500 and keeps serving
            log.error("request %s %s failed:\n%s", method, path, traceback.format_exc())
            status = 500
            payload = {"error": {"message": f"{type(error).__name__}: {error}", "type": "internal_error", "param": None}}
        return encode(status, payload)


def encode(status: int, payload: Any) -> tuple[int, bytes, bytes]:
    """A text answer as text/plain (load/unload adapter, as vLLM), anything else as strict JSON."""
    if isinstance(payload, str):
        return status, payload.encode("utf-8"), b"text/plain; charset=utf-8"
    try:
        text = json.dumps(payload, allow_nan=False)
    except ValueError:  # a NaN or infinity somewhere: only then walk the payload (13,000 logprobs take 5 ms to walk)
        text = json.dumps(finite_json(payload), allow_nan=False)
    return status, text.encode("utf-8"), b"application/json"


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handling: `python -m trace_worker serve` installs its own (a clean stop that
    then tells the other ranks), and uvicorn's would re-raise the signal after the shutdown."""

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()


class WorkerServer:
    """uvicorn serving the application on a socket bound at construction, so `server_address` names the port (port 0
    picks a free one) before serving starts. `serve_forever` runs it on the calling thread; `shutdown` stops it from
    any thread and waits until it has stopped."""

    def __init__(
        self,
        application: WorkerApplication,
        host: str,
        port: int,
        request_timeout: float = REQUEST_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        handler_threads: int = HANDLER_THREADS,
        shutdown_grace: float = SHUTDOWN_GRACE,
    ) -> None:
        self.application = application
        self.socket = bind(host, port)
        self.server_address: tuple[str, int] = self.socket.getsockname()[:2]
        config = uvicorn.Config(
            WorkerASGI(application, request_timeout, handler_threads),
            http=_HeadTimeoutProtocol,
            ws="none",
            lifespan="off",
            interface="asgi3",
            loop="asyncio",
            log_config=None,
            access_log=False,
            proxy_headers=False,
            server_header=False,
            headers=[("server", "trace-worker")],
            limit_concurrency=max_connections,
            backlog=BACKLOG,
            timeout_keep_alive=request_timeout,  # type: ignore[arg-type]  # a float works (loop.call_later)
            timeout_graceful_shutdown=shutdown_grace,  # type: ignore[arg-type]
        )
        self.server = _Server(config)
        self._serving = threading.Event()
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        self._serving.set()
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        self.server.should_exit = True
        if self._serving.is_set():
            self._stopped.wait()

    def server_close(self) -> None:
        self.socket.close()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (IPv6 when the host is an IPv6 literal); raises OSError (e.g. address in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def finite_json(value: Any) -> Any:
    """JSON has no NaN or infinity: non-finite numbers (e.g. the loss of a diverged step) are sent as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item) for item in value]
    return value
