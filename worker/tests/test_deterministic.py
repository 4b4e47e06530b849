"""`serve --deterministic`: the worker process turns on PyTorch's deterministic algorithms and a fixed cuBLAS workspace,
says so in /health, and the same trainer calls give the same adapter twice (GPU runs are checked by
scripts/deterministic-check.sh; on a CPU the arithmetic is repeatable either way)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch

from trace_worker.engine import Engine
from trace_worker.server import WorkerApplication, perform

WORKER_DIRECTORY = Path(__file__).resolve().parents[1]


class ServedWorker:
    """`python -m trace_worker serve` in a child process, spoken to over HTTP."""

    def __init__(self, checkpoint: Path, *flags: str) -> None:
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(WORKER_DIRECTORY), os.environ.get("PYTHONPATH")])))
        environment.pop("TRACE_WORKER_PARENT_PID", None)
        environment.pop("CUBLAS_WORKSPACE_CONFIG", None)
        command = [sys.executable, "-m", "trace_worker", "serve", "--model", str(checkpoint), "--port", "0", "--device", "cpu", *flags]
        self.process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"on http://127\.0\.0\.1:(\d+) ", line)
        if match is None:
            self.close()
            raise AssertionError(line + (self.process.stderr.read() if self.process.stderr else ""))
        self.port = int(match.group(1))

    def call(self, method: str, path: str, body: Any = None) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            answer = json.loads(response.read())
            assert response.status == 200, answer
            return answer
        finally:
            connection.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture()
def deterministic(tiny_checkpoint: Path) -> Iterator[ServedWorker]:
    worker = ServedWorker(tiny_checkpoint, "--deterministic")
    yield worker
    worker.close()


def train(worker: ServedWorker, name: str) -> list[float]:
    """Three cross-entropy steps of a fresh adapter on fixed tokens; returns its logprobs of those tokens afterwards."""
    tokens = list(range(5, 29))
    datum = {"tokens": tokens[:-1], "target_tokens": tokens[1:]}
    worker.call("POST", "/v1/trainer/create_adapter", {"name": name, "rank": 4, "seed": 7})
    for _ in range(3):
        worker.call("POST", "/v1/trainer/forward_backward", {"adapter": name, "loss": "cross_entropy", "datums": [datum]})
        worker.call("POST", "/v1/trainer/optim_step", {"adapter": name, "learning_rate": 5e-3})
    logprobs: list[float] = worker.call("POST", "/v1/trainer/forward", {"adapter": name, "datums": [datum]})["logprobs"][0]
    return logprobs


def test_trainer_calls_run_with_deterministic_algorithms_and_the_setting_is_restored(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    application = WorkerApplication(engine)
    application.trainer.deterministic = True
    seen: list[bool] = []
    forward = application.trainer.forward

    def watched(body: dict[str, Any]) -> Any:
        seen.append(torch.are_deterministic_algorithms_enabled())
        return forward(body)

    monkeypatch.setattr(application.trainer, "forward", watched)
    before = torch.are_deterministic_algorithms_enabled()
    perform(application.trainer, "forward", {"datums": [{"tokens": [5, 6, 7], "target_tokens": [6, 7, 8]}]})
    assert seen == [True] and torch.are_deterministic_algorithms_enabled() == before
    application.trainer.deterministic = False
    perform(application.trainer, "forward", {"datums": [{"tokens": [5, 6, 7], "target_tokens": [6, 7, 8]}]})
    assert seen == [True, before]


def test_deterministic_serve_reports_it_and_repeats_training_exactly(deterministic: ServedWorker, tiny_checkpoint: Path) -> None:
    assert deterministic.call("GET", "/health")["deterministic"] is True
    served = deterministic.call("GET", "/v1/models")["data"][0]["id"]
    completion = deterministic.call("POST", "/v1/chat/completions", {"model": served, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4, "temperature": 0})
    assert completion["choices"][0]["message"] is not None, "sampling works beside deterministic training"
    first, second = train(deterministic, "first"), train(deterministic, "second")
    assert first == second
    untrained = deterministic.call("POST", "/v1/trainer/forward", {"datums": [{"tokens": list(range(5, 28)), "target_tokens": list(range(6, 29))}]})["logprobs"][0]
    assert first != untrained, "the steps changed nothing, so the comparison above says nothing"
    plain = ServedWorker(tiny_checkpoint)
    try:
        assert plain.call("GET", "/health")["deterministic"] is False
    finally:
        plain.close()
