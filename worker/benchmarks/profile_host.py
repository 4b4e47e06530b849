"""Where the engine thread's host time goes on a GPU: Python profiles (cProfile, by own time) of eager decoding at
batch 1 and of the mixed workload (benchmarks/continuous_batching.py) in both batching modes, and the torch.profiler
view of one eager decode (host-side CUDA calls such as synchronisations and copies show there).

    python worker/benchmarks/profile_host.py [SHAPE]   # default qwen3-0.6b"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.continuous_batching import serve, workload  # noqa: E402
from benchmarks.gpu_report import tokenizer  # noqa: E402
from trace_worker import executor as executor_module  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import random_model  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402


def top(profiler: cProfile.Profile, rows: int = 22) -> str:
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(rows)
    return "\n".join(line[:160] for line in stream.getvalue().splitlines() if line.strip())


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "qwen3-0.6b"
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = random_model(shape, device, torch.bfloat16 if device.type == "cuda" else torch.float32)
    engine = Engine.from_model(model, tokenizer(), shape)
    engine.stop_token_ids = []
    sampler = Sampler(engine, cuda_graphs=False)
    request = [SamplingRequest(prompt_ids=list(range(10, 266)), max_tokens=32, temperature=1.0, seed=0)]
    sampler.generate(request)
    started = time.perf_counter()
    sampler.generate(request)
    print(f"## eager decode, batch 1: {(time.perf_counter() - started) / 32 * 1000:.1f} ms a token")
    profiler = cProfile.Profile()
    profiler.enable()
    sampler.generate(request)
    profiler.disable()
    print(top(profiler))
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as trace:
        sampler.generate(request)
    print(trace.key_averages().table(sort_by="self_cpu_time_total", row_limit=15, max_name_column_width=60))

    original = executor_module.EngineExecutor._run
    profilers: dict[str, cProfile.Profile] = {}

    def profiled_run(self: Any) -> None:
        profiler = profilers.setdefault(current[0], cProfile.Profile())
        profiler.enable()
        try:
            original(self)
        finally:
            profiler.disable()

    executor_module.EngineExecutor._run = profiled_run  # type: ignore[method-assign]
    current = [""]
    plan = workload(model.config.vocab_size, 16, 2, seed=0)
    serve(engine, workload(model.config.vocab_size, 2, 1, seed=1), True, 64)  # warm-up / capture
    for continuous in (False, True):
        current[0] = "continuous" if continuous else "static waves"
        row = serve(engine, plan, continuous, 64)
        print(f"## mixed workload 16 x 2, {current[0]}: {row['wall_s']:.2f} s, {row['prefills']} prefills")
        print(top(profilers[current[0]]))


if __name__ == "__main__":
    main()
