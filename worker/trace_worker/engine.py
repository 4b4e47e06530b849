"""The engine: one frozen base model (any Hugging Face causal-LM checkpoint) and the LoRA adapters on it.

Every model operation runs on the engine's own thread (see `executor.py`), so sampling and training never overlap and
a chat request after `optim_step` sees the new weights."""

from __future__ import annotations

import contextlib
import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import torch
from peft import LoraConfig, PeftModel, get_peft_model, get_peft_model_state_dict
from peft.tuners.tuners_utils import BaseTunerLayer
from safetensors import safe_open
from safetensors.torch import save_file
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from . import expert_lora, fast_lora
from . import fused_kernels as fused_kernels_module
from .decode_attention import use_grouped_decode_attention
from .errors import BadRequest, Conflict, NotFound

DEFAULT_TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
BASE_ADAPTER = "__base__"
ADAPTER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$")


@dataclass
class AdapterRecord:
    """An adapter the engine holds, with its optimizer (created on the first `optim_step`)."""

    name: str
    rank: int
    alpha: float
    target_modules: list[str]
    source: str
    path: str | None = None
    step: int = 0
    optimizer: torch.optim.AdamW | None = None
    parameters: list[torch.nn.Parameter] = field(default_factory=list)

    @property
    def trainable_parameters(self) -> int:
        return sum(parameter.numel() for parameter in self.parameters)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rank": self.rank,
            "alpha": self.alpha,
            "target_modules": self.target_modules,
            "step": self.step,
            "trainable_parameters": self.trainable_parameters,
            "source": self.source,
        }


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except RuntimeError as error:
        raise BadRequest(f"unknown device {device!r}: {error}", "device", device) from error
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise BadRequest(f"device {device!r} asked for, but CUDA is not available", "device", device)
    return resolved


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    table = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in table:
        raise BadRequest(f"unknown dtype {dtype!r}; use auto, float32, bfloat16 or float16", "dtype", dtype)
    return table[dtype]


