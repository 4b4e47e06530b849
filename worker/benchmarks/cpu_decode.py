"""Decode-step time of the worker's sampler with and without its two decode-path changes, side by side in one run:
the growing KV cache (`growing_cache.py`, appends in place instead of concatenating) and the grouped decode attention
(`decode_attention.py`, no repeated key/value heads). One wave of `batch` rows with `prompt`-token prompts.

    python -m benchmarks.cpu_decode [--model DIR] [--batches 1 16 32] [--prompt 400] [--steps 40]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.continuous_batching import SHIPPED_BASE  # noqa: E402
from trace_worker import sampler as sampler_module  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402


def step_milliseconds(engine: Engine, batch: int, prompt: int, steps: int, growing: bool) -> float:
    generator = random.Random(batch)
    vocabulary = int(engine.base.get_output_embeddings().weight.shape[0])
    requests = [SamplingRequest(prompt_ids=[generator.randrange(10, vocabulary) for _ in range(prompt)], max_tokens=steps + 10, seed=index) for index in range(batch)]
    sampler = Sampler(engine, cuda_graphs=False)
    with mock.patch.object(sampler_module, "growing_cache", sampler_module.growing_cache if growing else (lambda _config: None)):
        sampler.admit(requests, list(range(batch)))
        for _ in range(5):
            sampler.step()
        started = time.perf_counter()
        for _ in range(steps):
            sampler.step()
        elapsed = time.perf_counter() - started
        sampler.waves.clear()
    return elapsed / steps * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=SHIPPED_BASE)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 32])
    parser.add_argument("--prompt", type=int, default=400)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3, help="the median of this many timings per cell")
    arguments = parser.parse_args()
    engine = Engine(arguments.model, device="cpu")
    engine.stop_token_ids = []
    grouped = engine.base.config._attn_implementation
    variants = [("transformers (concatenating cache, sdpa)", False, "sdpa"), ("+ growing cache", True, "sdpa"), ("+ grouped decode attention (worker)", True, grouped)]
    rows = []
    for label, growing, attention in variants:
        engine.base.set_attn_implementation(attention)
        rows.append((label, [statistics.median(step_milliseconds(engine, batch, arguments.prompt, arguments.steps, growing) for _ in range(arguments.repeats)) for batch in arguments.batches]))
    engine.base.set_attn_implementation(grouped)
    print(f"## decode step, ms, median of {arguments.repeats} ({arguments.model.name}, CPU, {torch.get_num_threads()} threads, {arguments.prompt}-token prompts)")
    print("| decode path | " + " | ".join(f"batch {batch}" for batch in arguments.batches) + " | speed-up at the largest batch |")
    print("|---|" + "---|" * len(arguments.batches) + "---|")
    for label, times in rows:
        print(f"| {label} | " + " | ".join(f"{value:.2f}" for value in times) + f" | {rows[0][1][-1] / times[-1]:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
