"""Batched sampling with a KV cache: several requests (for the base and any adapters) decode together, one token per
step, each with its own temperature, top-p, seed, stop strings and logprob options."""

from __future__ import annotations

import functools

import math
import random
from dataclasses import dataclass, field
from typing import Any

import torch

from .engine import Engine
from .errors import BadRequest, NotFound
from .graph_decoder import EagerStepper, GraphDecoder, GraphStepper


@dataclass
class SamplingRequest:
    """One completion to generate; `adapter` None means the base model."""

    prompt_ids: list[int]
    adapter: str | None = None
    max_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    top_logprobs: int = 0
    logprob_token_ids: list[int] = field(default_factory=list)


@dataclass
class TokenCandidates:
    """A generated position: the chosen token's raw logprob and the listed candidates (id, logprob)."""

    token_id: int
    logprob: float
    candidates: list[tuple[int, float]]


@dataclass
class SamplingResult:
    completion_ids: list[int]
    positions: list[TokenCandidates]
    text: str
    finish_reason: str


def _filter_top_p(probabilities: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
    """Per row, True for the smallest set of tokens whose mass reaches top_p (nucleus sampling)."""
    sorted_probabilities, order = torch.sort(probabilities, dim=-1, descending=True)
    cumulative = torch.cumsum(sorted_probabilities, dim=-1)
    keep_sorted = (cumulative - sorted_probabilities) < top_p[:, None]
    return torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)


_MASK_64 = (1 << 64) - 1


def _signed(value: int) -> int:
    value &= _MASK_64
    return value - (1 << 64) if value >= 1 << 63 else value


_GOLDEN = _signed(0x9E3779B97F4A7C15)
_MIX_1 = _signed(0xBF58476D1CE4E5B9)
_MIX_2 = _signed(0x94D049BB133111EB)


def _shift_right(values: torch.Tensor, bits: int) -> torch.Tensor:
    """Logical right shift of int64 values (torch's >> is arithmetic)."""
    return (values >> bits) & ((1 << (64 - bits)) - 1)


def seeded_uniforms(seeds: torch.Tensor, step: int, vocabulary: int) -> torch.Tensor:
    """Uniform (0, 1) noise [rows, vocabulary], a pure function of (seed, step, token): splitmix64 of a counter.

    Written by hand because torch's generators give one stream per call, so seeded rows would need one sampling call
    each; a counter-based hash samples every row at once and makes a seeded sample independent of its batch."""
    counter = seeds[:, None] * _GOLDEN + (step * vocabulary + torch.arange(vocabulary, device=seeds.device, dtype=torch.int64))[None, :]
    z = counter + _GOLDEN
    z = (z ^ _shift_right(z, 30)) * _MIX_1
    z = (z ^ _shift_right(z, 27)) * _MIX_2
    z = z ^ _shift_right(z, 31)
    return (_shift_right(z, 11).double() + 0.5) / float(1 << 53)


