"""Fused GPU kernels for the layers around the matrix products, from Liger Kernel (Triton; optional: used on CUDA when
the `liger_kernel` package is installed, see `worker/requirements-gpu.txt`).

An eager training step of a Qwen3 model spends much of its GPU time in elementwise passes that carry no FLOPs: every
RMSNorm (four per layer, computed in fp32) runs about a dozen kernels forward and backward, rotary embeddings another
dozen, SwiGLU three. On an H200 these were about a quarter of a Qwen3-30B-A3B LoRA step. Liger's kernels do each in
one pass. They are put on module instances (RMSNorm and dense MLP forwards) and on the modeling module's
`apply_rotary_pos_emb`, the way `fast_lora` puts its forward on LoRA layers, so saved checkpoints and adapters keep
their names, and `stock` runs the model with transformers' own forwards (the benchmark's plain loop). The rotary
function is shared by every model of that type in the process: once installed, Qwen3 models on CUDA use the fused one
and models on other devices keep transformers'. Models other than Qwen3 and Qwen3-MoE are left alone.

The kernels are passed in (`Kernels`): `liger()` loads Liger's (with PyTorch's fused RMSNorm by default); tests on a
CPU pass plain-torch stand-ins to check the wiring, and a CUDA test checks the real ones against transformers'."""

from __future__ import annotations

import contextlib
import importlib
import logging
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch

from . import fast_lora

log = logging.getLogger("trace_worker")

MARK = "_trace_fused_kernel"

#: The modeling modules whose `apply_rotary_pos_emb` is replaced, by model type.
_MODELING_MODULES = {"qwen3": "transformers.models.qwen3.modeling_qwen3", "qwen3_moe": "transformers.models.qwen3_moe.modeling_qwen3_moe"}


@dataclass(frozen=True)
class Kernels:
    """`rms_norm(x, weight, eps)`, `rope(q, k, cos, sin)` → (q, k), `swiglu(gate, up)` = silu(gate)·up."""

    rms_norm: Callable[[torch.Tensor, torch.Tensor, float], torch.Tensor]
    rope: Callable[..., tuple[torch.Tensor, torch.Tensor]]
    swiglu: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    name: str
    #: The only device type the kernels run on (None: any); tensors elsewhere keep transformers' forwards.
    device_type: str | None = None


def torch_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """PyTorch's RMSNorm (one fused operator on CUDA): normalised and scaled in fp32 and cast once, where Qwen3RMSNorm
    casts before scaling (the two differ by at most one bf16 rounding)."""
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps)


def liger(norm: str = "torch") -> Kernels | None:
    """Liger Kernel's fused rotary embedding and SwiGLU, or None where it is not installed, with RMSNorm from PyTorch's
    own fused kernel (`norm="torch"`, `torch.nn.functional.rms_norm`, one C++ operator forward and backward) or from
    Liger (`norm="liger"`, a Triton kernel behind a Python autograd function: 150–290 µs of host time a call, which a
    host-bound step pays 192 times forward on the Qwen3-30B-A3B shape)."""
    try:
        functional = importlib.import_module("liger_kernel.transformers.functional")
    except Exception as error:  # not installed, or no Triton
        log.info("fused kernels off: liger_kernel is not importable (%s)", error)
        return None

    def liger_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        # "llama" casting: normalise in fp32, cast back, then scale (what Qwen3RMSNorm computes)
        return functional.liger_rms_norm(x, weight, eps, 0.0, "llama", False)

    if norm not in ("torch", "liger"):
        raise ValueError(f"norm must be 'torch' or 'liger', not {norm!r}")
    rms_norm = torch_rms_norm if norm == "torch" else liger_norm
    name = "liger" if norm == "liger" else "liger+torch-rms-norm"
    return Kernels(rms_norm=rms_norm, rope=functional.liger_rope, swiglu=functional.liger_swiglu, name=name, device_type="cuda")


def _norm_forward(self: torch.nn.Module, hidden_states: torch.Tensor) -> torch.Tensor:
    kernels: Kernels = getattr(self, MARK)
    return kernels.rms_norm(hidden_states, self.weight, self.variance_epsilon)


def _mlp_forward(self: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    kernels: Kernels = getattr(self, MARK)
    return self.down_proj(kernels.swiglu(self.gate_proj(x), self.up_proj(x)))


def _targets(model: torch.nn.Module) -> list[tuple[torch.nn.Module, Callable[..., Any]]]:
    found: list[tuple[torch.nn.Module, Callable[..., Any]]] = []
    for module in model.modules():
        kind = type(module).__name__
        if kind in ("Qwen3RMSNorm", "Qwen3MoeRMSNorm") and isinstance(getattr(module, "weight", None), torch.Tensor):
            found.append((module, _norm_forward))
        elif kind in ("Qwen3MLP", "Qwen3MoeMLP") and getattr(getattr(module, "config", None), "hidden_act", "silu") in ("silu", "swish"):
            found.append((module, _mlp_forward))
    return found


def _modeling(model: torch.nn.Module) -> types.ModuleType | None:
    """The transformers modeling module of `model`'s type, where the fused kernels apply (else None)."""
    name = _MODELING_MODULES.get(str(getattr(getattr(model, "config", None), "model_type", None)))
    return importlib.import_module(name) if name is not None else None


def install(model: torch.nn.Module, kernels: Kernels) -> int:
    """Puts the fused kernels on `model` (a Qwen3 or Qwen3-MoE model, or a PEFT wrapper of one); returns how many
    modules were changed (0 for other models)."""
    modeling = _modeling(model)
    if modeling is None:
        return 0
    if not hasattr(modeling, "_trace_stock_rotary"):
        modeling._trace_stock_rotary = modeling.apply_rotary_pos_emb  # type: ignore[attr-defined]
    rope, stock_rotary, device_type = kernels.rope, modeling._trace_stock_rotary, kernels.device_type

    def apply_rotary_pos_emb(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, unsqueeze_dim: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        # The modeling module is shared by every model of its type in the process: one on another device keeps
        # transformers' rotary embedding.
        if device_type is not None and q.device.type != device_type:
            return stock_rotary(q, k, cos, sin, unsqueeze_dim)  # type: ignore[no-any-return]
        return rope(q, k, cos, sin, None, unsqueeze_dim)

    modeling.apply_rotary_pos_emb = apply_rotary_pos_emb
    changed = 0
    for module, forward in _targets(model):
        if not getattr(module, MARK, None):
            module.forward = types.MethodType(forward, module)  # type: ignore[method-assign]
            changed += 1
        setattr(module, MARK, kernels)
    model._trace_fused_kernels = kernels  # type: ignore[assignment]
    return changed


@contextlib.contextmanager
def stock(model: torch.nn.Module) -> Iterator[None]:
    """Runs `model` with transformers' own norm, MLP and rotary forwards (the rotary one also where another model in
    the process put the fused one on the shared modeling module), then puts everything back."""
    kernels: Kernels | None = getattr(model, "_trace_fused_kernels", None)
    modeling = _modeling(model)
    rotary = getattr(modeling, "apply_rotary_pos_emb", None)
    if modeling is not None and hasattr(modeling, "_trace_stock_rotary"):
        modeling.apply_rotary_pos_emb = modeling._trace_stock_rotary
    try:
        with fast_lora.stock_forwards(model, MARK, lambda patched: install(patched, kernels) if kernels is not None else 0):
            yield
    finally:
        if modeling is not None:
            modeling.apply_rotary_pos_emb = rotary
