"""Where one SFT step of the base stage spends its time: `forward_backward` (cross-entropy) + `optim_step` through the
worker's trainer HTTP API, at the tiny shape of a TRACE-mini configuration (`model.initTiny`, `model.sft.rank`), split
into its parts. Prints one markdown table per shape.

    .venv/bin/python worker/benchmarks/sft_step.py [--config configs/mini-v2-gpu.json] [--datums 64] [--tokens 205]
        [--weighted-share 0.35] [--steps 8] [--threads 1] [--shape config|overhead|both] [--no-return-logprobs] [--rank R]

The parts are timed inside the real calls (wrappers around the trainer's own functions, hooks on the decoder), so the
benchmark measures the code as it is: JSON decode of the request body, datum validation, datum → tensor building, the
decoder's forward, the output layer's logprobs, the backward pass, the rest of `forward_backward` (loss, per-token
logprobs to Python lists), the response's JSON encoding, `optim_step`; and the same step as HTTP requests to an
in-process worker server (uvicorn, keep-alive connection), whose excess over the parts is the transport (in CPU time;
the step's wall time is given beside it, because a wait such as a delayed TCP ACK costs no CPU time). `aten ops`
counts the operators one step dispatches (torch.profiler): on a GPU each is at least one kernel launch, so at this size
it, not arithmetic, sets the step's time there. Each figure is the minimum over `--steps` steps after one warm-up step,
in process CPU time on a CPU (every thread of this process: client, server, engine; wall time swung ±40% on a shared
2-core machine) and wall time on a GPU. `--threads 1` by default: two intra-op threads on a shared 2-core machine made
the same step vary fourfold.

`--shape overhead` is a 1-layer × 64 model (LoRA rank 64, equal to its width as in the mini configuration) whose
compute is small enough that the per-step overhead shows (`both`: the two); `--no-return-logprobs` sends
`return_logprobs: false`, as the TypeScript SFT loop does (only weighted tokens through the output layer, no per-token
logprobs sent back)."""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trace_worker.trainer as trainer_module  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.server import WorkerApplication, WorkerServer, encode  # noqa: E402
from trace_worker.tiny_checkpoint import TinyModelShape, create_tiny_checkpoint  # noqa: E402
from trace_worker.trainer import Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: The clock: this process's CPU time (all its threads: the HTTP client, the server's and the engine's) on a CPU, which
#: other processes on a shared machine disturb far less than wall time; wall time on a GPU (`--clock`).
now = time.process_time


@dataclass
class Clock:
    """Seconds spent per part during one step (wrappers add to it)."""

    seconds: dict[str, float] = field(default_factory=dict)
    marks: dict[str, float] = field(default_factory=dict)

    def add(self, part: str, value: float) -> None:
        self.seconds[part] = self.seconds.get(part, 0.0) + value


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


