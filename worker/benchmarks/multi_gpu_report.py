"""Training throughput of the worker on 1 and N GPUs of one host, in one launch (issue 22). Run it under torchrun:

    torchrun --standalone --nproc-per-node 2 worker/benchmarks/multi_gpu_report.py --out DIR

(`scripts/multi-gpu-check.sh` does this on the GPU machine; `--quick` runs the tiny shape on CPU ranks over gloo.)

For each shape, every rank builds the same random-weight model (rank 0's weights broadcast). Then:
1. one GPU: rank 0 alone trains with a one-process trainer (the other ranks wait), the baseline;
2. N GPUs: the worker's own multi-rank path: rank 0 calls `WorkerApplication.run_everywhere` (what an HTTP trainer
   call does after parsing), the other ranks run `follow_rank_zero`, datums are split by `rank_share`, gradients are
   all-reduced at `optim_step`.
Each timed step is one forward_backward of the whole global batch and one optim_step, as the GRPO loop calls them.
Two batches: equal lengths (every datum `--sequence` tokens) and mixed lengths (from `--sequence` down to an eighth of
it), the latter also with datums split by count (datum i to rank i mod N, the split before token balancing) to show
what balancing buys. The first step of each run starts from the same adapter weights, so its loss, logprobs and grad
norm are compared with the one-GPU run's (equal within bf16 tolerance, or something is wrong). Prints markdown tables;
`--out` also writes them and the raw rows as JSON, after each shape, so a later shape's failure loses nothing.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch
import torch.distributed as distributed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpu_report import matmul_rate, table, tokenizer  # noqa: E402
from trace_worker import server, trainer as trainer_module  # noqa: E402
from trace_worker.collective import Collective, TorchCollective  # noqa: E402
from trace_worker.engine import Engine  # noqa: E402
from trace_worker.model_shapes import lora_training_flops_per_token, random_model  # noqa: E402
from trace_worker.trainer import Trainer, rank_share  # noqa: E402

LEARNING_RATE = 1e-5


def by_count(datums: list[Any], rank: int, world_size: int) -> list[int]:
    """The split before token balancing: datum i to rank i mod N."""
    return list(range(rank, len(datums), world_size))


SPLITS: dict[str, Callable[[list[Any], int, int], list[int]]] = {"by tokens": rank_share, "by count": by_count}


def install_split_switch() -> None:
    """Lets rank 0 switch every rank's datum split with a broadcast call ("bench_split"), through the same
    `server.perform` that `follow_rank_zero` dispatches to."""
    perform = server.perform

    def switching(trainer: Trainer, operation: str, body: dict[str, Any]) -> Any:
        if operation == "bench_split":
            trainer_module.rank_share = SPLITS[body["split"]]  # type: ignore[assignment]
            return None
        return perform(trainer, operation, body)

    server.perform = switching  # type: ignore[assignment]


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def batch(vocabulary: int, lengths: list[int], seed: int) -> list[dict[str, Any]]:
    generator = torch.Generator().manual_seed(seed)
    datums = []
    for length in lengths:
        row = torch.randint(0, vocabulary, (length + 1,), generator=generator).tolist()
        datums.append({"tokens": row[:-1], "target_tokens": row[1:], "weights": [1.0] * length})
    return datums


def run_steps(call: Callable[[str, dict[str, Any]], Any], adapter: str, datums: list[dict[str, Any]], steps: int, device: torch.device) -> dict[str, Any]:
    """One untimed step (its results are the equivalence check: it starts from the adapter's initial weights, before
    any update), then `steps` timed ones."""
    tokens = sum(len(datum["tokens"]) for datum in datums)
    body = {"adapter": adapter, "loss": "cross_entropy", "datums": datums}
    first = call("forward_backward", body)
    first_step = call("optim_step", {"adapter": adapter, "learning_rate": LEARNING_RATE})
    synchronize(device)
    start = time.perf_counter()
    for _ in range(steps):
        call("forward_backward", body)
        call("optim_step", {"adapter": adapter, "learning_rate": LEARNING_RATE})
    synchronize(device)
    seconds = time.perf_counter() - start
    return {"tokens/s": steps * tokens / seconds, "seconds/step": seconds / steps, "loss": first["loss"], "logprobs": first["logprobs"], "grad_norm": first_step["grad_norm"]}


def compare(result: dict[str, Any], reference: dict[str, Any]) -> dict[str, str]:
    worst = max(abs(x - y) for row, other in zip(result["logprobs"], reference["logprobs"]) for x, y in zip(row, other))
    return {
        "max |Δ logprob|": f"{worst:.1e}",
        "loss rel. diff": f"{abs(result['loss'] - reference['loss']) / max(abs(reference['loss']), 1e-12):.1e}",
        "grad-norm rel. diff": f"{abs(result['grad_norm'] - reference['grad_norm']) / max(abs(reference['grad_norm']), 1e-12):.1e}",
    }


def build_engine(shape: str, device: torch.device, dtype: torch.dtype) -> Engine:
    torch.manual_seed(0)
    model = random_model(shape, device, dtype)
    for parameter in model.parameters():  # identical weights on every rank, as loading one checkpoint gives
        distributed.broadcast(parameter.data, src=0)
    for buffer in model.buffers():
        distributed.broadcast(buffer.data, src=0)
    return Engine.from_model(model, tokenizer(), shape)


def workloads_for(sequence: int, count: int, equal_only: bool) -> dict[str, list[int]]:
    workloads = {"equal lengths": [sequence] * count}
    if not equal_only:
        workloads["mixed lengths"] = [max(1, sequence - index * sequence // count) for index in range(count)]
    return workloads


def free(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def measure_shape(shape: str, device: torch.device, dtype: torch.dtype, arguments: argparse.Namespace, peak: float) -> tuple[list[dict[str, Any]], list[str]]:
    """Rank 0 returns the rows and notes; the other ranks follow rank 0 and return nothing.

    Where one GPU runs out of memory on the baseline (the other ranks are then waiting for rank 0's next call, so
    nothing is out of step), the datums are halved in length and the shape measured again, down to a quarter."""
    world_size = distributed.get_world_size()
    rank = distributed.get_rank()
    engine = build_engine(shape, device, dtype)
    application = server.WorkerApplication(engine, TorchCollective())
    application.trainer.micro_batch_tokens = arguments.micro_batch_tokens
    if rank != 0:
        server.follow_rank_zero(application.trainer)
        application.executor.stop()
        del application, engine
        free(device)
        return [], []

    vocabulary = engine.base.config.vocab_size
    adapter: dict[str, Any] = {"rank": 16, "alpha": 16, "seed": 7}
    if arguments.targets:
        adapter["target_modules"] = arguments.targets.split(",")
    single = Trainer(engine, Collective(), arguments.micro_batch_tokens)

    def one_gpu(operation: str, body: dict[str, Any]) -> Any:
        return server.perform(single, operation, body)

    def everywhere(operation: str, body: dict[str, Any]) -> Any:
        return application.run_everywhere(operation, body)

    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    baselines: dict[str, dict[str, Any]] = {}
    targets: list[str] = []
    flops = 0.0
    sequence = arguments.sequence
    while True:
        workloads = workloads_for(sequence, arguments.batch, shape in arguments.only_equal.split(","))
        try:
            for label, lengths in workloads.items():
                targets = one_gpu("create_adapter", {"name": "one-gpu", **adapter})["target_modules"]
                flops = lora_training_flops_per_token(engine.activate("one-gpu"), 16, targets, sequence)["total"]
                baselines[label] = run_steps(one_gpu, "one-gpu", batch(vocabulary, lengths, seed=11), arguments.steps, device)
                one_gpu("delete_adapter", {"name": "one-gpu"})
                rows.append(row(shape, label, 1, "-", baselines[label], None, flops, peak, targets, sequence))
                print(table(rows[-1:]), flush=True)
            break
        except torch.OutOfMemoryError:
            if "one-gpu" in engine.adapters:
                one_gpu("delete_adapter", {"name": "one-gpu"})
            rows, baselines = [], {}
            free(device)
            notes.append(f"{shape}: one GPU ran out of memory with {sequence}-token datums")
            print(notes[-1], flush=True)
            if sequence <= arguments.sequence // 4:
                application.executor.call(lambda: application.collective.broadcast_object(("shutdown", None)))
                application.executor.stop()
                del application, single, engine
                free(device)
                return rows, notes
            sequence //= 2

    for label, lengths in workloads.items():
        datums = batch(vocabulary, lengths, seed=11)
        splits = ["by tokens", "by count"] if label == "mixed lengths" else ["by tokens"]
        for split in splits:
            everywhere("bench_split", {"split": split})
            everywhere("create_adapter", {"name": "multi", **adapter})
            result = run_steps(everywhere, "multi", datums, arguments.steps, device)
            everywhere("delete_adapter", {"name": "multi"})
            rows.append(row(shape, label, world_size, split, result, baselines[label], flops, peak, targets, sequence))
            print(table(rows[-1:]), flush=True)
    everywhere("bench_split", {"split": "by tokens"})
    application.executor.call(lambda: application.collective.broadcast_object(("shutdown", None)))
    application.executor.stop()
    del application, single, engine
    free(device)
    return rows, notes


def row(
    shape: str, workload: str, gpus: int, split: str, result: dict[str, Any], baseline: dict[str, Any] | None, flops: float, peak: float, targets: list[str], sequence: int
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "shape": shape, "LoRA targets": ",".join(name.removesuffix("_proj") for name in targets), "batch": f"{workload}, ≤ {sequence}", "GPUs": gpus, "split": split,
        "tokens/s": result["tokens/s"], "s/step": result["seconds/step"], "MFU per GPU": f"{result['tokens/s'] * flops / (peak * gpus):.1%}",
    }
    if baseline is not None:
        entry["× one GPU"] = result["tokens/s"] / baseline["tokens/s"]
        entry.update(compare(result, baseline))
    return entry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the tiny shape, short sequences, CPU ranks over gloo (a smoke test of this script)")
    parser.add_argument("--shapes", default="qwen3-8b,qwen3-30b-a3b")
    parser.add_argument("--only-equal", default="qwen3-30b-a3b", help="shapes measured on the equal-length batch only (comma-separated)")
    parser.add_argument("--targets", default="", help="LoRA target modules (default: the worker's default for the model)")
    parser.add_argument("--sequence", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=8, help="datums per step (the global batch, split across the GPUs)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--micro-batch-tokens", type=int, default=4096, help="as the worker's --micro-batch-tokens (default: one 4096-token datum per micro-batch)")
    parser.add_argument("--out", default=None)
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.shapes, arguments.only_equal, arguments.sequence, arguments.batch, arguments.steps = "tiny", "", 64, 8, 2
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size < 2:
        parser.error("run it under torchrun with --nproc-per-node 2 or more (it compares one GPU with all of them)")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    use_cuda = torch.cuda.is_available() and not arguments.quick
    if use_cuda:
        torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    dtype = torch.bfloat16 if use_cuda else torch.float32
    distributed.init_process_group(backend="nccl" if use_cuda else "gloo")
    install_split_switch()
    rank = distributed.get_rank()
    card = torch.cuda.get_device_name() if use_cuda else "cpu"
    peak = matmul_rate(device, dtype)
    header = (
        f"# Worker training on 1 and {world_size} GPUs\n\ndevice: {world_size} × {card}; torch {torch.__version__}; dtype {dtype}; "
        f"measured dense matmul rate {peak / 1e12:.0f} TFLOP/s per GPU; global batch {arguments.batch} datums of up to {arguments.sequence} tokens; "
        f"{arguments.steps} timed steps (forward_backward + optim_step) after one untimed; micro-batches of {arguments.micro_batch_tokens} tokens\n"
    )
    if rank == 0:
        print(header, flush=True)
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    unmeasured = 0
    for shape in arguments.shapes.split(","):
        shape_rows, shape_notes = measure_shape(shape, device, dtype, arguments, peak)
        rows += shape_rows
        notes += shape_notes
        unmeasured += rank == 0 and not shape_rows
        if rank == 0 and arguments.out:
            write(arguments.out, header, rows, notes, card, world_size)
    if rank == 0:
        print(header + "\n" + table(rows) + "".join(f"\n{note}" for note in notes), flush=True)
        if arguments.out:
            write(arguments.out, header, rows, notes, card, world_size)
    distributed.destroy_process_group()
    return 1 if unmeasured else 0


def write(directory: str, header: str, rows: list[dict[str, Any]], notes: list[str], card: str, world_size: int) -> None:
    Path(directory).mkdir(parents=True, exist_ok=True)
    (Path(directory) / "multi-gpu-report.md").write_text(header + "\n" + table(rows) + "".join(f"\n{note}\n" for note in notes), encoding="utf-8")
    (Path(directory) / "multi-gpu-report.json").write_text(json.dumps({"device": card, "gpus": world_size, "rows": rows, "notes": notes}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
