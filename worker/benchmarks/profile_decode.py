"""Where batched decoding spends its time on a GPU: generated tokens/s for a batch all on the base model, all on one
adapter, and half on each (one wave per adapter, decoded in turn), eagerly and with CUDA graphs; then the GPU's busy
time against wall time and the top kernels of the half-and-half case with graphs (torch.profiler).

    python worker/benchmarks/profile_decode.py [SHAPE] [BATCH] [PROMPT] [NEW]   # e.g. qwen3-30b-a3b 64 256 128"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.gpu_report import table, tokenizer  # noqa: E402
from benchmarks.profile_step import busy_seconds, show  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import random_model  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402
from trace_worker.trainer import Trainer  # noqa: E402

#: Which requests of a batch go to the adapter, by name.
MIXES = {"all base": lambda index: False, "all on one adapter": lambda index: True, "half on an adapter": lambda index: index % 2 == 1}


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "qwen3-30b-a3b"
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    prompt = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    new_tokens = int(sys.argv[4]) if len(sys.argv) > 4 else 128
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    model = random_model(shape, device, torch.bfloat16)
    engine = Engine.from_model(model, tokenizer(), shape)
    engine.stop_token_ids = []  # random weights: decode exactly new_tokens per request
    Trainer(engine).create_adapter({"name": "sampled", "rank": 16})
    generator = torch.Generator().manual_seed(2)
    prompts = [torch.randint(0, model.config.vocab_size, (prompt,), generator=generator).tolist() for _ in range(batch)]
    samplers = {"eager": Sampler(engine, cuda_graphs=False), "CUDA graphs": Sampler(engine, cuda_graphs=True)}
    rows = []
    for mix, on_adapter in MIXES.items():
        requests = [SamplingRequest(prompt_ids=ids, adapter="sampled" if on_adapter(index) else None, max_tokens=new_tokens, seed=index) for index, ids in enumerate(prompts)]
        for mode, sampler in samplers.items():
            warm = new_tokens if mode == "CUDA graphs" else 4
            sampler.generate([SamplingRequest(prompt_ids=request.prompt_ids, adapter=request.adapter, max_tokens=warm) for request in requests])
            synchronize()
            started = time.perf_counter()
            sampler.generate(requests)
            synchronize()
            seconds = time.perf_counter() - started
            rows.append({"requests": mix, "decode": mode, "batch": batch, "generated tokens/s": batch * new_tokens / seconds, "seconds": seconds})
    print(f"## {shape}: batch {batch}, {prompt}-token prompts, {new_tokens} new tokens\n")
    print(table(rows))
    sampler = samplers["CUDA graphs"]
    requests = [SamplingRequest(prompt_ids=ids, adapter="sampled" if index % 2 else None, max_tokens=new_tokens, seed=index) for index, ids in enumerate(prompts)]
    synchronize()
    started = time.perf_counter()
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA] if device.type == "cuda" else [ProfilerActivity.CPU]
    with profile(activities=activities) as trace:
        sampler.generate(requests)
        synchronize()
    wall = time.perf_counter() - started
    busy = busy_seconds(trace)
    print(f"## half on an adapter, CUDA graphs, profiled: wall {wall:.2f} s, GPU busy {busy:.2f} s ({busy / wall:.0%})\n")
    show(trace, "self_device_time_total" if device.type == "cuda" else "self_cpu_time_total", 25)


if __name__ == "__main__":
    main()
