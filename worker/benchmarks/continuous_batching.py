"""Continuous batching against static waves, each without and with the prefix cache, on a mixed workload, side by
side in one run.

The workload is what rollouts send: `clients` agents, each running `turns` turns one after another (a turn's prompt is
the conversation so far, so prompts grow), with completion lengths drawn from a skewed distribution (most turns are
short, a few long). Both modes serve the same requests through the worker's executor; the table gives wall time,
generated tokens per second and per-request latency.

    python -m benchmarks.continuous_batching [--model DIR] [--device cpu|cuda] [--clients 16] [--turns 4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trace_worker.engine import Engine  # noqa: E402
from trace_worker.executor import EngineExecutor  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402
from trace_worker.tiny_checkpoint import TinyModelShape, create_tiny_checkpoint  # noqa: E402

SHIPPED_BASE = Path(__file__).resolve().parents[2] / "models" / "mini-v2-base"


@dataclass
class Turn:
    prompt_ids: list[int]
    max_tokens: int


def workload(vocabulary: int, clients: int, turns: int, seed: int, first_prompt: tuple[int, int] = (200, 500), growth: int = 60) -> list[list[Turn]]:
    """Per client, its turns: prompts of random token ids that grow turn by turn; completion lengths 70% short (4–16),
    30% long (48–128)."""
    generator = random.Random(seed)
    plan: list[list[Turn]] = []
    for _client in range(clients):
        prompt = [generator.randrange(10, vocabulary) for _ in range(generator.randint(*first_prompt))]
        client: list[Turn] = []
        for _turn in range(turns):
            length = generator.randint(4, 16) if generator.random() < 0.7 else generator.randint(48, 128)
            client.append(Turn(list(prompt), length))
            prompt = prompt + [generator.randrange(10, vocabulary) for _ in range(growth)]
        plan.append(client)
    return plan


def serve(engine: Engine, plan: list[list[Turn]], continuous: bool, max_batch_size: int, prefix_cache: bool = True) -> dict[str, Any]:
    """Runs every client's turns in order against one executor; returns wall time and latencies."""
    sampler = Sampler(engine, cuda_graphs=engine.device.type == "cuda", prefix_cache_bytes=(512 << 20) if prefix_cache else 0)
    executor = EngineExecutor(sampler, max_batch_size=max_batch_size, continuous=continuous)
    latencies: list[float] = []
    generated = [0]
    lock = threading.Lock()

    def client(turns: list[Turn], index: int) -> None:
        for number, turn in enumerate(turns):
            started = time.perf_counter()
            result = executor.sample(SamplingRequest(prompt_ids=turn.prompt_ids, max_tokens=turn.max_tokens, temperature=1.0, seed=index * 1000 + number))
            with lock:
                latencies.append(time.perf_counter() - started)
                generated[0] += len(result.completion_ids)

    threads = [threading.Thread(target=client, args=(turns, index)) for index, turns in enumerate(plan)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    executor.stop()
    latencies.sort()
    return {
        "mode": ("continuous" if continuous else "static waves") + ("" if prefix_cache else ", no prefix cache"),
        "wall_s": wall,
        "tokens": generated[0],
        "tokens_per_s": generated[0] / wall,
        "mean_latency_s": statistics.fmean(latencies),
        "p90_latency_s": latencies[int(0.9 * (len(latencies) - 1))],
        "prefills": executor.sampling_batches,
        "prompt tokens from the prefix cache": f"{sampler.prefixes.reused_tokens / max(1, sampler.prompt_tokens):.0%}",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=SHIPPED_BASE if (SHIPPED_BASE / "config.json").exists() else None, help="checkpoint directory (default: the shipped mini-v2 base, else a tiny random one)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--max-batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="each mode runs this many times; the run of median wall time is reported")
    arguments = parser.parse_args()
    model = arguments.model
    if model is None:
        model = create_tiny_checkpoint(Path(tempfile.mkdtemp()) / "tiny", TinyModelShape(seed=1))
    engine = Engine(model, device=arguments.device, dtype=arguments.dtype)
    engine.stop_token_ids = []  # every turn generates exactly its drawn length in both modes
    vocabulary = int(engine.base.get_output_embeddings().weight.shape[0])
    serve(engine, workload(vocabulary, 2, 1, seed=arguments.seed + 1), True, arguments.max_batch_size)  # warm-up
    plan = workload(vocabulary, arguments.clients, arguments.turns, arguments.seed)
    rows = []
    for prefix_cache in (False, True):
        for continuous in (False, True):
            runs = sorted((serve(engine, plan, continuous, arguments.max_batch_size, prefix_cache) for _ in range(arguments.repeats)), key=lambda row: row["wall_s"])
            rows.append(runs[len(runs) // 2])
    device = torch.cuda.get_device_name() if engine.device.type == "cuda" else f"CPU ({torch.get_num_threads()} threads)"
    print(f"## continuous batching vs static waves: {model.name}, {device}, {arguments.clients} clients x {arguments.turns} turns, median of {arguments.repeats}")
    print("| mode | wall s | generated tokens | tokens/s | mean latency s | p90 latency s | prefill calls | prompt tokens from the prefix cache | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['mode']} | {row['wall_s']:.2f} | {row['tokens']} | {row['tokens_per_s']:.0f} | {row['mean_latency_s']:.3f} | "
            f"{row['p90_latency_s']:.3f} | {row['prefills']} | {row['prompt tokens from the prefix cache']} | {rows[0]['wall_s'] / row['wall_s']:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
