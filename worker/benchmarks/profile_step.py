"""Where a forward_backward and a decode step spend time: wall time against the GPU's busy time (a step whose kernels
keep the GPU busy only part of its wall time is bound by the host), then the top operators by GPU time and by host
time (torch.profiler).

    python worker/benchmarks/profile_step.py [SHAPE] [SEQUENCE] [DATUMS]   # e.g. qwen3-30b-a3b 4096 4"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.gpu_report import tokenizer  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import random_model  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402
from trace_worker.trainer import Trainer  # noqa: E402


def busy_seconds(trace: profile) -> float:
    """Seconds the GPU ran kernels: the self time of the CUDA (kernel) events only, as the profiler's own "Self CUDA
    time total" counts it (operators carry their kernels' time too, so summing every row counts it twice)."""
    return sum(event.self_device_time_total for event in trace.key_averages() if event.device_type == DeviceType.CUDA and not event.is_user_annotation) / 1e6


def show(trace: profile, sort_by: str, rows: int = 30) -> None:
    try:
        print(trace.key_averages().table(sort_by=sort_by, row_limit=rows, max_name_column_width=70))
    except (AttributeError, KeyError, ValueError):
        print(trace.key_averages().table(sort_by=sort_by.replace("device", "cuda"), row_limit=rows, max_name_column_width=70))


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "qwen3-8b"
    sequence = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    datums = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    device = torch.device("cuda")
    model = random_model(shape, device, torch.bfloat16)
    engine = Engine.from_model(model, tokenizer(), shape)
    trainer = Trainer(engine, micro_batch_tokens=sequence)
    trainer.create_adapter({"name": "p", "rank": 16})
    rows = [torch.randint(0, model.config.vocab_size, (sequence + 1,)).tolist() for _ in range(datums)]
    body = {"adapter": "p", "loss": "cross_entropy", "datums": [{"tokens": tokens[:-1], "target_tokens": tokens[1:]} for tokens in rows]}
    trainer.forward_backward(body)
    torch.cuda.synchronize()
    started = time.perf_counter()
    trainer.forward_backward(body)
    torch.cuda.synchronize()
    wall = time.perf_counter() - started
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
        trainer.forward_backward(body)
        torch.cuda.synchronize()
    busy = busy_seconds(trace)
    print(f"## {shape} forward_backward, {datums} x {sequence} tokens: wall {wall * 1000:.0f} ms (unprofiled), GPU busy {busy * 1000:.0f} ms "
          f"({busy / wall:.0%}), {datums * sequence / wall:,.0f} tokens/s, peak {torch.cuda.max_memory_allocated() / 2**30:.0f} GiB")
    show(trace, "self_device_time_total")
    show(trace, "self_cpu_time_total", 20)
    sampler = Sampler(engine)
    engine.stop_token_ids = []
    requests = [SamplingRequest(prompt_ids=rows[0][:128], adapter="p", max_tokens=16, seed=index) for index in range(16)]
    sampler.generate(requests)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
        sampler.generate(requests)
        torch.cuda.synchronize()
    print(f"## {shape} sampling, batch 16, 16 new tokens (graphs captured: {len(sampler.graphs.captured)}, failures {sampler.graphs.failures})")
    show(trace, "self_cpu_time_total", 20)


if __name__ == "__main__":
    main()
