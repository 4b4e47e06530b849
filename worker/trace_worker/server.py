"""The worker's HTTP server (stdlib `http.server`; the protocol is worker/PROTOCOL.md)."""

from __future__ import annotations

import hmac
import json
import logging
import math
import time
import traceback
import uuid
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from .chat_format import parse_completion, render_prompt
from .collective import Collective
from .engine import Engine
from .errors import BadRequest, Forbidden, NotFound, PayloadTooLarge, Unauthorized, WorkerError
from .executor import EngineExecutor
from .fields import number_field
from .sampler import Sampler, SamplingRequest, SamplingResult, finite, token_text
from .trainer import Trainer

log = logging.getLogger("trace_worker")

TRAINER_CALLS = ("create_adapter", "delete_adapter", "merge_adapters", "forward_backward", "forward", "optim_step", "save_adapter", "save_state", "load_state", "export_merged")


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

    # -- calls that every rank runs -----------------------------------------------------------------------------

    def run_everywhere(self, operation: str, body: dict[str, Any]) -> Any:
        """Runs a state-changing call on the engine thread, first telling the other ranks (if any) to run it too."""

        def task() -> Any:
            if self.collective.world_size > 1:
                self.collective.broadcast_object((operation, body))
            return perform(self.trainer, operation, body)

        return self.executor.call(task)

    # -- routes -------------------------------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        route = path.split("?", 1)[0].rstrip("/")
        if method == "GET":
            if route == "/health":
                return 200, self.health()
            if route == "/v1/models":
                return 200, self.models()
            if route == "/v1/trainer/adapters":
                return 200, self.executor.call(self.trainer.list_adapters)
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
            "sampling_batches": self.executor.sampling_batches,
            "largest_batch": self.executor.largest_batch,
        }

    def models(self) -> dict[str, Any]:
        names = self.executor.call(self.engine.model_names)
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
    return method(body)


def make_handler(application: WorkerApplication) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "trace-worker"
        # Headers and body go out in two writes: with Nagle's algorithm on, the body waits for the client's delayed
        # ACK of the headers (~40 ms per request, which capped sequential trainer and tokenize calls at ~25/s).
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s " + format, self.address_string(), *args)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

        def _serve(self, method: str) -> None:
            try:
                body = self._read_body(method)
                if application.api_key is not None and self.path.split("?", 1)[0].rstrip("/") != "/health":
                    header = self.headers.get("Authorization", "")
                    if not hmac.compare_digest(header.encode(), f"Bearer {application.api_key}".encode()):
                        raise Unauthorized("missing or wrong bearer token (Authorization: Bearer …)", "Authorization", None)
                status, payload = application.handle(method, self.path, body)
            except WorkerError as error:
                status, payload = error.status, error.to_json()
            except Exception as error:  # the worker answers 500 and keeps serving
                log.error("request %s %s failed:\n%s", method, self.path, traceback.format_exc())
                status = 500
                payload = {"error": {"message": f"{type(error).__name__}: {error}", "type": "internal_error", "param": None}}
            self._send(status, payload)

        def _read_body(self, method: str) -> Any:
            if method != "POST":
                return None
            length_header = self.headers.get("Content-Length")
            if length_header is None:
                raise BadRequest("Content-Length is required", "Content-Length", None)
            try:
                length = int(length_header)
            except ValueError as error:
                raise BadRequest("Content-Length must be an integer", "Content-Length", length_header) from error
            if length > application.max_request_bytes:
                self.close_connection = True
                raise PayloadTooLarge(
                    f"the body has {length} bytes, over the worker's limit of {application.max_request_bytes}", "Content-Length", length
                )
            raw = self.rfile.read(length)
            try:
                return json.loads(raw) if raw else {}
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise BadRequest(f"the body is not JSON: {error}", "body", None) from error

        def _send(self, status: int, payload: Any) -> None:
            if isinstance(payload, str):
                data = payload.encode("utf-8")
                content_type = "text/plain; charset=utf-8"
            else:
                data = json.dumps(finite_json(payload), allow_nan=False).encode("utf-8")
                content_type = "application/json"
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class WorkerHTTPServer(ThreadingHTTPServer):
    """A threading server with a deep accept queue: many rollout workers connect at once."""

    request_queue_size = 1024
    daemon_threads = True


def create_server(application: WorkerApplication, host: str, port: int) -> ThreadingHTTPServer:
    return WorkerHTTPServer((host, port), make_handler(application))


def finite_json(value: Any) -> Any:
    """JSON has no NaN or infinity: non-finite numbers (e.g. the loss of a diverged step) are sent as null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item) for item in value]
    return value
