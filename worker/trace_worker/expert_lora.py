"""LoRA on mixture-of-experts layers whose experts are fused 3-D parameters (transformers 5 stores Qwen3-MoE's experts as
`experts.gate_up_proj` [experts, 2·intermediate, hidden] and `experts.down_proj` [experts, hidden, intermediate]).

PEFT creates, names, saves and loads these adapters (`LoraConfig(target_parameters=[...])`, one `ParamWrapper` per
fused parameter, nested on the experts module), so a saved adapter is PEFT's own layout. PEFT's forward, though, adds
`scaling · B_e·A_e` to every expert's full weight on every call (a copy of the whole expert stack per layer, and a
weight-sized gradient in the backward). Here the adapters act on the activations instead, as LoRA on a linear layer
does: each routed token goes through its expert's base weight plus `scaling · (x·A_eᵀ)·B_eᵀ`, so the extra work is
the low-rank matmuls of the routed tokens only. Tokens are sorted by expert and every projection is one grouped
matrix multiplication over all experts (`torch.nn.functional.grouped_mm`, given offsets), with a plain per-expert loop
where that kernel cannot run (misaligned strides, dtypes it lacks on the device); `grouped_linear` is the one place a
faster grouped kernel goes. Layers in any other state (adapters disabled or merged, an experts class this does not
know) use PEFT's own forward."""

from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass
from typing import Any

import torch
from peft.tuners.lora.layer import ParamWrapper

from . import fast_lora
from .errors import BadRequest

MARK = "_trace_expert_lora"

#: Fused expert parameters and the (unfused) module names a request names them by.
FUSED_PARAMETERS: dict[str, tuple[str, ...]] = {"gate_up_proj": ("gate_proj", "up_proj"), "down_proj": ("down_proj",), "up_proj": ("up_proj",)}


def fused_expert_parameters(model: torch.nn.Module) -> list[str]:
    """Names (sorted) of the fused 3-D expert parameters `model` has, e.g. `['down_proj', 'gate_up_proj']`."""
    found: set[str] = set()
    for module in model.modules():
        if isinstance(module, ParamWrapper):
            continue
        for name, parameter in module.named_parameters(recurse=False):
            if name in FUSED_PARAMETERS and parameter.dim() == 3:
                found.add(name)
    return sorted(found)


def parameters_for(requested: list[str], fused: list[str]) -> list[str]:
    """The fused parameters that the requested module names adapt. Gate and up are one fused parameter: naming one of
    them without the other is refused (an adapter on `gate_up_proj` changes both)."""
    chosen: list[str] = []
    for parameter in fused:
        names = FUSED_PARAMETERS[parameter]
        named = [name for name in names if name in requested]
        if named and len(named) < len(names):
            raise BadRequest(
                f"target_modules names {named} but not {[name for name in names if name not in named]}: this model's experts fuse "
                f"{' and '.join(names)} into one parameter {parameter!r}; name both or neither",
                "target_modules",
                requested,
            )
        if named:
            chosen.append(parameter)
    return chosen


def module_names_for(parameters: list[str]) -> list[str]:
    """The module names (as a request names them) of fused parameters."""
    return [name for parameter in parameters for name in FUSED_PARAMETERS.get(parameter, (parameter,))]


@dataclass(frozen=True)
class ExpertFactors:
    """One adapter on one fused parameter: per expert `down` A_e [rank, in], `up` B_e [out, rank] and the scaling,
    so the expert's output gains `scaling · (x·A_eᵀ)·B_eᵀ`."""

    down: torch.Tensor  # [experts, rank, in]
    up: torch.Tensor  # [experts, out, rank]
    scaling: float


def peft_factors(wrapper: ParamWrapper, adapter: str) -> ExpertFactors:
    """The per-expert factors in PEFT's saved layout: `lora_A.weight` [rank·experts, in] holds expert e's A in rows
    e·rank … e·rank+rank−1; `lora_B.weight` [out, rank·experts] holds B_e in columns k·experts + e (k = 0 … rank−1)."""
    experts = wrapper.num_experts
    a = wrapper.lora_A[adapter].weight
    b = wrapper.lora_B[adapter].weight
    rank = a.shape[0] // experts
    return ExpertFactors(a.view(experts, rank, a.shape[1]), b.view(b.shape[0], rank, experts).permute(2, 0, 1), float(wrapper.scaling[adapter]))


