"""The Tinker-shaped trainer: forward_backward with per-token losses, optim_step, adapter files and resumable state."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import torch
from peft import set_peft_model_state_dict

from .collective import Collective
from .datums import LOSSES, Datum, parse_datums
from .engine import Engine
from .errors import BadRequest, NotFound
from .fields import number_field, string_field
from .token_logprobs import chunked_token_logprobs

STATE_FILE = "trainer_state.pt"


def rank_share(datums: list[Datum], rank: int, world_size: int) -> list[int]:
    """The indices of the datums `rank` computes: longest first, each to the rank with the fewest tokens so far (ties to
    the lowest rank). Every rank derives the same partition from the same datums, and the ranks' token counts differ by
    at most one datum's length, so no rank waits long on another at the all-reduce (a split by count can leave one
    rank with every long sequence)."""
    if world_size == 1:
        return list(range(len(datums)))
    loads = [0] * world_size
    owned: list[list[int]] = [[] for _ in range(world_size)]
    for index in sorted(range(len(datums)), key=lambda item: (-len(datums[item].tokens), item)):
        lightest = min(range(world_size), key=lambda candidate: (loads[candidate], candidate))
        owned[lightest].append(index)
        loads[lightest] += len(datums[index].tokens)
    return sorted(owned[rank])


class Trainer:
    """Runs the trainer calls on an engine; under torchrun every rank runs every call on its share of the datums."""

    def __init__(self, engine: Engine, collective: Collective | None = None, micro_batch_tokens: int = 16384) -> None:
        self.engine = engine
        self.collective = collective or Collective()
        self.micro_batch_tokens = micro_batch_tokens
        #: Run every call with PyTorch's deterministic algorithms (`serve --deterministic`); sampling is left as it is.
        self.deterministic = False

    @contextlib.contextmanager
    def algorithms(self) -> Any:
        """The algorithms a trainer call runs with: deterministic ones when asked (restored afterwards), else unchanged."""
        if not self.deterministic:
            yield
            return
        previous = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(previous)

    # -- adapters -----------------------------------------------------------------------------------------------

    def create_adapter(self, body: dict[str, Any]) -> dict[str, Any]:
        name = self.engine.check_new_name(body.get("name"), "name")
        rank = body.get("rank", 16)
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= 1024:
            raise BadRequest(f"rank must be an integer in [1, 1024], got {rank!r}", "rank", rank)
        alpha = number_field(body, "alpha", 16.0, 0.0)
        dropout = number_field(body, "dropout", 0.0, 0.0, 0.9)
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise BadRequest(f"seed must be an integer, got {seed!r}", "seed", seed)
        targets = body.get("target_modules")
        if targets is not None and (not isinstance(targets, list) or not targets or not all(isinstance(item, str) for item in targets)):
            raise BadRequest("target_modules must be a non-empty list of module names", "target_modules", targets)
        record = self.engine.create_adapter(name, rank, alpha, targets, dropout, seed)
        self.collective.broadcast_tensors([parameter for parameter in record.parameters])
        return {"name": name, "trainable_parameters": record.trainable_parameters, "target_modules": record.target_modules}

    def delete_adapter(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "name")
        self.engine.delete_adapter(name)
        return {"deleted": name}

    def list_adapters(self) -> dict[str, Any]:
        return {"adapters": [record.describe() for record in self.engine.adapters.values()]}

    def merge_adapters(self, body: dict[str, Any]) -> dict[str, Any]:
        """A new adapter whose delta on every module the sources share is their linear or TIES merge, refactorised by
        truncated SVD to `rank` (default: the sum of the sources' ranks, exact for a linear merge)."""
        name = self.engine.check_new_name(body.get("name"), "name")
        sources = body.get("sources")
        if not isinstance(sources, list) or len(sources) < 2 or not all(isinstance(item, str) for item in sources):
            raise BadRequest("sources must list at least two adapter names", "sources", sources)
        records = [self.engine.adapter(source, "sources") for source in sources]
        weights = body.get("weights", [1.0 / len(sources)] * len(sources))
        if not isinstance(weights, list) or len(weights) != len(sources) or not all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in weights):
            raise BadRequest("weights must be one number per source", "weights", weights)
        method = body.get("method", "linear")
        if method not in ("linear", "ties"):
            raise BadRequest(f"method must be linear or ties, got {method!r}", "method", method)
        density = number_field(body, "density", 0.2, 0.0, 1.0)
        rank = body.get("rank", sum(record.rank for record in records))
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise BadRequest(f"rank must be a positive integer, got {rank!r}", "rank", rank)
        assert self.engine.peft is not None
        from peft.tuners.lora.layer import Linear as LoraLinear
        from peft.tuners.lora.layer import ParamWrapper

        from . import expert_lora
        from .adapter_merge import linear_merge, low_rank_factors, ties_merge

        merged: dict[str, torch.Tensor] = {}
        target_names: set[str] = set()
        for module_name, module in self.engine.peft.named_modules():
            if not isinstance(module, (LoraLinear, ParamWrapper)) or not all(source in module.lora_A for source in sources):
                continue
            with torch.no_grad():
                if isinstance(module, ParamWrapper):
                    deltas = [expert_lora.delta_weight(module, source) for source in sources]  # [experts, out, in]
                else:
                    # fp64: on a GPU fp32 products may run in TF32 (the engine allows it), whose rounding the merge would keep.
                    deltas = [((module.lora_B[source].weight.double() @ module.lora_A[source].weight.double()) * module.scaling[source]).float() for source in sources]
                merged[module_name] = ties_merge(deltas, [float(w) for w in weights], density) if method == "ties" else linear_merge(deltas, [float(w) for w in weights])
            fused = isinstance(module, ParamWrapper)
            target_names.update(expert_lora.module_names_for([module.parameter_name]) if fused else [module_name.rsplit(".", 1)[-1]])
        if not merged:
            raise BadRequest("the sources share no adapted module", "sources", sources)
        targets = sorted(target_names)
        record = self.engine.create_adapter(name, rank, float(rank), targets)
        errors: list[float] = []
        with torch.no_grad():
            for module_name, module in self.engine.peft.named_modules():
                if module_name in merged and isinstance(module, ParamWrapper) and name in module.lora_A:
                    errors.append(expert_lora.set_low_rank(module, name, merged[module_name], rank))
                elif module_name in merged and name in getattr(module, "lora_A", {}):
                    up, down, error = low_rank_factors(merged[module_name], rank)
                    module.lora_A[name].weight.zero_()
                    module.lora_B[name].weight.zero_()
                    module.lora_A[name].weight[: down.shape[0]].copy_(down.to(module.lora_A[name].weight.dtype))
                    module.lora_B[name].weight[:, : up.shape[1]].copy_(up.to(module.lora_B[name].weight.dtype))
                    errors.append(error)
        self.collective.broadcast_tensors(list(record.parameters))
        return {
            "name": name, "method": method, "rank": rank, "modules": len(errors), "target_modules": targets,
            "max_relative_error": max(errors), "mean_relative_error": sum(errors) / len(errors),
        }

    # -- forward / backward -------------------------------------------------------------------------------------

    def _datums(self, body: dict[str, Any], loss: str | None) -> list[Datum]:
        config = self.engine.base.config
        vocabulary = int(self.engine.base.get_output_embeddings().weight.shape[0])
        limit = int(getattr(config, "max_position_embeddings", 1 << 20))
        return parse_datums(body.get("datums"), loss, vocabulary, limit)

    def _micro_batches(self, indices: list[int], datums: list[Datum]) -> list[list[int]]:
        batches: list[list[int]] = []
        current: list[int] = []
        longest = 0
        for index in sorted(indices, key=lambda item: -len(datums[item].tokens)):
            length = len(datums[index].tokens)
            if current and max(longest, length) * (len(current) + 1) > self.micro_batch_tokens:
                batches.append(current)
                current, longest = [], 0
            current.append(index)
            longest = max(longest, length)
        if current:
            batches.append(current)
        return batches

    def _batch_tensors(self, batch: list[Datum]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, list[int]]:
        """Right-padded input ids, target ids and attention mask [datums × longest], the flat positions of the real
        tokens in datum order, and each datum's length. Built with one tensor per field for the whole batch: a
        `torch.tensor` and row copy per datum took 6–7 ms for 64 datums of 206 tokens, this 2–3 ms (a GPU step of a
        tiny model is a few tens of ms)."""
        lengths = [len(datum.tokens) for datum in batch]
        width = max(lengths)
        pad = self.engine.tokenizer.pad_token_id or 0
        real = torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]
        positions = real.reshape(-1).nonzero().squeeze(1)
        input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
        targets = torch.zeros((len(batch), width), dtype=torch.long)
        input_ids.view(-1)[positions] = torch.tensor(list(chain.from_iterable(datum.tokens for datum in batch)), dtype=torch.long)
        targets.view(-1)[positions] = torch.tensor(list(chain.from_iterable(datum.target_tokens for datum in batch)), dtype=torch.long)
        return input_ids, targets, real.long(), positions, lengths

    def _logprobs(self, batch: list[Datum], rows: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, list[int]]:
        """Flat logprobs and entropies of every datum's targets (in datum order) and each datum's length; with `rows`
        (indices into that flat order) only those targets go through the output layer."""
        device = self.engine.device
        input_ids, targets, mask, positions, lengths = self._batch_tensors(batch)
        if rows is not None:
            positions = positions.index_select(0, rows)
        input_ids, targets, mask, positions = (to_device(tensor, device) for tensor in (input_ids, targets, mask, positions))
        if self.engine.plain_logits():
            decoder, head = self.engine.decoder_and_head()
            # Without padding no mask is passed, so attention takes its causal fast path without inspecting one.
            hidden = decoder(input_ids=input_ids, attention_mask=mask if min(lengths) < input_ids.shape[1] else None, use_cache=False).last_hidden_state
            flat = hidden.reshape(-1, hidden.shape[-1]).index_select(0, positions)
            logprobs, entropies = chunked_token_logprobs(flat, head.weight, targets.reshape(-1).index_select(0, positions))
        else:
            logits = self.engine.model(input_ids=input_ids, attention_mask=mask, use_cache=False).logits.float()
            log_probabilities = torch.log_softmax(logits.reshape(-1, logits.shape[-1]).index_select(0, positions), dim=-1)
            logprobs = log_probabilities.gather(-1, targets.reshape(-1).index_select(0, positions)[:, None]).squeeze(-1)
            with torch.no_grad():
                entropies = -(log_probabilities.exp() * log_probabilities).sum(-1)
        return logprobs, entropies, lengths

    def forward(self, body: dict[str, Any]) -> dict[str, Any]:
        name = body.get("adapter")
        datums = self._datums(body, None)
        context = self._adapter_context(name)
        mine = rank_share(datums, self.collective.rank, self.collective.world_size)
        results: dict[int, list[float]] = {}
        with torch.no_grad(), context:
            for batch_indices in self._micro_batches(mine, datums):
                logprobs, _entropies, lengths = self._logprobs([datums[index] for index in batch_indices])
                for index, piece in zip(batch_indices, torch.split(logprobs, lengths)):
                    results[index] = piece.tolist()
        merged: dict[int, list[float]] = {}
        for part in self.collective.gather_objects(results):
            merged.update(part)
        return {"logprobs": [merged[index] for index in range(len(datums))]}

    def _adapter_context(self, name: Any) -> contextlib.AbstractContextManager[Any]:
        """Applies adapter `name` to plain forward calls, or no adapter for the base model (None or its name)."""
        if name is None or name == self.engine.served_name:
            if self.engine.peft is None:
                return contextlib.nullcontext()
            return self.engine.adapters_off()
        if not isinstance(name, str):
            raise BadRequest("adapter must be a string", "adapter", name)
        self.engine.activate(name)
        return contextlib.nullcontext()

    def forward_backward(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "adapter")
        loss_name = body.get("loss", "cross_entropy")
        if loss_name not in LOSSES:
            raise BadRequest(f"loss must be one of {list(LOSSES)}, got {loss_name!r}", "loss", loss_name)
        config = body.get("loss_config") or {}
        if not isinstance(config, dict):
            raise BadRequest("loss_config must be an object", "loss_config", config)
        clip_low = number_field(config, "clip_low", 0.8, 0.0)
        clip_high = number_field(config, "clip_high", 1.2, 0.0)
        if clip_low > 1.0 or clip_high < 1.0:
            raise BadRequest(f"need clip_low ≤ 1 ≤ clip_high, got {clip_low} and {clip_high}", "loss_config", config)
        return_logprobs = body.get("return_logprobs", True)
        if not isinstance(return_logprobs, bool):
            raise BadRequest("return_logprobs must be true or false", "return_logprobs", return_logprobs)
        self.engine.adapter(name)
        datums = self._datums(body, loss_name)
        self.engine.activate(name)
        mine = rank_share(datums, self.collective.rank, self.collective.world_size)
        sums = torch.zeros(7, dtype=torch.float64, device=self.engine.device)  # loss, tokens, clipped, kl, entropy, ratio, ratio-tokens
        pieces: dict[int, torch.Tensor] = {}
        for batch_indices in self._micro_batches(mine, datums):
            batch = [datums[index] for index in batch_indices]
            columns = LossColumns.of(batch)
            rows = None
            if not return_logprobs and columns.weighted is not None:
                # Tokens of weight 0 add nothing to the loss, its gradient or the metrics (all masked by the weights):
                # without logprobs to return, only the weighted ones go through the output layer.
                rows = columns.weighted
                columns = columns.select(rows)
            logprobs, entropies, lengths = self._logprobs(batch, rows)
            loss, metrics = token_loss(loss_name, logprobs, entropies, columns, clip_low, clip_high)
            loss.backward()
            sums += metrics
            if return_logprobs:
                for index, piece in zip(batch_indices, torch.split(logprobs.detach(), lengths)):
                    pieces[index] = piece
        # One device → host copy per call: no synchronisation between micro-batches.
        results = {index: piece.tolist() for index, piece in pieces.items()}
        totals = sums.cpu()
        self.collective.all_reduce_sum([totals])
        merged: dict[int, list[float]] = {}
        for part in self.collective.gather_objects(results):
            merged.update(part)
        loss_sum, tokens, clipped, kl, entropy, ratio, ratio_tokens = totals.tolist()
        answer = {
            "loss": loss_sum,
            "tokens": tokens,
            "metrics": {
                "loss_sum": loss_sum,
                "loss_per_token": loss_sum / tokens if tokens else 0.0,
                "clip_fraction": clipped / ratio_tokens if ratio_tokens else None,
                "approx_kl": kl / ratio_tokens if ratio_tokens else None,
                "mean_ratio": ratio / ratio_tokens if ratio_tokens else None,
                "entropy": entropy / tokens if tokens else 0.0,
            },
        }
        if return_logprobs:
            answer["logprobs"] = [merged[index] for index in range(len(datums))]
        return answer

    # -- optimizer ----------------------------------------------------------------------------------------------

    def optim_step(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "adapter")
        record = self.engine.adapter(name)
        learning_rate = number_field(body, "learning_rate", 1e-5, 0.0)
        beta1 = number_field(body, "beta1", 0.9, 0.0, 1.0)
        beta2 = number_field(body, "beta2", 0.999, 0.0, 1.0)
        eps = number_field(body, "eps", 1e-8, 0.0)
        weight_decay = number_field(body, "weight_decay", 0.0, 0.0)
        max_grad_norm = number_field(body, "max_grad_norm", 1.0, 0.0)
        parameters = record.parameters
        # Asked of every rank together: a rank whose share of the datums was empty has no gradients of its own, yet
        # must join the all-reduce below (alone, it would refuse and leave the others waiting).
        has_gradients = torch.tensor([float(any(parameter.grad is not None for parameter in parameters))])
        self.collective.all_reduce_sum([has_gradients])
        if has_gradients.item() == 0:
            raise BadRequest(f"adapter {name!r} has no gradients: call forward_backward before optim_step", "adapter", name)
        for parameter in parameters:
            if parameter.grad is None:
                parameter.grad = torch.zeros_like(parameter)
        self.collective.all_reduce_sum([parameter.grad for parameter in parameters if parameter.grad is not None])
        grad_norm = torch.nn.utils.clip_grad_norm_(parameters, max_grad_norm if max_grad_norm > 0 else float("inf"))
        if record.optimizer is None:
            record.optimizer = torch.optim.AdamW(parameters, lr=learning_rate, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)
        for group in record.optimizer.param_groups:
            group.update(lr=learning_rate, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)
        record.optimizer.step()
        record.optimizer.zero_grad(set_to_none=True)
        record.step += 1
        return {"step": record.step, "grad_norm": float(grad_norm)}

    # -- files --------------------------------------------------------------------------------------------------

    def save_adapter(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "adapter")
        path = string_field(body, "path")
        layout = body.get("layout", "peft")
        self.engine.adapter(name)
        if self.collective.rank == 0:
            self.engine.save_adapter(name, path, layout)
        return {"path": str(Path(path).resolve()), "files": ["adapter_config.json", "adapter_model.safetensors"]}

    def export_merged(self, body: dict[str, Any]) -> dict[str, Any]:
        """Writes the base with adapter `adapter` merged in as a checkpoint directory at `path` (absent or empty)."""
        from .merged_export import export_merged

        name = string_field(body, "adapter")
        path = string_field(body, "path")
        self.engine.adapter(name)
        if self.collective.rank == 0:
            return export_merged(self.engine, name, path)
        return {"path": path, "merged_modules": 0}  # the other ranks' answers are not sent

    def save_state(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "adapter")
        path = Path(string_field(body, "path"))
        record = self.engine.adapter(name)
        if self.collective.rank == 0:
            self.engine.save_adapter(name, path)
            state = {
                "name": name,
                "rank": record.rank,
                "alpha": record.alpha,
                "target_modules": record.target_modules,
                "step": record.step,
                "adapter": self.engine.adapter_state_dict(name),
                "optimizer": record.optimizer.state_dict() if record.optimizer is not None else None,
            }
            temporary = path / (STATE_FILE + ".partial")
            torch.save(state, temporary)
            temporary.replace(path / STATE_FILE)
        return {"path": str(path.resolve()), "step": record.step}

    def load_state(self, body: dict[str, Any]) -> dict[str, Any]:
        name = string_field(body, "adapter")
        path = Path(string_field(body, "path"))
        file = path / STATE_FILE
        if not file.is_file():
            raise NotFound(f"no trainer state at {file}", "path", str(path))
        try:
            state = torch.load(file, map_location="cpu", weights_only=True)
        except Exception as error:  # a torn or foreign file: say which
            raise BadRequest(f"{file} is not a trainer state file: {error}", "path", str(path)) from error
        if name not in self.engine.adapters:
            self.engine.create_adapter(name, int(state["rank"]), float(state["alpha"]), list(state["target_modules"]))
        record = self.engine.adapter(name)
        assert self.engine.peft is not None
        result = set_peft_model_state_dict(self.engine.peft, state["adapter"], adapter_name=name)
        unexpected = [key for key in getattr(result, "unexpected_keys", []) if "lora_" in key]
        if unexpected:
            raise BadRequest(f"{file} holds weights this adapter lacks: {unexpected[:3]}", "path", str(path))
        record.step = int(state["step"])
        record.optimizer = None
        if state["optimizer"] is not None:
            record.optimizer = torch.optim.AdamW(record.parameters)
            record.optimizer.load_state_dict(state["optimizer"])
        for parameter in record.parameters:
            parameter.grad = None
        return {"adapter": name, "step": record.step}


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """Host → device without making the host wait for the GPU (pinned memory, asynchronous copy)."""
    if device.type == "cuda":
        return tensor.pin_memory().to(device, non_blocking=True)
    return tensor.to(device)


