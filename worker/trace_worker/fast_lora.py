"""A leaner compute path for PEFT's LoRA linear layers (PEFT still creates, names, saves and loads the adapters).

PEFT's forward casts the activations to the adapter's fp32 dtype, runs two matmuls, multiplies by the scaling, adds
and casts back: four extra passes over [tokens × features] per layer, a third of a LoRA training step's GPU time on an
8B model. Here the (small) adapter weights are cast to the activations' dtype instead, and the second matmul
accumulates into the base output (`addmm`), so the activations are read once and never copied. Layers in any other
state (disabled, merged, dropout, DoRA or other variants, LoRA bias, extra arguments) use PEFT's own forward."""

from __future__ import annotations

import contextlib
import types
from typing import Any, Callable, Iterator

import torch
from peft.tuners.lora.layer import Linear as LoraLinear

MARK = "_trace_fast_lora"


def _fast_forward(self: LoraLinear, x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    if args or kwargs or self.disable_adapters or self.merged or getattr(self, "lora_variant", None):
        return LoraLinear.forward(self, x, *args, **kwargs)
    active = [name for name in self.active_adapters if name in self.lora_A]
    for name in active:
        if not isinstance(self.lora_dropout[name], torch.nn.Identity) or self.lora_B[name].bias is not None:
            return LoraLinear.forward(self, x, *args, **kwargs)
    result = self.base_layer(x)
    if not active:
        return result
    shape = result.shape
    flat_input = x.reshape(-1, x.shape[-1])
    output = result.reshape(-1, shape[-1])
    for name in active:
        down = self.lora_A[name].weight.to(x.dtype)
        up = (self.lora_B[name].weight * self.scaling[name]).to(x.dtype)
        output = torch.addmm(output, flat_input @ down.t(), up.t())
    return output.view(shape)


def install(model: torch.nn.Module) -> int:
    """Gives every LoRA linear layer of `model` the lean forward; returns how many layers were (newly) changed."""
    changed = 0
    for module in model.modules():
        if isinstance(module, LoraLinear) and not getattr(module, MARK, False):
            module.forward = types.MethodType(_fast_forward, module)  # type: ignore[method-assign]
            setattr(module, MARK, True)
            changed += 1
    return changed


@contextlib.contextmanager
def stock_forwards(model: torch.nn.Module, mark: str, reinstall: Callable[[torch.nn.Module], int]) -> Iterator[None]:
    """Runs `model` with PEFT's own forward on the modules whose lean forward carries `mark`, then `reinstall`s it."""
    patched = [module for module in model.modules() if getattr(module, mark, False)]
    for module in patched:
        del module.forward
        setattr(module, mark, False)
    try:
        yield
    finally:
        reinstall(model)


def stock(model: torch.nn.Module) -> contextlib.AbstractContextManager[None]:
    """Runs `model` with PEFT's own LoRA forward (for comparisons), restoring the lean one afterwards."""
    return stock_forwards(model, MARK, install)