def delta_weight(wrapper: ParamWrapper, adapter: str) -> torch.Tensor:
    """`scaling · B_e·A_e` for every expert, in fp32, shaped as the fused parameter ([experts, out, in], or
    [experts, in, out] for transposed experts). The product is taken in fp64: on a GPU the worker allows TF32 for fp32
    matrix products, whose rounding (~1e-3) a merge or an export would otherwise carry."""
    factors = peft_factors(wrapper, adapter)
    with torch.no_grad():
        delta = (torch.bmm(factors.up.double(), factors.down.double()) * factors.scaling).float()
    return delta.transpose(-2, -1) if getattr(wrapper.get_base_layer(), "is_transposed", False) else delta


def _aligned(tensor: torch.Tensor) -> bool:
    size = tensor.element_size()
    return tensor.data_ptr() % 16 == 0 and all(stride == 1 or (stride * size) % 16 == 0 for stride in tensor.stride())


def _grouped_kernel_fits(rows: torch.Tensor, weight: torch.Tensor) -> bool:
    if not hasattr(torch.nn.functional, "grouped_mm") or rows.dtype != weight.dtype or rows.shape[0] == 0:
        return False
    if rows.device.type == "cuda":
        if rows.dtype != torch.bfloat16 or torch.cuda.get_device_capability(rows.device) < (8, 0):
            return False
    elif rows.device.type != "cpu":
        return False
    if 1 not in weight.stride()[-2:] or 1 not in rows.stride()[-2:]:
        return False
    return _aligned(rows) and _aligned(weight)


def grouped_linear(rows: torch.Tensor, weight: torch.Tensor, counts: torch.Tensor, offsets: torch.Tensor, use_kernel: bool = True) -> torch.Tensor:
    """`rows` [tokens, in] sorted by expert (`counts[e]` rows for expert e) times `weight[e]` [in, out] of each row's
    expert: one grouped matrix multiplication where the kernel runs, else one matmul per expert."""
    if use_kernel and _grouped_kernel_fits(rows, weight):
        return torch.nn.functional.grouped_mm(rows, weight, offs=offsets)
    pieces = [chunk @ weight[expert] for expert, chunk in enumerate(rows.split(counts.tolist())) if chunk.shape[0]]
    return torch.cat(pieces) if pieces else rows.new_zeros(0, weight.shape[-1])


def expert_projection(
    rows: torch.Tensor, weight: torch.Tensor, transposed: bool, adapters: list[ExpertFactors], counts: torch.Tensor, offsets: torch.Tensor, use_kernel: bool
) -> torch.Tensor:
    """Each row through its expert's base weight ([experts, out, in], or [experts, in, out] when `transposed`) plus
    every adapter's low-rank term (adapter weights cast to the activations' dtype, as `fast_lora` does)."""
    output = grouped_linear(rows, weight if transposed else weight.transpose(-2, -1), counts, offsets, use_kernel)
    for factors in adapters:
        down = factors.down.to(rows.dtype).transpose(-2, -1)  # [experts, in, rank]
        up = (factors.up * factors.scaling).to(rows.dtype).transpose(-2, -1).contiguous()  # [experts, rank, out]
        output = output + grouped_linear(grouped_linear(rows, down, counts, offsets, use_kernel), up, counts, offsets, use_kernel)
    return output


def supports(experts: torch.nn.Module) -> bool:
    """True for an experts module this forward reproduces: transformers' `use_experts_implementation` experts with
    gate and up concatenated (or no gate), no biases."""
    return (
        getattr(experts, "is_concatenated", False)
        and not getattr(experts, "has_bias", True)
        and hasattr(experts, "num_experts")
        and isinstance(getattr(experts, "down_proj", None), torch.Tensor)
        and isinstance(getattr(experts, "gate_up_proj" if getattr(experts, "has_gate", False) else "up_proj", None), torch.Tensor)
    )