@dataclass
class LossColumns:
    """A micro-batch's per-token loss inputs, flat in datum order, on the host: weights (1 where a datum has none),
    sampling logprobs and advantages (None when no datum has them), and the indices of the tokens of non-zero weight
    (None when no datum has weights: every token counts)."""

    weights: torch.Tensor
    sampling: torch.Tensor | None
    advantages: torch.Tensor | None
    weighted: torch.Tensor | None

    @staticmethod
    def of(batch: list[Datum]) -> "LossColumns":
        def column(values: list[list[float] | None], default: float) -> torch.Tensor:
            parts = (series if series is not None else repeat(default, len(datum.tokens)) for datum, series in zip(batch, values))
            return torch.tensor(list(chain.from_iterable(parts)), dtype=torch.float32)

        weights = column([datum.weights for datum in batch], 1.0)
        has_weights = any(datum.weights is not None for datum in batch)
        has_sampling = any(datum.sampling_logprobs is not None for datum in batch)
        has_advantages = any(datum.advantages is not None for datum in batch)
        return LossColumns(
            weights,
            column([datum.sampling_logprobs for datum in batch], 0.0) if has_sampling else None,
            column([datum.advantages for datum in batch], 0.0) if has_advantages else None,
            (weights != 0).nonzero().squeeze(1) if has_weights else None,
        )

    def select(self, rows: torch.Tensor) -> "LossColumns":
        """These columns at `rows` only."""

        def pick(values: torch.Tensor | None) -> torch.Tensor | None:
            return None if values is None else values.index_select(0, rows)

        return LossColumns(self.weights.index_select(0, rows), pick(self.sampling), pick(self.advantages), None)


