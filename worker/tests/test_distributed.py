"""`torchrun --nproc-per-node 2` on CPU (gloo): datums split across ranks, gradients all-reduced, and the result equals
one process training on all the datums."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from trace_worker.engine import Engine
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, low_precision

WORKER_DIRECTORY = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, body: Any) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def datums() -> list[dict[str, Any]]:
    sequences = [[5, 9, 13, 200, 7, 8], [300, 4, 4, 4], [17, 18, 19, 20, 21, 22, 23, 24], [2, 3, 900], [60, 61, 62, 63, 64]]
    return [
        {"tokens": sequence[:-1], "target_tokens": sequence[1:], "sampling_logprobs": [-7.0] * (len(sequence) - 1), "advantages": [(-1.0) ** index] * (len(sequence) - 1)}
        for index, sequence in enumerate(sequences)
    ]


def gpus() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@pytest.mark.skipif(DEVICE != "cpu" and gpus() < 2, reason="needs two GPUs (NCCL) or the CPU (gloo)")
def test_two_ranks_train_exactly_like_one_process(tiny_checkpoint: Path) -> None:
    port = free_port()
    environment = dict(os.environ, PYTHONPATH=str(WORKER_DIRECTORY), OMP_NUM_THREADS="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m", "trace_worker", "serve",
         "--model", str(tiny_checkpoint), "--port", str(port), "--device", "cpu" if DEVICE == "cpu" else "auto", "--dtype", DTYPE, "--micro-batch-tokens", "8"],
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        health = None
        while time.time() < deadline:
            if process.poll() is not None:
                pytest.fail(f"torchrun exited: {process.stdout.read() if process.stdout else ''}")
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as response:
                    health = json.loads(response.read())
                    break
            except OSError:
                time.sleep(0.5)
        assert health is not None and health["world_size"] == 2
        post(url + "/v1/trainer/create_adapter", {"name": "shared", "rank": 4, "seed": 1})
        first = post(url + "/v1/trainer/forward_backward", {"adapter": "shared", "loss": "ppo", "datums": datums()})
        step = post(url + "/v1/trainer/optim_step", {"adapter": "shared", "learning_rate": 1e-2})
        post(url + "/v1/trainer/forward_backward", {"adapter": "shared", "loss": "ppo", "datums": datums()})
        post(url + "/v1/trainer/optim_step", {"adapter": "shared", "learning_rate": 1e-2})
        distributed = post(url + "/v1/trainer/forward", {"adapter": "shared", "datums": datums()})["logprobs"]
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()

    single = Trainer(Engine(tiny_checkpoint, device=DEVICE, dtype=DTYPE))
    single.create_adapter({"name": "shared", "rank": 4, "seed": 1})
    expected_first = single.forward_backward({"adapter": "shared", "loss": "ppo", "datums": datums()})
    expected_step = single.optim_step({"adapter": "shared", "learning_rate": 1e-2})
    single.forward_backward({"adapter": "shared", "loss": "ppo", "datums": datums()})
    single.optim_step({"adapter": "shared", "learning_rate": 1e-2})
    expected = single.forward({"adapter": "shared", "datums": datums()})["logprobs"]

    assert first["tokens"] == expected_first["tokens"]
    close = 1e-4 if not low_precision() else 1e-1
    assert first["loss"] == pytest.approx(expected_first["loss"], abs=close, rel=close)
    for mine, reference in zip(first["logprobs"], expected_first["logprobs"]):
        assert max(abs(x - y) for x, y in zip(mine, reference)) < close / 10
    assert step["grad_norm"] == pytest.approx(expected_step["grad_norm"], rel=close)
    for mine, reference in zip(distributed, expected):
        assert max(abs(x - y) for x, y in zip(mine, reference)) < close