@contextmanager
def instrumented(trainer: Trainer, clock: Clock) -> Iterator[None]:
    """Times validation, tensor building, decoder forward, output layer and backward inside the trainer's own calls."""
    device = trainer.engine.device
    decoder, _head = trainer.engine.decoder_and_head()
    original_parse = trainer_module.parse_datums
    original_logprobs = Trainer._logprobs
    original_backward = torch.autograd.backward

    def parse(*args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            return original_parse(*args, **kwargs)
        finally:
            clock.add("validate datums", now() - started)

    def logprobs(self: Trainer, *args: Any, **kwargs: Any) -> Any:
        synchronize(device)
        clock.marks["logprobs"] = now()
        result = original_logprobs(self, *args, **kwargs)
        synchronize(device)
        clock.add("output layer logprobs", now() - clock.marks["decoder end"])
        return result

    def before_decoder(_module: Any, _args: Any) -> None:
        synchronize(device)
        moment = now()
        clock.add("datums → tensors", moment - clock.marks["logprobs"])
        clock.marks["decoder start"] = moment

    def after_decoder(_module: Any, _args: Any, _output: Any) -> None:
        synchronize(device)
        moment = now()
        clock.add("decoder forward", moment - clock.marks["decoder start"])
        clock.marks["decoder end"] = moment

    def backward(*args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            return original_backward(*args, **kwargs)
        finally:
            synchronize(device)
            clock.add("backward", now() - started)

    handles = [decoder.register_forward_pre_hook(before_decoder), decoder.register_forward_hook(after_decoder)]
    trainer_module.parse_datums = parse  # type: ignore[assignment]
    Trainer._logprobs = logprobs  # type: ignore[method-assign]
    torch.autograd.backward = backward  # type: ignore[assignment]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()
        trainer_module.parse_datums = original_parse
        Trainer._logprobs = original_logprobs  # type: ignore[method-assign]
        torch.autograd.backward = original_backward


def sft_datums(count: int, mean_tokens: int, weighted_share: float, vocabulary: int, seed: int) -> list[dict[str, Any]]:
    """Datums shaped like the base stage's: lengths within ±25% of the mean, assistant spans carrying weight
    1 / (the batch's weighted tokens), as `runSft` scales them, zero elsewhere."""
    generator = random.Random(seed)
    datums = []
    for _ in range(count):
        length = generator.randint(int(mean_tokens * 0.75), int(mean_tokens * 1.25))
        ids = [generator.randrange(vocabulary) for _ in range(length + 1)]
        weights = [0.0] * length
        span = 16
        gap = max(1, round(span / weighted_share)) - span
        for start in range(generator.randrange(gap + 1), length, span + gap):
            for position in range(start, min(length, start + span)):
                weights[position] = 1.0
        datums.append({"tokens": ids[:-1], "target_tokens": ids[1:], "weights": weights})
    total = sum(sum(datum["weights"]) for datum in datums)
    for datum in datums:
        datum["weights"] = [weight / total for weight in datum["weights"]]
    return datums


def checkpoint(shape: TinyModelShape, directory: Path) -> Path:
    path = directory / f"tiny-{shape.layers}x{shape.hidden_size}"
    if not (path / "config.json").is_file():
        create_tiny_checkpoint(path, shape)
    return path


def measure(shape: TinyModelShape, rank: int, args: argparse.Namespace, directory: Path) -> tuple[list[list[str]], dict[str, Any]]:
    engine = Engine(checkpoint(shape, directory), device=args.device)
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "sft", "rank": rank, "alpha": rank, "seed": 0})
    batches = [sft_datums(args.datums, args.tokens, args.weighted_share, shape.vocab_size, seed) for seed in range(args.steps + 1)]
    extra = {} if args.return_logprobs else {"return_logprobs": False}
    bodies = [json.dumps({"adapter": "sft", "loss": "cross_entropy", "datums": datums, **extra}).encode() for datums in batches]
    optim = {"adapter": "sft", "learning_rate": 1e-3}
    tokens = sum(len(datum["tokens"]) for datum in batches[0])
    weighted = sum(1 for datum in batches[0] for weight in datum["weights"] if weight)

    # The same steps in process, part by part, and as HTTP requests to the real server, interleaved so that a
    # disturbance from other processes hits both alike.
    application = WorkerApplication(engine, max_request_bytes=256 << 20)
    application.trainer = trainer
    server = WorkerServer(application, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=600)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as Node's fetch does

    def post(path: str, raw: bytes) -> bytes:
        connection.request("POST", path, body=raw, headers={"content-type": "application/json"})
        response = connection.getresponse()
        payload = response.read()
        assert response.status == 200, payload[:300]
        return payload

    samples: list[dict[str, float]] = []
    http_seconds: list[float] = []
    http_wall: list[float] = []  # wall time too: waits (e.g. a delayed TCP ACK) cost no CPU time
    response_bytes = 0
    for index, raw in enumerate(bodies):
        clock = Clock()
        with instrumented(trainer, clock):
            started = now()
            body = json.loads(raw)
            clock.add("JSON decode (request)", now() - started)
            started = now()
            result = trainer.forward_backward(body)
            synchronize(engine.device)
            total = now() - started
            named = ("validate datums", "datums → tensors", "decoder forward", "output layer logprobs", "backward")
            clock.add("loss, logprobs to lists, rest", total - sum(clock.seconds.get(part, 0.0) for part in named))
            started = now()
            encode(200, result)
            clock.add("JSON encode (response)", now() - started)
            started = now()
            trainer.optim_step(optim)
            synchronize(engine.device)
            clock.add("optim_step", now() - started)
        started, wall_started = now(), time.perf_counter()
        response_bytes = len(post("/v1/trainer/forward_backward", raw))
        post("/v1/trainer/optim_step", json.dumps(optim).encode())
        if index > 0:
            samples.append(clock.seconds)
            http_seconds.append(now() - started)
            http_wall.append(time.perf_counter() - wall_started)
    connection.close()
    server.shutdown()
    server.server_close()

    # The per-call floor: a forward_backward too small for arithmetic to count (1 datum × 16 tokens) still dispatches
    # every operator of the model once; on a GPU, where the arithmetic of a tiny model takes milliseconds, this host
    # work (Python, operator dispatch, and there a kernel launch each) is what one micro-batch costs at the least.
    tiny = {"adapter": "sft", "loss": "cross_entropy", "datums": [{"tokens": list(range(16)), "target_tokens": list(range(1, 17)), "weights": [1.0] * 16}], **extra}
    floor: list[float] = []
    for _ in range(6):
        started = now()
        trainer.forward_backward(tiny)
        synchronize(engine.device)
        floor.append(now() - started)
    for parameter in engine.adapter("sft").parameters:
        parameter.grad = None

    with profile(activities=[ProfilerActivity.CPU]) as trace:
        trainer.forward_backward(json.loads(bodies[0]))
        trainer.optim_step(optim)
    operators = sum(event.count for event in trace.key_averages() if event.key.startswith("aten::"))

    parts = [
        "JSON decode (request)", "validate datums", "datums → tensors", "decoder forward", "output layer logprobs", "backward",
        "loss, logprobs to lists, rest", "JSON encode (response)", "optim_step",
    ]
    best = {part: min(sample.get(part, 0.0) for sample in samples) for part in parts}
    in_process = min(sum(sample.get(part, 0.0) for part in parts) for sample in samples)
    over_http = min(http_seconds)
    rows = [[part, f"{1000 * best[part]:.1f}"] for part in parts]
    rows.append(["**sum of parts (in process)**", f"**{1000 * in_process:.1f}**"])
    rows.append(["HTTP transport (step over HTTP − in process)", f"{1000 * (over_http - in_process):.1f}"])
    rows.append(["**one step over HTTP** (forward_backward + optim_step)", f"**{1000 * over_http:.1f}**"])
    rows.append(["one step over HTTP, wall time (the machine's other load included)", f"{1000 * min(http_wall):.1f}"])
    rows.append(["per-call floor: forward_backward of 1 datum × 16 tokens", f"{1000 * min(floor[1:]):.1f}"])
    facts = {
        "datums": args.datums, "tokens": tokens, "weighted tokens": weighted, "request bytes": len(bodies[0]), "response bytes": response_bytes,
        "aten ops per step": operators, "adapter parameters": engine.adapter("sft").trainable_parameters,
    }
    return rows, facts


