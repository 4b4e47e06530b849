"""Batched sampling with a KV cache: several requests (for the base and any adapters) decode together, one token per
step, each with its own temperature, top-p, seed, stop strings and logprob options."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import torch

from .engine import BASE_ADAPTER, Engine
from .errors import BadRequest, NotFound


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
    """Zeroes, per row, the tail outside the smallest set of tokens whose mass reaches top_p (nucleus sampling)."""
    sorted_probabilities, order = torch.sort(probabilities, dim=-1, descending=True)
    cumulative = torch.cumsum(sorted_probabilities, dim=-1)
    remove = (cumulative - sorted_probabilities) >= top_p[:, None]
    sorted_probabilities = sorted_probabilities.masked_fill(remove, 0.0)
    filtered = torch.zeros_like(probabilities).scatter(-1, order, sorted_probabilities)
    return filtered / filtered.sum(-1, keepdim=True)


class Sampler:
    """Generates completions for a batch of requests with one shared KV cache."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def context_length(self) -> int:
        return int(getattr(self.engine.base.config, "max_position_embeddings", 4096))

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
        engine = self.engine
        device = engine.device
        count = len(requests)
        width = max(len(request.prompt_ids) for request in requests)
        pad = engine.tokenizer.pad_token_id if engine.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((count, width), pad, dtype=torch.long, device=device)
        attention = torch.zeros((count, width), dtype=torch.long, device=device)
        for row, request in enumerate(requests):
            length = len(request.prompt_ids)
            input_ids[row, width - length :] = torch.tensor(request.prompt_ids, device=device)
            attention[row, width - length :] = 1
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        extra: dict[str, Any] = {}
        if engine.peft is not None:
            extra["adapter_names"] = [request.adapter or BASE_ADAPTER for request in requests]
        model = engine.model

        temperatures = torch.tensor([request.temperature for request in requests], dtype=torch.float32, device=device)
        top_ps = torch.tensor([request.top_p for request in requests], dtype=torch.float32, device=device)
        greedy = [request.temperature == 0 for request in requests]
        generators: list[torch.Generator | None] = []
        for request in requests:
            if request.seed is None:
                generators.append(None)
            else:
                generator = torch.Generator(device=device)
                generator.manual_seed(request.seed)
                generators.append(generator)
        shared_generator = torch.Generator(device=device)
        shared_generator.manual_seed(random.getrandbits(63))
        stop_ids = set(engine.stop_token_ids)
        listed = max(request.top_logprobs for request in requests)

        completions: list[list[int]] = [[] for _ in requests]
        records: list[list[TokenCandidates]] = [[] for _ in requests]
        finish: list[str | None] = [None] * count
        texts: list[str | None] = [None] * count
        steps = max(request.max_tokens for request in requests)

        output = model(input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True, logits_to_keep=1, **extra)
        cache = output.past_key_values
        logits = output.logits[:, -1, :]
        next_positions = positions[:, -1:] + 1
        for _step in range(steps):
            log_probabilities = torch.log_softmax(logits.float(), dim=-1)
            scaled = logits.float() / temperatures.clamp(min=1e-6)[:, None]
            probabilities = torch.softmax(scaled, dim=-1)
            if bool((top_ps < 1.0).any()):
                probabilities = _filter_top_p(probabilities, top_ps)
            argmax = torch.argmax(logits, dim=-1)
            unseeded = [row for row in range(count) if generators[row] is None and not greedy[row] and finish[row] is None]
            chosen = argmax.clone()
            if unseeded:
                rows = torch.tensor(unseeded, device=device)
                chosen[rows] = torch.multinomial(probabilities[rows], 1, generator=shared_generator).squeeze(-1)
            for row in range(count):
                if generators[row] is not None and not greedy[row] and finish[row] is None:
                    chosen[row] = torch.multinomial(probabilities[row], 1, generator=generators[row]).squeeze(-1)
            chosen_logprobs = log_probabilities.gather(-1, chosen[:, None]).squeeze(-1)
            top_values = top_indices = None
            if listed > 0:
                top_values, top_indices = torch.topk(log_probabilities, k=min(listed, log_probabilities.shape[-1]), dim=-1)
            chosen_list = chosen.tolist()
            chosen_logprob_list = chosen_logprobs.tolist()
            top_value_list = top_values.tolist() if top_values is not None else None
            top_index_list = top_indices.tolist() if top_indices is not None else None
            for row, request in enumerate(requests):
                if finish[row] is not None:
                    continue
                token_id = chosen_list[row]
                candidates: list[tuple[int, float]] = []
                if request.top_logprobs > 0 and top_index_list is not None and top_value_list is not None:
                    candidates = list(zip(top_index_list[row][: request.top_logprobs], top_value_list[row][: request.top_logprobs]))
                if request.logprob_token_ids:
                    present = {candidate[0] for candidate in candidates}
                    for extra_id in request.logprob_token_ids:
                        if extra_id not in present:
                            candidates.append((extra_id, float(log_probabilities[row, extra_id])))
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
            step_input = torch.tensor(
                [[completions[row][-1]] for row in range(count)], dtype=torch.long, device=device
            )
            attention = torch.cat([attention, torch.ones((count, 1), dtype=torch.long, device=device)], dim=-1)
            output = model(
                input_ids=step_input,
                attention_mask=attention,
                position_ids=next_positions,
                past_key_values=cache,
                use_cache=True,
                **extra,
            )
            cache = output.past_key_values
            logits = output.logits[:, -1, :]
            next_positions = next_positions + 1

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