class _Dispatch(torch.autograd.Function):
    """`hidden[source]`: each routed row gets its token's hidden state (rows sorted by expert). The backward sums each
    token's `chosen` row gradients through the inverse permutation, a gather and a sum: deterministic, and cheaper than
    autograd's sort-based accumulation for indexing with repeated indices."""

    @staticmethod
    def forward(ctx: Any, hidden: torch.Tensor, source: torch.Tensor, inverse: torch.Tensor, chosen: int) -> torch.Tensor:
        ctx.save_for_backward(inverse)
        ctx.chosen = chosen
        return hidden.index_select(0, source)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        (inverse,) = ctx.saved_tensors
        return grad.index_select(0, inverse).view(-1, ctx.chosen, grad.shape[-1]).sum(dim=1), None, None, None


class _Combine(torch.autograd.Function):
    """Each token's output: the sum of its `chosen` routed rows (rows sorted by expert; `inverse` puts them back in
    token order). Forward and backward are gathers (no scatter), so the result does not depend on thread order."""

    @staticmethod
    def forward(ctx: Any, rows: torch.Tensor, inverse: torch.Tensor, source: torch.Tensor, chosen: int) -> torch.Tensor:
        ctx.save_for_backward(source)
        return rows.index_select(0, inverse).view(-1, chosen, rows.shape[-1]).sum(dim=1)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        (source,) = ctx.saved_tensors
        return grad.index_select(0, source), None, None, None


def experts_forward(
    experts: torch.nn.Module,
    hidden: torch.Tensor,
    top_k_index: torch.Tensor,
    top_k_weights: torch.Tensor,
    adapters: dict[str, list[ExpertFactors]],
    use_kernel: bool = True,
) -> torch.Tensor:
    """The experts' output [tokens, hidden] for routed `hidden` [tokens, hidden] (`top_k_index`/`top_k_weights`
    [tokens, k]), with the low-rank terms of `adapters` (by fused parameter name) added to each expert projection.

    The routing weight multiplies the inner activations (before the down projection, which is linear: the same
    result) rather than the output rows, a third as many elements on Qwen3-30B-A3B (768 against 2048 per row)."""
    tokens, chosen = top_k_index.shape
    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    # Counts by scatter-add rather than `bincount`, which reads its input's maximum on the host: no host sync, so a
    # decode step through here can be captured in a CUDA graph.
    counts = torch.zeros(experts.num_experts, dtype=torch.int64, device=flat.device).index_add_(0, flat, torch.ones_like(flat))
    offsets = counts.cumsum(0).to(torch.int32)
    source = order // chosen
    rows = _Dispatch.apply(hidden, source, inverse, chosen)
    transposed = bool(getattr(experts, "is_transposed", False))
    if experts.has_gate:
        projected = expert_projection(rows, experts.gate_up_proj, transposed, adapters.get("gate_up_proj", []), counts, offsets, use_kernel)
        inner = experts._apply_gate(projected)
    else:
        inner = experts.act_fn(expert_projection(rows, experts.up_proj, transposed, adapters.get("up_proj", []), counts, offsets, use_kernel))
    inner = inner * top_k_weights.reshape(-1)[order].unsqueeze(-1).to(inner.dtype)
    output = expert_projection(inner, experts.down_proj, transposed, adapters.get("down_proj", []), counts, offsets, use_kernel)
    return _Combine.apply(output, inverse, source, chosen).to(hidden.dtype)


def wrapper_chain(outer: ParamWrapper) -> tuple[list[ParamWrapper], torch.nn.Module]:
    """The nested wrappers from `outer` inwards, and the experts module they wrap."""
    chain: list[ParamWrapper] = []
    module: torch.nn.Module = outer
    while isinstance(module, ParamWrapper):
        chain.append(module)
        module = module.base_layer
    return chain, module