class Engine:
    """Holds the base model, its tokenizer and every adapter; not thread-safe (use it from one thread)."""

    def __init__(
        self,
        model_path: str | Path,
        served_name: str | None = None,
        device: str = "auto",
        dtype: str = "auto",
        attention: str = "sdpa",
        fused_kernels: bool = True,
    ) -> None:
        path = Path(model_path)
        if not (path / "config.json").is_file():
            raise BadRequest(f"{path} is not a Hugging Face checkpoint directory (no config.json)", "model", str(path))
        self.model_path = path
        self.served_name = served_name or path.resolve().name
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        tokenizer = AutoTokenizer.from_pretrained(path)
        base: PreTrainedModel = AutoModelForCausalLM.from_pretrained(path, dtype=self.dtype, attn_implementation=attention)
        self._adopt(base.to(self.device), tokenizer, fused_kernels)

    @classmethod
    def from_model(
        cls, base: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, served_name: str, model_path: str | Path = ".", fused_kernels: bool = True
    ) -> "Engine":
        """An engine over a model already in memory (benchmarks build random-weight models this way)."""
        engine = cls.__new__(cls)
        engine.model_path = Path(model_path)
        engine.served_name = served_name
        parameter = next(base.parameters())
        engine.device = parameter.device
        engine.dtype = parameter.dtype
        engine._adopt(base, tokenizer, fused_kernels)
        return engine

    def _adopt(self, base: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, fused_kernels: bool = True) -> None:
        device_type = next(base.parameters()).device.type
        if device_type == "cuda":
            # LoRA weights stay fp32 beside a bf16 base (PEFT's default); TF32 runs their matmuls on tensor cores.
            torch.backends.cuda.matmul.allow_tf32 = True
        self.tokenizer = tokenizer
        use_grouped_decode_attention(base)
        #: The fused kernels in use (Liger's on CUDA where installed), or None.
        self.fused_kernels: str | None = None
        if fused_kernels and device_type == "cuda":
            kernels = fused_kernels_module.liger()
            if kernels is not None and fused_kernels_module.install(base, kernels):
                self.fused_kernels = kernels.name
        base.eval()
        for parameter in base.parameters():
            parameter.requires_grad_(False)
        self.base = base
        self.peft: PeftModel | None = None
        self.adapters: dict[str, AdapterRecord] = {}
        self.adapters_version = 0  # bumped whenever adapters are added or removed (captured graphs go stale)
        self._tuner_layers: tuple[int, list[BaseTunerLayer]] | None = None
        self.linear_module_names = sorted(
            {name.rsplit(".", 1)[-1] for name, module in base.named_modules() if isinstance(module, torch.nn.Linear)}
        )
        self.expert_parameters = expert_lora.fused_expert_parameters(base)
        self.stop_token_ids = self._stop_token_ids()

    # -- model access -------------------------------------------------------------------------------------------

    @property
    def model(self) -> torch.nn.Module:
        """The model to call: the PEFT wrapper once an adapter exists, else the base."""
        return self.peft if self.peft is not None else self.base

    def decoder_and_head(self) -> tuple[torch.nn.Module, torch.nn.Module]:
        """The decoder stack (hidden states after the final norm) and the output projection of the base model."""
        decoder = getattr(self.base, self.base.base_model_prefix)
        return decoder, self.base.get_output_embeddings()

    def plain_logits(self) -> bool:
        """True when logits are exactly `lm_head(hidden)` (no soft-capping or scaling), so they can be chunked."""
        config = self.base.config
        return not any(getattr(config, key, None) for key in ("final_logit_softcapping", "logit_scale"))

    def _stop_token_ids(self) -> list[int]:
        ids: set[int] = set()
        generation = getattr(self.base, "generation_config", None)
        for source in (getattr(generation, "eos_token_id", None), self.tokenizer.eos_token_id):
            if isinstance(source, int):
                ids.add(source)
            elif isinstance(source, (list, tuple)):
                ids.update(int(item) for item in source)
        for token in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>"):
            token_id = self.tokenizer.convert_tokens_to_ids(token)
            if isinstance(token_id, int) and token_id != self.tokenizer.unk_token_id and token_id >= 0:
                if token in self.tokenizer.get_vocab():
                    ids.add(token_id)
        return sorted(ids)

    # -- adapters -----------------------------------------------------------------------------------------------

    def adapter(self, name: str, param: str = "adapter") -> AdapterRecord:
        record = self.adapters.get(name)
        if record is None:
            known = ", ".join(sorted(self.adapters)) or "none"
            raise NotFound(f"no adapter named {name!r} (adapters: {known})", param, name)
        return record

    def check_new_name(self, name: Any, param: str) -> str:
        if not isinstance(name, str) or not ADAPTER_NAME.match(name):
            raise BadRequest(
                f"{param} must be 1–128 characters of letters, digits, '_', '.', ':', '-' (starting with a letter or digit), got {name!r}",
                param,
                name,
            )
        if name in "lora_":
            raise BadRequest(f"{param} {name!r} is part of PEFT's parameter prefix 'lora_'; choose another name", param, name)
        if name == self.served_name or name == BASE_ADAPTER:
            raise Conflict(f"{param} {name!r} is the base model's name", param, name)
        if name in self.adapters:
            raise Conflict(f"an adapter named {name!r} exists; delete or unload it first", param, name)
        return name

    def resolve_target_modules(self, requested: list[str] | None) -> list[str]:
        """The module names an adapter adapts: linear layers by name, plus the fused expert parameters of an MoE model
        by the names of the projections they fuse (gate_proj, up_proj, down_proj)."""
        expert_names = expert_lora.module_names_for(self.expert_parameters)
        known = sorted(set(self.linear_module_names) | set(expert_names))
        if requested is None:
            present = [name for name in DEFAULT_TARGET_MODULES if name in known]
            if not present:
                raise BadRequest(
                    f"none of the default target modules {DEFAULT_TARGET_MODULES} are linear layers or fused experts of this model; name some of {known}",
                    "target_modules",
                    requested,
                )
            return present
        output_layers = {name.rsplit(".", 1)[-1] for name, module in self.base.named_modules() if module is self.base.get_output_embeddings()}
        refused = [name for name in requested if name in output_layers]
        if refused:
            raise BadRequest(
                f"target_modules {refused}: the output layer cannot carry an adapter here (logprobs are computed from its frozen weight)",
                "target_modules",
                refused,
            )
        missing = [name for name in requested if name not in known]
        if missing:
            raise BadRequest(
                f"target_modules {missing} are not linear layers or fused experts of this model (it has {known})",
                "target_modules",
                missing,
            )
        expert_lora.parameters_for(requested, self.expert_parameters)  # refuses gate without up (they are one parameter)
        return list(requested)

    def lora_config(self, rank: int, alpha: float, targets: list[str], dropout: float) -> LoraConfig:
        """PEFT's config for `targets`: linear layers as `target_modules`, fused expert parameters as
        `target_parameters` (per-expert adapters; see `expert_lora`)."""
        parameters = expert_lora.parameters_for(targets, self.expert_parameters)
        fused_only = set(expert_lora.module_names_for(parameters)) - set(self.linear_module_names)
        modules = [name for name in targets if name not in fused_only]
        if parameters:
            if dropout:
                raise BadRequest(f"dropout {dropout} is not supported on expert adapters ({parameters}); use dropout 0", "dropout", dropout)
            existing = {frozenset(self.peft.peft_config[name].target_parameters or ()) for name in self.adapters} if self.peft is not None else set()
            existing.discard(frozenset())
            if existing and frozenset(parameters) not in existing:
                raise BadRequest(
                    f"every adapter on the experts must adapt the same fused parameters (PEFT's rule): existing adapters adapt "
                    f"{sorted(next(iter(existing)))}, this one {parameters}",
                    "target_modules",
                    targets,
                )
        return LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=modules or None, target_parameters=parameters or None, bias="none")

    def create_adapter(
        self, name: str, rank: int, alpha: float, target_modules: list[str] | None, dropout: float = 0.0, seed: int = 0
    ) -> AdapterRecord:
        self.check_new_name(name, "name")
        targets = self.resolve_target_modules(target_modules)
        config = self.lora_config(rank, alpha, targets, dropout)
        generator_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        try:
            if self.peft is None:
                self.peft = get_peft_model(self.base, config, adapter_name=name)
            else:
                self.peft.add_adapter(name, config)
        finally:
            torch.random.set_rng_state(generator_state)
        self.peft.eval()
        return self._register(name, rank, alpha, targets, "created")

    def load_adapter(self, name: str, path: str | Path) -> AdapterRecord:
        self.check_new_name(name, "lora_name")
        directory = Path(path)
        if not (directory / "adapter_config.json").is_file():
            raise BadRequest(f"{directory} is not a PEFT adapter directory (no adapter_config.json)", "lora_path", str(path))
        try:
            if self.peft is None:
                self.peft = PeftModel.from_pretrained(self.base, directory, adapter_name=name, is_trainable=True)
            else:
                self.peft.load_adapter(directory, adapter_name=name, is_trainable=True)
        except (ValueError, KeyError, RuntimeError, OSError) as error:
            raise BadRequest(f"could not load the adapter at {directory}: {error}", "lora_path", str(path)) from error
        self.peft.eval()
        config = self.peft.peft_config[name]
        targets = sorted(config.target_modules or ()) + expert_lora.module_names_for(sorted(config.target_parameters or ()))
        record = self._register(name, int(config.r), float(config.lora_alpha), targets, "loaded")
        record.path = str(directory.resolve())
        weights = directory / "adapter_model.safetensors"
        if weights.is_file():
            # PEFT skips stored weights that match no module (e.g. experts split per expert on a fused-experts model)
            with safe_open(str(weights), framework="pt") as handle:
                kept = set(get_peft_model_state_dict(self.peft, adapter_name=name))
                dropped = sorted(key for key in handle.keys() if key not in kept)
            if dropped:
                self.delete_adapter(name)
                raise BadRequest(
                    f"the adapter at {directory} holds {len(dropped)} weights this model has no place for (first: {dropped[0]}); "
                    "an adapter split per expert (save_adapter layout per_expert) is for vLLM: load PEFT's layout here",
                    "lora_path",
                    str(path),
                )
        return record

    def _register(self, name: str, rank: int, alpha: float, targets: list[str], source: str) -> AdapterRecord:
        assert self.peft is not None
        fast_lora.install(self.peft)
        expert_lora.install(self.peft)
        parameters = [
            parameter for parameter_name, parameter in self.peft.named_parameters() if f".{name}." in parameter_name and "lora_" in parameter_name
        ]
        for parameter in parameters:
            parameter.requires_grad_(True)
        record = AdapterRecord(name=name, rank=rank, alpha=alpha, target_modules=targets, source=source, parameters=parameters)
        self.adapters[name] = record
        self.adapters_version += 1
        return record

    def delete_adapter(self, name: str, param: str = "name") -> None:
        self.adapter(name, param)
        assert self.peft is not None
        del self.adapters[name]
        self.adapters_version += 1
        if self.adapters:
            if self.peft.active_adapter == name:
                self.peft.set_adapter(next(iter(self.adapters)))
            self.peft.delete_adapter(name)
        else:
            self.base = self.peft.unload()
            self.peft = None
        self.base.eval()

    def _adapter_layers(self) -> list[BaseTunerLayer]:
        """The model's adapter layers (PEFT's tuner layers), listed again whenever adapters are added or removed."""
        assert self.peft is not None
        if self._tuner_layers is None or self._tuner_layers[0] != self.adapters_version:
            self._tuner_layers = (self.adapters_version, [module for module in self.peft.modules() if isinstance(module, BaseTunerLayer)])
        return self._tuner_layers[1]

    def point_at(self, name: str) -> None:
        """Makes `name` the adapter every adapter layer applies, as PEFT's `set_adapter` does but without its walk of
        the whole model and its gradient flags (11 ms a switch with 8 adapters on the CPU model, more than a decode
        step; waves of different adapters switch every step). `activate` sets the gradient flags for training."""
        assert self.peft is not None
        if self.peft.active_adapter == name:
            return
        # Plain attributes: `object.__setattr__` skips nn.Module's parameter/buffer/module bookkeeping (hundreds of
        # layers, every decode step).
        for layer in self._adapter_layers():
            object.__setattr__(layer, "_active_adapter", [name])
        self.peft.base_model.active_adapter = name
        self.peft.active_adapter = name

    @contextlib.contextmanager
    def adapters_off(self) -> Iterator[None]:
        """Every adapter layer passes its base layer's output through, as PEFT's `disable_adapter()` does, without
        its per-call walk of the model for a status report (a third of the engine thread's time when a base wave and
        adapter waves decode in turn, step by step)."""
        if self.peft is None:
            yield
            return
        layers = self._adapter_layers()
        previous = [layer._disable_adapters for layer in layers]
        for layer in layers:
            object.__setattr__(layer, "_disable_adapters", True)  # a plain attribute (see `point_at`)
        try:
            yield
        finally:
            for layer, state in zip(layers, previous):
                object.__setattr__(layer, "_disable_adapters", state)

    def activate(self, name: str) -> torch.nn.Module:
        """Makes `name` the adapter that plain forward calls apply (for training) and returns the model to call."""
        record = self.adapter(name)
        assert self.peft is not None
        self.point_at(name)
        for other in self.adapters.values():
            for parameter in other.parameters:
                parameter.requires_grad_(other is record)
        return self.peft

    def adapter_state_dict(self, name: str) -> dict[str, torch.Tensor]:
        """The adapter's weights under PEFT's saved names (`base_model.model.….lora_A.weight`)."""
        self.adapter(name)
        assert self.peft is not None
        state = get_peft_model_state_dict(self.peft, adapter_name=name)
        return {key: value.detach().to("cpu").contiguous() for key, value in state.items()}

    def save_adapter(self, name: str, path: str | Path, layout: str = "peft") -> Path:
        """Writes `adapter_config.json` + `adapter_model.safetensors` in PEFT's layout, or with `layout="per_expert"`
        with fused expert adapters split per expert and projection (what vLLM reads for Qwen3-MoE by default; `load_adapter`
        refuses that layout, see `expert_lora.split_per_expert`)."""
        if layout not in ("peft", "per_expert"):
            raise BadRequest(f"layout must be peft or per_expert, got {layout!r}", "layout", layout)
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        assert self.peft is not None
        state = self.adapter_state_dict(name)
        config = self.peft.peft_config[name]
        if layout == "per_expert" and config.target_parameters:
            state = expert_lora.split_per_expert(self.peft, name, state)
            config = copy.deepcopy(config)
            config.target_modules = set(config.target_modules or ()) | set(expert_lora.module_names_for(sorted(config.target_parameters)))
            config.target_parameters = None
        save_file(state, str(directory / "adapter_model.safetensors"), metadata={"format": "pt"})
        original = config.base_model_name_or_path
        config.base_model_name_or_path = str(self.model_path.resolve())
        config.inference_mode = True
        try:
            config.save_pretrained(str(directory))
        finally:
            config.base_model_name_or_path = original
            config.inference_mode = False
        return directory

    def model_names(self) -> list[str]:
        return [self.served_name, *self.adapters]
