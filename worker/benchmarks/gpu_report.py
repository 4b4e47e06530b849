"""GPU report for the worker (run by scripts/gpu-check.sh): Qwen3-shaped checkpoints through transformers and PEFT,
then the trainer's forward_backward throughput and MFU beside a plain transformers + peft loop training the same
adapters on the same batches (on an MoE shape: LoRA on q,k,v,o and every expert's gate/up and down, which the plain
loop runs through PEFT's own `target_parameters` forward), then sampling throughput. Prints markdown tables; `--quick` runs tiny shapes (a CPU smoke test of this script)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.continuous_batching import serve, workload  # noqa: E402
from trace_worker import expert_lora, fast_lora, fused_kernels  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import lora_training_flops_per_token, random_model, shape_config  # noqa: E402
from trace_worker.sampler import Sampler, SamplingRequest  # noqa: E402
from trace_worker.tiny_checkpoint import train_tokenizer  # noqa: E402
from trace_worker.trainer import Trainer  # noqa: E402

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(device: torch.device, function: Callable[[], Any]) -> float:
    synchronize(device)
    start = time.perf_counter()
    function()
    synchronize(device)
    return time.perf_counter() - start


def matmul_rate(device: torch.device, dtype: torch.dtype) -> float:
    size = 8192 if device.type == "cuda" else 512
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    for _ in range(3):
        a @ b
    seconds = timed(device, lambda: [a @ b for _ in range(10)])
    return 10 * 2 * size**3 / seconds


def tokenizer() -> Any:
    return train_tokenizer(["hello world " * 50, '<tool_call>{"name": "x"}</tool_call>'], 512)


def checkpoint_checks(shapes: list[str], device: torch.device, dtype: torch.dtype, rows: list[dict[str, Any]]) -> None:
    """Each shape saved as an ordinary checkpoint, loaded back by the worker; an adapter it saves is read by PEFT."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    for name in shapes:
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / name
            model = random_model(name, device, dtype)
            model.save_pretrained(path)
            tokenizer().save_pretrained(path)
            del model
            started = time.perf_counter()
            engine = Engine(path, device=str(device), dtype=str(dtype).replace("torch.", ""))
            load_seconds = time.perf_counter() - started
            trainer = Trainer(engine)
            created = trainer.create_adapter({"name": "check", "rank": 16, "alpha": 16})
            generator = torch.Generator().manual_seed(0)
            with torch.no_grad():
                for record_parameter in engine.adapter("check").parameters:
                    record_parameter.copy_(torch.randn(record_parameter.shape, generator=generator) * 0.02)
            tokens = torch.randint(0, shape_config(name).vocab_size, (1, 257), generator=generator).tolist()[0]
            datum = {"tokens": tokens[:-1], "target_tokens": tokens[1:]}
            ours = torch.tensor(trainer.forward({"adapter": "check", "datums": [datum]})["logprobs"][0])
            trainer.save_adapter({"adapter": "check", "path": str(path / "adapter")})
            del trainer, engine
            gc.collect()
            base = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
            peft_model = PeftModel.from_pretrained(base, path / "adapter").eval()
            with torch.no_grad():
                logits = peft_model(input_ids=torch.tensor([datum["tokens"]], device=device)).logits[0].float()
            reference = torch.log_softmax(logits, -1).gather(-1, torch.tensor(datum["target_tokens"], device=device)[:, None]).squeeze(-1).cpu()
            difference = float((ours - reference).abs().max())
            rows.append({
                "shape": name, "loads through transformers": f"yes ({load_seconds:.1f} s)", "LoRA targets": ",".join(created["target_modules"]),
                "adapter params": created["trainable_parameters"], "PEFT reload max |Δ logprob|": f"{difference:.4f}",
                "ok": difference < 0.15,
            })
            del base, peft_model
            gc.collect()
            if device.type == "cuda":
                torch.cuda.empty_cache()