def _text_bytes(value: Any) -> int:
    """UTF-8 bytes of every string inside a JSON-like value (message contents, tool call arguments, tool schemas)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, dict):
        return sum(_text_bytes(item) for item in value.values())
    if isinstance(value, list):
        return sum(_text_bytes(item) for item in value)
    return 0


class Sampler:
    """Generates completions for a batch of requests with one shared KV cache."""

    def __init__(self, engine: Engine, cuda_graphs: bool = True) -> None:
        self.engine = engine
        self.graphs = GraphDecoder(engine, cuda_graphs)

    def context_length(self) -> int:
        return int(getattr(self.engine.base.config, "max_position_embeddings", 4096))

    @functools.cached_property
    def longest_token_bytes(self) -> int:
        """The most UTF-8 bytes any vocabulary entry spells (byte-level entries count their mapped characters, which
        overestimates: the bound below stays safe)."""
        return max((len(token.encode("utf-8")) for token in self.engine.tokenizer.get_vocab()), default=1) or 1

    def check_length_bound(self, messages: Any, tools: Any) -> None:
        """Refuses, before tokenizing, a prompt whose text alone needs more tokens than the context: every token spells
        at most `longest_token_bytes` bytes, so B bytes of message text need at least B / that many tokens. A 50 MB
        prompt is refused in microseconds instead of after minutes of tokenization."""
        limit = self.context_length()
        text_bytes = _text_bytes(messages) + _text_bytes(tools)
        at_least = text_bytes // self.longest_token_bytes
        if at_least >= limit:
            raise BadRequest(
                f"the prompt has at least {at_least} tokens ({text_bytes} bytes of text); the model's context is {limit}", "messages", at_least
            )

    def check(self, request: SamplingRequest) -> None:
        limit = self.context_length()
        if len(request.prompt_ids) >= limit:
            raise BadRequest(f"the prompt has {len(request.prompt_ids)} tokens; the model's context is {limit}", "messages", len(request.prompt_ids))
        request.max_tokens = min(request.max_tokens, limit - len(request.prompt_ids))
        vocabulary = int(self.engine.base.get_output_embeddings().weight.shape[0])
        for index, token_id in enumerate(request.logprob_token_ids):
            if not 0 <= token_id < vocabulary:
                raise BadRequest(f"logprob_token_ids[{index}] = {token_id} is outside the vocabulary [0, {vocabulary})", f"logprob_token_ids[{index}]", token_id)
        if request.adapter is not None and request.adapter not in self.engine.adapters:
            known = ", ".join(self.engine.model_names())
            raise NotFound(f"no model or adapter named {request.adapter!r} (models: {known})", "model", request.adapter)

    @torch.no_grad()
    def generate(self, requests: list[SamplingRequest]) -> list[SamplingResult]:
        """Decodes the requests together; requests for different adapters decode as separate groups (a plain forward
        with one active adapter has no per-layer index work, unlike PEFT's mixed-adapter batches)."""
        groups: dict[str | None, list[int]] = {}
        for index, request in enumerate(requests):
            groups.setdefault(request.adapter, []).append(index)
        results: list[SamplingResult | None] = [None] * len(requests)
        for adapter, indices in groups.items():
            if adapter is None and self.engine.peft is not None:
                with self.engine.peft.disable_adapter():
                    group_results = self._generate_group(adapter, [requests[index] for index in indices])
            else:
                if adapter is not None:
                    self.engine.activate(adapter)
                group_results = self._generate_group(adapter, [requests[index] for index in indices])
            for index, result in zip(indices, group_results):
                results[index] = result
        return [result for result in results if result is not None]

    def _generate_group(self, adapter: str | None, requests: list[SamplingRequest]) -> list[SamplingResult]:
        engine = self.engine
        device = engine.device
        count = len(requests)
        width = max(len(request.prompt_ids) for request in requests)
        pad = engine.tokenizer.pad_token_id if engine.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((count, width), pad, dtype=torch.long)
        attention = torch.zeros((count, width), dtype=torch.long)
        for row, request in enumerate(requests):
            length = len(request.prompt_ids)
            input_ids[row, width - length :] = torch.tensor(request.prompt_ids)
            attention[row, width - length :] = 1
        input_ids, attention = input_ids.to(device), attention.to(device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        model = engine.model

        temperatures = torch.tensor([max(request.temperature, 1e-6) for request in requests], dtype=torch.float32, device=device)
        top_ps = torch.tensor([request.top_p for request in requests], dtype=torch.float32, device=device)
        greedy = torch.tensor([request.temperature == 0 for request in requests], device=device)
        seeds = torch.tensor(
            [request.seed if request.seed is not None else random.getrandbits(62) for request in requests], dtype=torch.int64, device=device
        )
        any_top_p = any(request.top_p < 1.0 for request in requests)
        all_greedy = all(request.temperature == 0 for request in requests)
        stop_ids = set(engine.stop_token_ids)
        listed = max(request.top_logprobs for request in requests)

        completions: list[list[int]] = [[] for _ in requests]
        records: list[list[TokenCandidates]] = [[] for _ in requests]
        finish: list[str | None] = [None] * count
        texts: list[str | None] = [None] * count
        steps = max(request.max_tokens for request in requests)

        output = model(input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True, logits_to_keep=1)
        logits = output.logits[:, -1, :]
        stepper: EagerStepper | GraphStepper | None = None
        if steps > 1:
            stepper = self.graphs.stepper(adapter, model, output.past_key_values, attention, positions, steps)
        if stepper is None:
            stepper = EagerStepper(model, output.past_key_values, attention, positions[:, -1:] + 1)
        for step in range(steps):
            raw = logits.float()
            log_probabilities = torch.log_softmax(raw, dim=-1)
            if all_greedy:
                chosen = torch.argmax(raw, dim=-1)
            else:
                scaled = raw / temperatures[:, None]
                if any_top_p:
                    keep = _filter_top_p(torch.softmax(scaled, dim=-1), top_ps)
                    scaled = scaled.masked_fill(~keep, float("-inf"))
                gumbel = -torch.log(-torch.log(seeded_uniforms(seeds, step, raw.shape[-1])))
                sampled = torch.argmax(scaled.double() + gumbel, dim=-1)
                chosen = torch.where(greedy, torch.argmax(raw, dim=-1), sampled)
            chosen_logprobs = log_probabilities.gather(-1, chosen[:, None]).squeeze(-1)
            top_index_list = top_value_list = None
            if listed > 0:
                top_values, top_indices = torch.topk(log_probabilities, k=min(listed, log_probabilities.shape[-1]), dim=-1)
                top_index_list, top_value_list = top_indices.tolist(), top_values.tolist()
            wanted = sorted({token_id for request in requests for token_id in request.logprob_token_ids})
            wanted_values = log_probabilities[:, wanted].tolist() if wanted else None
            chosen_list = chosen.tolist()
            chosen_logprob_list = chosen_logprobs.tolist()
            for row, request in enumerate(requests):
                if finish[row] is not None:
                    continue
                token_id = chosen_list[row]
                candidates: list[tuple[int, float]] = []
                if request.top_logprobs > 0 and top_index_list is not None and top_value_list is not None:
                    candidates = list(zip(top_index_list[row][: request.top_logprobs], top_value_list[row][: request.top_logprobs]))
                if request.logprob_token_ids and wanted_values is not None:
                    present = {candidate[0] for candidate in candidates}
                    for extra_id in request.logprob_token_ids:
                        if extra_id not in present:
                            candidates.append((extra_id, wanted_values[row][wanted.index(extra_id)]))
                            present.add(extra_id)
                completions[row].append(token_id)
                records[row].append(TokenCandidates(token_id, chosen_logprob_list[row], candidates))
                if token_id in stop_ids:
                    finish[row] = "stop"
                elif request.stop:
                    text = engine.tokenizer.decode(completions[row], skip_special_tokens=False)
                    cut = min((index for index in (text.find(stop) for stop in request.stop) if index >= 0), default=-1)
                    if cut >= 0:
                        texts[row] = text[:cut]
                        finish[row] = "stop"
                if finish[row] is None and len(completions[row]) >= request.max_tokens:
                    finish[row] = "length"
            if all(reason is not None for reason in finish):
                break
            logits = stepper.step(chosen)

        results: list[SamplingResult] = []
        for row in range(count):
            reason = finish[row] or "length"
            ids = completions[row]
            text = texts[row]
            if text is None:
                text = engine.tokenizer.decode([token for token in ids if token not in stop_ids], skip_special_tokens=False)
            results.append(SamplingResult(ids, records[row], text, reason))
        return results


def token_text(engine: Engine, token_id: int) -> str:
    return engine.tokenizer.decode([token_id], skip_special_tokens=False)


def finite(value: float) -> float:
    """JSON has no infinities: a -inf logprob (a token of zero probability) is reported as -9999.0, as vLLM does."""
    return value if math.isfinite(value) else -9999.0
