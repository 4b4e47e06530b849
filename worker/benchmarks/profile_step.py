"""Where a forward_backward and a decode step spend GPU time: top kernels by CUDA time (torch.profiler)."""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.gpu_report import tokenizer  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import random_model  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402
from trace_worker.trainer import Trainer  # noqa: E402


def main() -> None:
    shape = sys.argv[1] if len(sys.argv) > 1 else "qwen3-8b"
    sequence = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    device = torch.device("cuda")
    model = random_model(shape, device, torch.bfloat16)
    engine = Engine.from_model(model, tokenizer(), shape)
    trainer = Trainer(engine, micro_batch_tokens=sequence)
    trainer.create_adapter({"name": "p", "rank": 16})
    tokens = torch.randint(0, model.config.vocab_size, (sequence + 1,)).tolist()
    body = {"adapter": "p", "loss": "cross_entropy", "datums": [{"tokens": tokens[:-1], "target_tokens": tokens[1:]}]}
    trainer.forward_backward(body)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
        trainer.forward_backward(body)
        torch.cuda.synchronize()
    print(f"## {shape} forward_backward, {sequence} tokens")
    print(trace.key_averages().table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=60))
    sampler = Sampler(engine)
    engine.stop_token_ids = []
    requests = [SamplingRequest(prompt_ids=tokens[:128], adapter="p", max_tokens=16, seed=index) for index in range(16)]
    sampler.generate(requests)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as trace:
        sampler.generate(requests)
        torch.cuda.synchronize()
    print(f"## {shape} sampling, batch 16, 16 new tokens")
    print(trace.key_averages().table(sort_by="cpu_time_total", row_limit=25, max_name_column_width=60))


if __name__ == "__main__":
    main()