def training_benchmark(name: str, device: torch.device, dtype: torch.dtype, sequence: int, batch: int, steps: int, peak: float, micro_batch: int | None = None) -> list[dict[str, Any]]:
    """The worker's forward_backward (at `micro_batch` tokens per micro-batch, the worker's default when None, halved
    down to one sequence while it runs out of memory, as a user would lower `--micro-batch-tokens`) against a plain
    transformers + peft loop on the same batches."""
    model = random_model(name, device, dtype)
    engine = Engine.from_model(model, tokenizer(), name)
    trainer = Trainer(engine) if micro_batch is None else Trainer(engine, micro_batch_tokens=micro_batch)
    created = trainer.create_adapter({"name": "bench", "rank": 16, "alpha": 16, "target_modules": TARGETS})
    vocabulary = model.config.vocab_size
    generator = torch.Generator().manual_seed(1)
    batches = [torch.randint(0, vocabulary, (batch, sequence + 1), generator=generator) for _ in range(steps + 1)]
    datums = [
        [{"tokens": row[:-1].tolist(), "target_tokens": row[1:].tolist(), "weights": [1.0] * sequence} for row in tokens] for tokens in batches
    ]
    assert engine.peft is not None
    peft_model = engine.activate("bench")
    flops = lora_training_flops_per_token(peft_model, 16, TARGETS, sequence)

    def ours(index: int) -> None:
        trainer.forward_backward({"adapter": "bench", "loss": "cross_entropy", "datums": datums[index]})
        clear_gradients()

    # Each row runs under a setting of the model, entered once around its warm-up and timed calls (swapping forwards
    # walks the model's modules, which does not belong in the timed calls).
    @contextlib.contextmanager
    def liger_norm() -> Iterator[None]:
        # Liger's RMSNorm in place of PyTorch's, then the engine's kernels back
        kernels = getattr(model, "_trace_fused_kernels")
        liger = fused_kernels.liger("liger")
        assert liger is not None
        fused_kernels.install(model, liger)
        try:
            yield
        finally:
            fused_kernels.install(model, kernels)

    @contextlib.contextmanager
    def stock_model() -> Iterator[None]:
        # PEFT's own forwards (experts included) and transformers' own norms, MLPs and rotary embedding
        with fast_lora.stock(peft_model), expert_lora.stock(peft_model), fused_kernels.stock(model):
            yield

    @contextlib.contextmanager
    def stock_checkpointed() -> Iterator[None]:
        # What a user of the plain loop does when it runs out of memory: recompute each layer in the backward.
        peft_model.base_model.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        peft_model.base_model.model.train()
        try:
            with stock_model():
                yield
        finally:
            peft_model.base_model.model.gradient_checkpointing_disable()
            peft_model.base_model.model.eval()

    def plain_steps(index: int) -> None:
        for row in batches[index]:
            input_ids = row[None, :-1].to(device)
            labels = row[None, 1:].to(device)
            logits = peft_model(input_ids=input_ids).logits
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1), reduction="sum")
            loss.backward()
        clear_gradients()

    def clear_gradients() -> None:
        for parameter in engine.adapter("bench").parameters:
            parameter.grad = None

    def measure(function: Callable[[int], None]) -> float:
        """Seconds of `steps` timed calls after a warm-up; the worker's micro-batch is halved (down to one sequence)
        while the warm-up runs out of memory."""
        while True:
            try:
                function(0)
                break
            except torch.OutOfMemoryError:
                if function is not ours or trainer.micro_batch_tokens <= sequence:
                    raise
                clear_gradients()
                gc.collect()
                torch.cuda.empty_cache()
                trainer.micro_batch_tokens = max(sequence, trainer.micro_batch_tokens // 2)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        return sum(timed(device, lambda index=index: function(index)) for index in range(1, steps + 1))

    targets = ",".join(name.removesuffix("_proj") for name in created["target_modules"]) + (" (experts too)" if engine.expert_parameters else "")
    results: list[dict[str, Any]] = []
    fused = f" ({engine.fused_kernels} fused kernels)" if engine.fused_kernels else ""
    def plain_ran_out() -> bool:
        return bool(results) and results[-1]["tokens/s"] == "out of memory"

    # (label, function, the model's setting, whether it runs): the unfused row only where kernels are fused, the
    # checkpointed plain loop only where the plain one ran out of memory.
    candidates: list[tuple[str, Callable[[int], None], Callable[[], contextlib.AbstractContextManager[Any]], Callable[[], bool]]] = [
        (f"trace worker forward_backward{fused}", ours, contextlib.nullcontext, lambda: True),
        ("trace worker with Liger's RMSNorm", ours, liger_norm, lambda: engine.fused_kernels not in (None, "liger")),
        ("trace worker without fused kernels", ours, lambda: fused_kernels.stock(model), lambda: engine.fused_kernels is not None),
        ("plain transformers + peft loop", plain_steps, stock_model, lambda: True),
        ("plain loop + gradient checkpointing (plain: out of memory)", plain_steps, stock_checkpointed, plain_ran_out),
    ]
    for label, function, setting, wanted in candidates:
        if not wanted():
            continue
        try:
            with setting():
                seconds = measure(function)
        except torch.OutOfMemoryError:
            # PEFT's target_parameters forward materialises every expert's W + ΔW per layer and keeps it for the backward
            clear_gradients()
            gc.collect()
            torch.cuda.empty_cache()
            results.append({"shape": name, "method": label, "LoRA targets": targets, "tokens/s": "out of memory"})
            continue
        tokens = steps * batch * sequence
        rate = tokens / seconds
        memory = torch.cuda.max_memory_allocated() / 2**30 if device.type == "cuda" else 0.0
        ours_row = function is ours
        results.append({
            "shape": name, "method": label, "LoRA targets": targets, "micro-batch tokens": trainer.micro_batch_tokens if ours_row else sequence,
            "tokens/s": rate, "TFLOP/s": rate * flops["total"] / 1e12, "MFU": rate * flops["total"] / peak, "peak GiB": memory,
        })
    plain_rows = [row for row in results if row["method"].startswith("plain") and isinstance(row["tokens/s"], float)]
    if plain_rows:
        for row in results:
            if isinstance(row["tokens/s"], float):
                row["vs plain"] = row["tokens/s"] / plain_rows[0]["tokens/s"]
    del trainer, engine, model, peft_model
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return results


def sampling_benchmark(name: str, device: torch.device, dtype: torch.dtype, batches: list[int], prompt: int, new_tokens: int) -> list[dict[str, Any]]:
    model = random_model(name, device, dtype)
    engine = Engine.from_model(model, tokenizer(), name)
    engine.stop_token_ids = []  # random weights: decode exactly new_tokens per request
    Trainer(engine).create_adapter({"name": "sampled", "rank": 16})
    generator = torch.Generator().manual_seed(2)
    results = []
    samplers = {"eager": Sampler(engine, cuda_graphs=False), "CUDA graphs": Sampler(engine, cuda_graphs=True)}
    for size in batches:
        requests = [
            SamplingRequest(prompt_ids=torch.randint(0, model.config.vocab_size, (prompt,), generator=generator).tolist(), adapter="sampled" if index % 2 else None,
                            max_tokens=new_tokens, temperature=1.0, seed=index)
            for index in range(size)
        ]
        for mode, sampler in samplers.items():
            # Warm-up (and, for graphs, capture of this batch and cache bucket: the same number of new tokens)
            warm_tokens = new_tokens if mode == "CUDA graphs" else min(new_tokens, 4)
            sampler.generate([SamplingRequest(prompt_ids=request.prompt_ids, adapter=request.adapter, max_tokens=warm_tokens) for request in requests])
            seconds = timed(device, lambda: sampler.generate(requests))
            results.append({"shape": name, "decode": mode, "batch": size, "prompt tokens": prompt, "new tokens": new_tokens,
                            "generated tokens/s": size * new_tokens / seconds, "seconds": seconds,
                            "graphs captured": len(sampler.graphs.captured), "capture failures": sampler.graphs.failures})
    sampler = samplers["eager"]
    del sampler, engine, model
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return results


def mixed_workload_benchmark(name: str, device: torch.device, dtype: torch.dtype, clients: int, turns: int, first_prompt: tuple[int, int]) -> list[dict[str, Any]]:
    """Continuous batching against static waves on requests of different lengths arriving over time (clients running
    turns one after another), the same requests in both modes (benchmarks/continuous_batching.py)."""
    model = random_model(name, device, dtype)
    engine = Engine.from_model(model, tokenizer(), name)
    engine.stop_token_ids = []
    plan = workload(model.config.vocab_size, clients, turns, seed=0, first_prompt=first_prompt)
    serve(engine, workload(model.config.vocab_size, 2, 1, seed=1, first_prompt=first_prompt), True, 64)  # warm-up / capture
    rows = [serve(engine, plan, continuous, 64, prefix_cache) for prefix_cache in (False, True) for continuous in (False, True)]
    for row in rows:
        row.update({"shape": name, "clients x turns": f"{clients} x {turns}", "speed-up": rows[0]["wall_s"] / row["wall_s"]})
    del engine, model
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(none)\n"
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.0f}"
        return str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(column, "")) for column in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny shapes, short sequences (CPU smoke test)")
    parser.add_argument("--train-shapes", default="qwen3-0.6b,qwen3-8b,qwen3-30b-a3b")
    parser.add_argument("--check-shapes", default="qwen3-0.6b,qwen3-30b-a3b-4-layers")
    parser.add_argument("--sample", default="qwen3-0.6b:1,16,64;qwen3-30b-a3b:64", help="sampling shapes and batch sizes, e.g. 'qwen3-0.6b:1,16;tiny:4'")
    parser.add_argument("--mixed-shape", default="qwen3-0.6b", help="the model of the mixed workload")
    parser.add_argument("--sections", default="checks,training,sampling,mixed", help="which parts to run (comma-separated)")
    parser.add_argument("--sequence", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--micro-batch-tokens", type=int, default=None, help="the worker's tokens per micro-batch (default: the worker's own, halved while out of memory)")
    parser.add_argument("--out", default=None, help="also write the report (markdown) and raw rows (JSON) here")
    arguments = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    if arguments.quick:
        arguments.train_shapes, arguments.check_shapes, arguments.sample, arguments.mixed_shape = "tiny,tiny-moe", "tiny,tiny-moe", "tiny:1,4;tiny-moe:4", "tiny"
        arguments.sequence, arguments.batch, arguments.steps = 128, 2, 2
    sections = set(arguments.sections.split(","))
    card = torch.cuda.get_device_name() if device.type == "cuda" else "cpu"
    peak = matmul_rate(device, dtype)
    report = [f"# Worker GPU report\n\ndevice: {card}; torch {torch.__version__}; dtype {dtype}; measured dense matmul rate {peak / 1e12:.0f} TFLOP/s\n"]
    print(report[0], flush=True)
    raw: dict[str, Any] = {"device": card, "matmul_tflops": peak / 1e12}

    checks: list[dict[str, Any]] = []
    if "checks" in sections:
        checkpoint_checks(arguments.check_shapes.split(","), device, dtype, checks)
        report.append("## Checkpoints through transformers and PEFT\n\n" + table(checks))
        print(report[-1], flush=True)
        raw["checks"] = checks

    training: list[dict[str, Any]] = []
    for name in arguments.train_shapes.split(",") if "training" in sections else []:
        training += training_benchmark(name, device, dtype, arguments.sequence, arguments.batch, arguments.steps, peak, arguments.micro_batch_tokens)
        print(table([row for row in training if row["shape"] == name]), flush=True)
    for row in training:
        if "MFU" in row:
            row["MFU"] = f"{row['MFU']:.1%}"
    if training:
        report.append(f"## forward_backward, LoRA r=16 on q,k,v,o,gate,up,down (MoE: per-expert adapters on the fused experts), {arguments.batch} × {arguments.sequence} tokens per call, {arguments.steps} timed calls\n\n" + table(training))
        print(report[-1], flush=True)
        raw["training"] = training

    if "sampling" in sections:
        sampling: list[dict[str, Any]] = []
        for spec in arguments.sample.split(";"):
            name, _, sizes = spec.partition(":")
            sampling += sampling_benchmark(name, device, dtype, [int(size) for size in sizes.split(",")], 256 if not arguments.quick else 16, 128 if not arguments.quick else 8)
            print(table(sampling), flush=True)
        report.append("## Sampling (half the requests on an adapter; an MoE adapter also covers every expert's gate/up and down)\n\n" + table(sampling))
        print(report[-1], flush=True)
        raw["sampling"] = sampling

    if "mixed" in sections:
        mixed = mixed_workload_benchmark(arguments.mixed_shape, device, dtype, 32 if not arguments.quick else 4, 3 if not arguments.quick else 2, (200, 500) if not arguments.quick else (8, 24))
        report.append("## Mixed workload: continuous batching against static waves, without and with the prefix cache (completions 4–16 or 48–128 tokens, prompts growing by turn)\n\n" + table(mixed))
        print(report[-1], flush=True)
        raw["mixed_workload"] = mixed
    if arguments.out:
        Path(arguments.out).mkdir(parents=True, exist_ok=True)
        (Path(arguments.out) / "gpu-report.md").write_text("\n".join(report), encoding="utf-8")
        (Path(arguments.out) / "gpu-report.json").write_text(json.dumps(raw, indent=2, default=str), encoding="utf-8")
    return 0 if all(row["ok"] for row in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