def table(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "mini-v2-gpu.json"))
    parser.add_argument("--datums", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=205, help="mean tokens per datum")
    parser.add_argument("--weighted-share", type=float, default=0.35, help="share of tokens with a non-zero weight (assistant turns)")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--shape", choices=["config", "overhead", "both"], default="config", help="the configuration's model, a 1-layer × 64 one, or both")
    parser.add_argument("--no-return-logprobs", dest="return_logprobs", action="store_false")
    parser.add_argument("--rank", type=int, help="LoRA rank of the configuration's shape (default: model.sft.rank)")
    parser.add_argument("--clock", choices=["cpu", "wall"], help="cpu: process CPU time (default on a CPU); wall: elapsed time (default on a GPU)")
    parser.add_argument("--checkpoints", help="directory to keep the tiny checkpoints in between runs (default: a temporary one)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    global now
    clock = args.clock or ("wall" if args.device.startswith("cuda") else "cpu")
    now = time.perf_counter if clock == "wall" else time.process_time
    config = json.loads(Path(args.config).read_text(encoding="utf-8"))
    tiny, sft = config["model"]["initTiny"], config["model"]["sft"]
    mini = TinyModelShape(
        vocab_size=tiny["vocabSize"], hidden_size=tiny["hiddenSize"], layers=tiny["layers"], attention_heads=tiny["attentionHeads"],
        key_value_heads=tiny["keyValueHeads"], head_dim=tiny["headDim"], intermediate_size=tiny["intermediateSize"],
        tie_embeddings=bool(tiny.get("tieEmbeddings", False)),
    )
    rank = args.rank or int(sft["rank"])
    shapes: list[tuple[str, TinyModelShape, int]] = []
    if args.shape != "overhead":
        shapes.append((f"{mini.layers} × {mini.hidden_size} (LoRA rank {rank})", mini, rank))
    if args.shape != "config":
        small = TinyModelShape(vocab_size=mini.vocab_size, hidden_size=64, layers=1, attention_heads=4, key_value_heads=2, head_dim=16, intermediate_size=192, tie_embeddings=mini.tie_embeddings)
        shapes.append(("1 × 64 (LoRA rank 64)", small, 64))
    print(f"torch {torch.__version__}, {args.device}, {torch.get_num_threads()} thread(s), {clock} clock; return_logprobs {str(args.return_logprobs).lower()}")
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(args.checkpoints or scratch)
        for label, shape, shape_rank in shapes:
            rows, facts = measure(shape, shape_rank, args, directory)
            print(f"\n## {label}: " + ", ".join(f"{key} {value}" for key, value in facts.items()) + "\n")
            print(table(rows, ["part of one SFT step", "ms (min)"]))


if __name__ == "__main__":
    main()
