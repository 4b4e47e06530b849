"""Exporting an adapter merged into its base: a complete Hugging Face checkpoint directory whose adapted weights (linear
layers and fused expert parameters) are the base's plus the adapter's LoRA delta `scaling · B·A` (what PEFT's `merge`
adds), for use as a new base model.

The base weights are read again from the engine's checkpoint directory (in the checkpoint's own dtype, on the CPU), so
the live model is never touched and a bf16-served fp32 checkpoint is exported in fp32. The directory is written beside
its destination and renamed into place, so a reader never sees half of it."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM

from .engine import Engine
from .expert_lora import delta_weight
from .errors import BadRequest, Conflict

# Files of a checkpoint directory that hold weights: everything else (config, generation config, tokenizer files, chat
# template, README …) is copied to the export as it is.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".h5", ".msgpack", ".ckpt")


def is_weight_file(name: str) -> bool:
    return name.endswith(WEIGHT_SUFFIXES) or name.endswith(".index.json")


def check_destination(path: str) -> Path:
    """The export's directory: absent or an empty directory (anything else is refused, naming `path`)."""
    destination = Path(path)
    if destination.is_symlink():
        raise Conflict(f"{destination} is a symbolic link; name a plain directory", "path", path)
    if destination.exists():
        if not destination.is_dir():
            raise Conflict(f"{destination} exists and is not a directory", "path", path)
        if any(destination.iterdir()):
            raise Conflict(f"{destination} exists and is not empty; choose a new directory", "path", path)
    return destination


def adapter_deltas(engine: Engine, name: str) -> dict[str, torch.Tensor]:
    """`{parameter path: ΔW}` on the CPU in fp32 for every base weight adapter `name` adapts, by the parameter's name in
    the checkpoint (`model.layers.0.self_attn.q_proj.weight`; a fused expert parameter such as
    `model.layers.0.mlp.experts.gate_up_proj` gets its per-expert deltas, shaped [experts, out, in] as the parameter)."""
    from peft.tuners.lora.layer import Linear as LoraLinear
    from peft.tuners.lora.layer import LoraLayer, ParamWrapper

    engine.adapter(name)
    deltas: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for module_path, module in engine.base.named_modules():
            if not isinstance(module, LoraLayer):
                continue
            holds = name in module.lora_A or name in getattr(module, "lora_embedding_A", {})
            if not holds:
                continue
            if isinstance(module, ParamWrapper):
                # Nested wrappers (one per fused parameter) sit at `experts`, `experts.base_layer`, …; the checkpoint
                # names the parameter on the experts module itself.
                owner = ".".join(part for part in module_path.split(".") if part != "base_layer")
                deltas[f"{owner}.{module.parameter_name}"] = delta_weight(module, name).cpu()
                continue
            if not isinstance(module, LoraLinear):
                raise BadRequest(f"adapter {name!r} adapts {module_path} ({type(module).__name__}); only linear layers and fused experts can be exported merged", "adapter", name)
            if name in getattr(module, "lora_variant", {}) or getattr(module, "lora_bias", {}).get(name):
                raise BadRequest(f"adapter {name!r} is a LoRA variant (DoRA or LoRA bias) at {module_path}; only plain LoRA can be exported merged", "adapter", name)
            deltas[f"{module_path}.weight"] = module.get_delta_weight(name).detach().float().cpu()
    if not deltas:
        raise BadRequest(f"adapter {name!r} adapts no linear layer", "adapter", name)
    return deltas


def write_merged_checkpoint(checkpoint: Path, deltas: dict[str, torch.Tensor], directory: Path) -> None:
    """Loads the base from `checkpoint`, adds each delta to its weight and saves the result (safetensors) with the
    checkpoint's other files into `directory`."""
    model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype="auto", device_map="cpu")
    with torch.no_grad():
        for parameter_path, delta in deltas.items():
            weight = model.get_parameter(parameter_path)
            if weight.shape != delta.shape:
                raise BadRequest(f"{parameter_path}: the adapter's delta has shape {list(delta.shape)}, the weight {list(weight.shape)}", "adapter", parameter_path)
            weight.copy_((weight.float() + delta).to(weight.dtype))
    model.save_pretrained(directory)
    for source in sorted(checkpoint.iterdir()):
        if source.is_file() and not source.name.startswith(".") and not is_weight_file(source.name):
            shutil.copyfile(source, directory / source.name)  # config, tokenizer and template exactly as the base has them


def export_merged(engine: Engine, name: str, path: str) -> dict[str, object]:
    """Writes adapter `name` merged into the base as a checkpoint directory at `path` (which must be absent or empty)."""
    deltas = adapter_deltas(engine, name)
    destination = check_destination(path)
    checkpoint = engine.model_path
    if not (checkpoint / "config.json").is_file():
        raise BadRequest(f"the engine's model {checkpoint} is not a checkpoint directory to export from", "adapter", name)
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.parent / f".{destination.name}.partial-{uuid.uuid4().hex[:8]}"
    try:
        partial.mkdir()
        write_merged_checkpoint(checkpoint, deltas, partial)
        try:
            os.replace(partial, destination)  # replaces an empty directory; refuses a non-empty one
        except OSError as error:
            raise Conflict(f"{destination} appeared while exporting and is not empty: {error}", "path", path) from error
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    return {"path": str(destination.resolve()), "merged_modules": len(deltas)}