def token_loss(
    loss_name: str, logprobs: torch.Tensor, entropies: torch.Tensor, columns: LossColumns, clip_low: float, clip_high: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """The summed per-token loss of a micro-batch and metric sums (loss, tokens, clipped, kl, entropy, ratio, ratio
    tokens), all on the device: nothing here waits for the GPU."""
    device = logprobs.device
    weights = to_device(columns.weights, device)
    active = (weights != 0).float()
    sampling = None if columns.sampling is None else to_device(columns.sampling, device)
    if loss_name == "cross_entropy":
        loss = -(weights * logprobs).sum()
    else:
        assert sampling is not None and columns.advantages is not None
        advantages = to_device(columns.advantages, device)
        ratio = torch.exp(logprobs - sampling)
        if loss_name == "importance_sampling":
            loss = -(weights * advantages * ratio).sum()
        else:
            unclipped = ratio * advantages
            clipped = torch.clamp(ratio, clip_low, clip_high) * advantages
            loss = -(weights * torch.minimum(unclipped, clipped)).sum()
    with torch.no_grad():
        zero = torch.zeros((), dtype=torch.float64, device=device)
        parts = [loss.detach().double(), active.sum().double(), zero, zero, (entropies * active).sum().double(), zero, zero]
        if sampling is not None:
            log_ratio = logprobs.detach() - sampling
            ratio_value = log_ratio.exp()
            outside = ((ratio_value < clip_low) | (ratio_value > clip_high)).float()
            parts[2] = (outside * active).sum().double()
            parts[3] = (((ratio_value - 1) - log_ratio) * active).sum().double()
            parts[5] = (ratio_value * active).sum().double()
            parts[6] = active.sum().double()
        metrics = torch.stack(parts)
    return loss, metrics
