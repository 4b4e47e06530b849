"""Does `trace_worker serve --deterministic` make training repeatable on this machine's accelerator?

Starts four workers on one checkpoint at once, two with `--deterministic` and two without, gives each the same trainer
calls through HTTP (a fresh LoRA adapter with a fixed seed, then STEPS cross-entropy steps on fixed random token
sequences, micro-batched as the trainer does), saves each adapter and prints one table: per worker the loss of every
step and a digest of the saved weights, and whether the two workers of each mode agree bit for bit.

    python3 scripts/deterministic-check.py --model models/mini-v2-base [--steps 20 --sequences 64 --length 512]

Needs the worker's requirements (on the device: `bash scripts/worker-wheels.sh install python3`, carry .device/wheels).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import http.client
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def serve(model: str, deterministic: bool) -> tuple[subprocess.Popen[str], int]:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "worker"), os.environ.get("PYTHONPATH")])))
    environment.pop("CUBLAS_WORKSPACE_CONFIG", None)
    command = [sys.executable, "-m", "trace_worker", "serve", "--model", model, "--port", "0", *(["--deterministic"] if deterministic else [])]
    process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"on http://127\.0\.0\.1:(\d+) ", line)
    if match is None:
        process.kill()
        raise SystemExit(f"the worker did not start: {line!r}")
    return process, int(match.group(1))


def call(port: int, path: str, body: Any = None) -> Any:
    """POST `body` to `path` (GET when there is none); returns the JSON answer, or stops on anything but 200."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.request("GET" if body is None else "POST", path, body=None if body is None else json.dumps(body), headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        if response.status != 200:
            raise SystemExit(f"{path} answered {response.status}: {answer}")
        return answer
    finally:
        connection.close()


def train(model: str, deterministic: bool, datums: list[dict[str, Any]], steps: int, directory: Path) -> dict[str, Any]:
    process, port = serve(model, deterministic)
    try:
        health = call(port, "/health")
        call(port, "/v1/trainer/create_adapter", {"name": "check", "rank": 16, "seed": 0})
        losses = []
        for _ in range(steps):
            answer = call(port, "/v1/trainer/forward_backward", {"adapter": "check", "loss": "cross_entropy", "datums": datums, "return_logprobs": False})
            losses.append(answer["loss"])
            call(port, "/v1/trainer/optim_step", {"adapter": "check", "learning_rate": 1e-3})
        call(port, "/v1/trainer/save_adapter", {"adapter": "check", "path": str(directory)})
        digest = hashlib.sha256((directory / "adapter_model.safetensors").read_bytes()).hexdigest()[:16]
        return {"deterministic": health.get("deterministic"), "device": health["device"], "kernels": health.get("fused_kernels"), "losses": losses, "digest": digest}
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--sequences", type=int, default=64)
    parser.add_argument("--length", type=int, default=512)
    arguments = parser.parse_args()
    vocabulary = json.loads((Path(arguments.model) / "config.json").read_text())["vocab_size"]
    generator = random.Random(0)
    datums = []
    for _ in range(arguments.sequences):
        tokens = [generator.randrange(10, vocabulary) for _ in range(generator.randint(arguments.length // 2, arguments.length))]
        datums.append({"tokens": tokens[:-1], "target_tokens": tokens[1:]})
    runs = [("deterministic", True, 1), ("deterministic", True, 2), ("plain", False, 1), ("plain", False, 2)]
    with tempfile.TemporaryDirectory() as scratch, concurrent.futures.ThreadPoolExecutor(len(runs)) as pool:
        futures = {(mode, run): pool.submit(train, arguments.model, flag, datums, arguments.steps, Path(scratch) / f"{mode}-{run}") for mode, flag, run in runs}
        results = {key: future.result() for key, future in futures.items()}
    print(f"device {results[('plain', 1)]['device']}, kernels {results[('plain', 1)]['kernels']}, {arguments.steps} steps of {arguments.sequences} sequences up to {arguments.length} tokens")
    print("| worker | /health deterministic | loss, first step | loss, last step | weights sha256 |")
    print("|---|---|---|---|---|")
    for (mode, run), result in results.items():
        print(f"| {mode} {run} | {result['deterministic']} | {result['losses'][0]:.10f} | {result['losses'][-1]:.10f} | {result['digest']} |")
    print()
    print("| mode | steps with equal losses | same weights |")
    print("|---|---|---|")
    for mode in ("deterministic", "plain"):
        first, second = results[(mode, 1)], results[(mode, 2)]
        equal = sum(1 for left, right in zip(first["losses"], second["losses"]) if left == right)
        print(f"| {mode} | {equal}/{arguments.steps} | {'yes' if first['digest'] == second['digest'] else 'no'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
