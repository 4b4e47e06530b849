"""A worker served in-process on a free port, and a tiny JSON client for tests."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from trace_worker.engine import Engine
from trace_worker.server import MAX_CONNECTIONS, REQUEST_TIMEOUT, WorkerApplication, WorkerServer


class RunningWorker:
    def __init__(
        self,
        engine: Engine,
        api_key: str | None = None,
        max_request_bytes: int = 1 << 20,
        file_root: str | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.application = WorkerApplication(engine, api_key=api_key, max_request_bytes=max_request_bytes, file_root=file_root)
        self.server = WorkerServer(self.application, "127.0.0.1", 0, request_timeout=request_timeout, max_connections=max_connections)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.api_key = api_key

    def request(self, method: str, path: str, body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                payload = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as error:
            payload = error.read().decode()
            status = error.code
        try:
            return status, json.loads(payload)
        except json.JSONDecodeError:
            return status, payload

    def post(self, path: str, body: Any) -> Any:
        status, payload = self.request("POST", path, body)
        assert status == 200, payload
        return payload

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.application.executor.stop()