def _fast_forward(self: ParamWrapper, hidden: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    chain, experts = wrapper_chain(self)
    usable = len(args) == 2 and not kwargs and supports(experts) and not any(wrapper.disable_adapters or wrapper.merged for wrapper in chain)
    adapters: dict[str, list[ExpertFactors]] = {}
    if usable:
        for wrapper in chain:
            if wrapper.parameter_name not in FUSED_PARAMETERS or wrapper.parameter_name in adapters:
                usable = False
                break
            adapters[wrapper.parameter_name] = [peft_factors(wrapper, name) for name in wrapper.active_adapters if name in wrapper.lora_A]
    if not usable:
        return ParamWrapper.forward(self, hidden, *args, **kwargs)
    return experts_forward(experts, hidden, args[0], args[1], adapters)


def install(model: torch.nn.Module) -> int:
    """Gives the outermost expert `ParamWrapper` of each experts module the activation-side forward (inner wrappers keep
    PEFT's, and are reached only through it); returns how many wrappers were (newly) changed."""
    wrappers = [module for module in model.modules() if isinstance(module, ParamWrapper)]
    inner = {id(module.base_layer) for module in wrappers}
    changed = 0
    for wrapper in wrappers:
        outermost = id(wrapper) not in inner
        if outermost and not getattr(wrapper, MARK, False):
            wrapper.forward = types.MethodType(_fast_forward, wrapper)  # type: ignore[method-assign]
            setattr(wrapper, MARK, True)
            changed += 1
        elif not outermost and getattr(wrapper, MARK, False):
            del wrapper.forward
            setattr(wrapper, MARK, False)
    return changed


def stock(model: torch.nn.Module) -> contextlib.AbstractContextManager[None]:
    """Runs `model` with PEFT's own expert forward (for comparisons), restoring the activation-side one afterwards."""
    return fast_lora.stock_forwards(model, MARK, install)


def set_low_rank(wrapper: ParamWrapper, adapter: str, delta: torch.Tensor, rank: int) -> float:
    """Sets `adapter`'s factors on `wrapper` to the best rank-`rank` approximation of each expert's slice of `delta`
    [experts, out, in] (truncated SVD, in PEFT's layout; see `peft_factors`); returns the relative Frobenius error
    over all experts. `wrapper` must hold `adapter` at rank ≥ `rank`."""
    from .adapter_merge import low_rank_factors

    factors = peft_factors(wrapper, adapter)
    approximation = torch.zeros_like(delta, dtype=torch.float64)
    with torch.no_grad():
        factors.down.zero_()
        factors.up.zero_()
        for expert in range(delta.shape[0]):
            up, down, _ = low_rank_factors(delta[expert], rank)
            factors.down[expert, : down.shape[0]] = down.to(factors.down.dtype)
            factors.up[expert, :, : up.shape[1]] = (up / factors.scaling).to(factors.up.dtype)
            approximation[expert] = up.double() @ down.double()
    norm = float(delta.double().norm())
    return float((delta.double() - approximation).norm()) / norm if norm > 0 else 0.0


def split_per_expert(model: torch.nn.Module, adapter: str, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`state` (PEFT's saved names for `adapter`) with every fused expert adapter split per expert and projection,
    the layout vLLM reads for Qwen3-MoE by default: `…mlp.experts.{e}.gate_proj|up_proj|down_proj.lora_A|B.weight`,
    A [rank, in] and B [out, rank]. Exact: gate and up each get the expert's A and their half of its B (gate rows
    first, as the fused parameter stores them). Refuses interleaved gate/up layouts."""
    result = dict(state)
    for module_path, module in model.named_modules():
        if not isinstance(module, ParamWrapper) or adapter not in module.lora_A:
            continue
        experts = module.get_base_layer()
        names = FUSED_PARAMETERS.get(module.parameter_name)
        if names is None or (len(names) == 2 and not getattr(experts, "is_concatenated", False)):
            raise BadRequest(
                f"{module_path}.{module.parameter_name}: only concatenated gate/up and down expert parameters can be split per expert", "layout", "per_expert"
            )
        for kind in ("lora_A", "lora_B"):
            result.pop(f"{module_path}.{kind}.weight")
        owner = ".".join(part for part in module_path.split(".") if part != "base_layer")
        factors = peft_factors(module, adapter)
        with torch.no_grad():
            for expert in range(factors.down.shape[0]):
                ups = factors.up[expert].chunk(len(names), dim=0)
                for name, up in zip(names, ups):
                    result[f"{owner}.{expert}.{name}.lora_A.weight"] = factors.down[expert].detach().to("cpu").clone()  # gate and up: one copy each
                    result[f"{owner}.{expert}.{name}.lora_B.weight"] = up.detach().to("cpu").clone()
    return result
