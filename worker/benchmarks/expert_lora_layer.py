"""One Qwen3-MoE experts layer with LoRA r=16 on every expert's gate/up and down: forward + backward time of the worker's
activation-side forward (grouped kernel, and the per-expert matmul fallback) beside PEFT's own `target_parameters`
forward (which adds B·A to every expert's weight per call). Prints a markdown table. Default: the Qwen3-30B-A3B layer
shape on the GPU (bf16); `--quick`: a reduced shape in fp32 that runs in seconds on a CPU."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

import torch
from peft import LoraConfig, get_peft_model
from peft.tuners.lora.layer import ParamWrapper

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trace_worker import expert_lora  # noqa: E402
from trace_worker.model_shapes import QWEN3_SHAPES  # noqa: E402


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a reduced shape in fp32 (CPU)")
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    shape = dict(QWEN3_SHAPES["qwen3-30b-a3b"])
    if arguments.quick:
        shape.update(hidden_size=512, moe_intermediate_size=256, num_experts=32, num_experts_per_tok=4)
        arguments.tokens = min(arguments.tokens, 1024)
    from transformers import Qwen3MoeConfig
    from transformers.models.qwen3_moe.modeling_qwen3_moe import Qwen3MoeExperts

    shape["num_hidden_layers"] = 1
    config = Qwen3MoeConfig(**shape)
    config._experts_implementation = "grouped_mm"  # what from_pretrained picks in transformers 5.17 (PEFT's row uses it)
    torch.manual_seed(0)
    holder = torch.nn.Module()
    holder.experts = Qwen3MoeExperts(config).to(device=device, dtype=dtype)
    with torch.no_grad():
        holder.experts.gate_up_proj.normal_(0, 0.02)
        holder.experts.down_proj.normal_(0, 0.02)
    model = get_peft_model(holder, LoraConfig(r=16, lora_alpha=16, target_parameters=["gate_up_proj", "down_proj"], init_lora_weights=False))
    expert_lora.install(model)
    outer = next(module for module in model.modules() if getattr(module, expert_lora.MARK, False))
    assert isinstance(outer, ParamWrapper)
    chain, experts = expert_lora.wrapper_chain(outer)
    tokens, chosen = arguments.tokens, config.num_experts_per_tok
    hidden = torch.randn(tokens, config.hidden_size, device=device, dtype=dtype, requires_grad=True)
    index = torch.rand(tokens, config.num_experts, device=device).argsort(-1)[:, :chosen]  # k distinct experts a token
    weights = torch.softmax(torch.randn(tokens, chosen, device=device), -1).to(dtype)
    target = torch.randn(tokens, config.hidden_size, device=device, dtype=dtype)
    factors = {wrapper.parameter_name: [expert_lora.peft_factors(wrapper, "default")] for wrapper in chain}

    def peft_forward() -> torch.Tensor:
        with expert_lora.stock(model):
            return outer(hidden, index, weights)

    methods: dict[str, Callable[[], torch.Tensor]] = {
        "worker, grouped kernel": lambda: outer(hidden, index, weights),
        "worker, per-expert matmuls": lambda: expert_lora.experts_forward(experts, hidden, index, weights, factors, use_kernel=False),
        "PEFT target_parameters": peft_forward,
    }
    rows = []
    reference = None
    for label, forward in methods.items():
        def step() -> torch.Tensor:
            output = forward()
            (output.float() * target.float()).sum().backward()
            return output.detach()

        try:
            output = step()
            times = []
            for _ in range(arguments.repeats):
                synchronize(device)
                start = time.perf_counter()
                step()
                synchronize(device)
                times.append(time.perf_counter() - start)
            seconds = min(times)  # the best of the repeats: a shared machine's noise only ever adds
        except torch.OutOfMemoryError:
            rows.append(f"| {label} | out of memory | | |")
            continue
        reference = output if reference is None else reference
        difference = float((output.float() - reference.float()).abs().max() / reference.float().abs().max())
        rows.append(f"| {label} | {seconds * 1e3:,.1f} | {tokens / seconds:,.0f} | {difference:.1e} |")
        for parameter in model.parameters():
            parameter.grad = None
        hidden.grad = None
    name = "Qwen3-30B-A3B" if not arguments.quick else "reduced (hidden 512, 32 experts of 256, top-4)"
    print(f"experts layer, {name} shape, {tokens} tokens, top-{chosen}, LoRA r=16 on gate_up and down; {device} {dtype}\n")
    print("| method | forward + backward, ms (best of repeats) | tokens/s | max relative difference to the first row |\n|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
