"""Batched sampling with a KV cache: several requests (for the base and any adapters) decode together, one token per
step, each with its own temperature, top-p, seed, stop strings and logprob options. Batching is continuous: a request
joins the running batch at the next step and leaves it when it finishes."""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import random
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from .engine import Engine
from .errors import BadRequest, NotFound
from .graph_decoder import EagerStepper, GraphDecoder, GraphStepper
from .growing_cache import growing_cache
from .prefix_cache import BLOCK as PREFIX_BLOCK
from .prefix_cache import PrefixCache

log = logging.getLogger("trace_worker")


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
    #: vLLM's `cache_salt`: the request reuses cached prompt prefixes only of requests with the same salt.
    cache_salt: str | None = None


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


def seeded_uniforms(seeds: torch.Tensor, step: int | torch.Tensor, vocabulary: int) -> torch.Tensor:
    """Uniform (0, 1) noise [rows, vocabulary], a pure function of (seed, step, token): splitmix64 of a counter.
    `step` is one step for every row or each row's own step index [rows].

    Written by hand because torch's generators give one stream per call, so seeded rows would need one sampling call
    each; a counter-based hash samples every row at once and makes a seeded sample independent of its batch."""
    tokens = torch.arange(vocabulary, device=seeds.device, dtype=torch.int64)[None, :]
    steps = step[:, None] if isinstance(step, torch.Tensor) else step
    counter = seeds[:, None] * _GOLDEN + (steps * vocabulary + tokens)
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


@dataclass
class _Row:
    """A request being decoded: its seed, the caller's handle, and what it has generated so far."""

    request: SamplingRequest
    seed: int
    handle: Any
    completion: list[int] = field(default_factory=list)
    records: list[TokenCandidates] = field(default_factory=list)
    text: str | None = None
    finish: str | None = None


class _Wave:
    """Rows of one adapter that decode together: their KV cache (in the stepper) and each row's next-token logits."""

    def __init__(self, rows: list[_Row], logits: torch.Tensor, stepper: EagerStepper | GraphStepper) -> None:
        self.rows, self.logits, self.stepper = rows, logits, stepper

    def takes(self, requests: list[SamplingRequest]) -> bool:
        """Whether these requests can join the wave now: any number on a growing dynamic cache; on a static cache
        (what CUDA graphs replay) as many as there are free slots, each prompt fitting before the cursor and its new
        tokens after it."""
        stepper = self.stepper
        if isinstance(stepper, EagerStepper):
            return stepper.compactable
        longest = max((len(request.prompt_ids) for request in requests), default=0)
        steps = max((request.max_tokens for request in requests), default=0)
        return stepper.takes(len(requests), longest, steps)

    def join(self, other: _Wave) -> None:
        """Adds a freshly prefilled wave's rows to this one (both at a step boundary: logits pending, cache complete)."""
        assert isinstance(other.stepper, EagerStepper)
        self.stepper.join(other.stepper)
        self.rows = self.rows + other.rows
        self.logits = torch.cat([self.logits, other.logits], dim=0)


#: Attention kernels for sampling on CUDA. PyTorch 2.11 prefers cuDNN's attention on Hopper, which builds an execution
#: plan for every new shape; prefills and eager decode steps bring a new key length almost every call, and on an H200
#: that took ~5 ms a call (eager decoding of a Qwen3-0.6B shape: 116 ms a token on first shapes, 35 ms once planned).
#: Training (fixed shapes) keeps PyTorch's choice.
_SAMPLING_ATTENTION = [
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.MATH,
]


def _sampling_attention(device: torch.device) -> contextlib.AbstractContextManager[None]:
    return sdpa_kernel(_SAMPLING_ATTENTION) if device.type == "cuda" else contextlib.nullcontext()


class Sampler:
    """Continuous batching: requests join their adapter's running wave at any step (after a prefill of their prompt)
    and leave it when they finish, so a short request never waits for a long one. Each step decodes one token for
    every running row, wave by wave; a row's sample depends only on its own seed and step index."""

    def __init__(self, engine: Engine, cuda_graphs: bool = True, prefix_cache_bytes: int = 512 << 20) -> None:
        self.engine = engine
        self.graphs = GraphDecoder(engine, cuda_graphs)
        #: Keys and values of recent prompts (cleared after every trainer call: weights may have changed).
        self.prefixes = PrefixCache(prefix_cache_bytes)
        # The running waves, at most one per adapter (None: the base model).
        self.waves: dict[str | None, _Wave] = {}
        #: Prompt tokens prefilled (after any cached prefix), and the positions the prefill forwards computed for them
        #: (rows × the longest fed part: padding included).
        self.prefill_tokens = 0
        self.prefill_positions = 0
        #: Prompt tokens of every request prefilled (a prompt repeated in one prefill counts each time).
        self.prompt_tokens = 0

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
        """Decodes the requests together to the end (the executor instead admits and steps requests as they come)."""
        if self.waves:
            raise RuntimeError("generate needs an idle sampler: waves are running")
        failures = self.admit(requests, list(range(len(requests))))
        if failures:
            raise failures[0][1]
        results: list[SamplingResult | None] = [None] * len(requests)
        while self.waves:
            for handle, outcome in self.step():
                if isinstance(outcome, BaseException):
                    raise outcome
                results[handle] = outcome
        return [result for result in results if result is not None]

    @property
    def running(self) -> int:
        """Rows decoding now, over every wave."""
        return sum(len(wave.rows) for wave in self.waves.values())

    def admissible(self, request: SamplingRequest, joining: list[SamplingRequest] | None = None) -> bool:
        """Whether `request` can join now, together with `joining` (requests for the same adapter already taken): no
        wave of its adapter runs, or the running one takes them (see `_Wave.takes`)."""
        wave = self.waves.get(request.adapter)
        return wave is None or wave.takes([*(joining or []), request])

    @torch.no_grad()
    def admit(self, requests: list[SamplingRequest], handles: list[Any]) -> list[tuple[Any, BaseException]]:
        """Prefills the requests (one forward per adapter) and joins them to their adapter's running wave, or starts
        one. Returns the handles whose prefill failed, with the error; the other requests decode from the next step."""
        groups: dict[str | None, list[_Row]] = {}
        for request, handle in zip(requests, handles):
            seed = request.seed if request.seed is not None else random.getrandbits(62)
            groups.setdefault(request.adapter, []).append(_Row(request, seed, handle))
        failures: list[tuple[Any, BaseException]] = []
        for adapter, rows in groups.items():
            running = self.waves.get(adapter)
            try:
                if running is not None and not running.takes([row.request for row in rows]):
                    raise RuntimeError(f"the running wave of {adapter!r} cannot take these {len(rows)} rows now")
                with self._using(adapter) as model:
                    wave = self._prefill(adapter, model, rows, static=running is None)
                if running is None:
                    self.waves[adapter] = wave
                else:
                    running.join(wave)
            except Exception as error:
                log.exception("prefill failed")
                failures.extend((row.handle, error) for row in rows)
        return failures

    @torch.no_grad()
    def step(self) -> list[tuple[Any, SamplingResult | BaseException]]:
        """One token for every running row, wave by wave; returns the rows that finished (or whose wave failed)."""
        outcomes: list[tuple[Any, SamplingResult | BaseException]] = []
        for adapter in list(self.waves):
            wave = self.waves[adapter]
            try:
                with self._using(adapter):
                    finished = self._advance(wave)
                outcomes.extend((row.handle, self._result(row)) for row in finished)
            except Exception as error:
                log.exception("decoding failed")
                outcomes.extend((row.handle, error) for row in wave.rows)
                wave.rows = []
            if not wave.rows:
                del self.waves[adapter]
                self.graphs.release(wave.stepper)
        return outcomes

    @contextlib.contextmanager
    def _using(self, adapter: str | None) -> Iterator[torch.nn.Module]:
        """The model with `adapter` applied (None: the base, with any adapters switched off), its attention kept off
        cuDNN on CUDA (see `_SAMPLING_ATTENTION`)."""
        engine = self.engine
        with _sampling_attention(engine.device):
            if adapter is None and engine.peft is not None:
                with engine.adapters_off():
                    yield engine.model
            else:
                if adapter is not None:
                    engine.point_at(adapter)
                yield engine.model

    def _prefill(self, adapter: str | None, model: torch.nn.Module, rows: list[_Row], static: bool) -> _Wave:
        """One forward over the rows' prompts; the wave holds their cache and next-token logits. A row whose prompt
        starts like a cached one gets that prefix's keys and values and feeds only the rest: its columns are
        [padding][cached prefix][padding][rest], the mask hiding the padding and each token keeping its position. With
        `static`, a captured static-cache step decodes the wave when the graph decoder can (rows join it in free slots)."""
        engine = self.engine
        device = engine.device
        cache = growing_cache(engine.base.config)
        # Rows with the same prompt (a GRPO group's first turns: sixteen samples of one task) are prefilled once and
        # their keys, values and logits copied to each: `expand` maps each row to its distinct prompt (on the growing
        # cache, whose layers are plain tensors; transformers' other caches keep one prefill row per request).
        distinct: dict[tuple[Any, ...], int] = {}
        expand: list[int] = []
        firsts: list[_Row] = []
        for number, row in enumerate(rows):
            key = (tuple(row.request.prompt_ids), row.request.cache_salt) if cache is not None else (number,)
            if key not in distinct:
                distinct[key] = len(firsts)
                firsts.append(row)
            expand.append(distinct[key])
        prompts = [row.request.prompt_ids for row in firsts]
        salts = [row.request.cache_salt for row in firsts]
        count = len(prompts)
        self.prompt_tokens += sum(len(row.request.prompt_ids) for row in rows)
        found = [self.prefixes.lookup(adapter, prompt, salt) if cache is not None else None for prompt, salt in zip(prompts, salts)]
        reused = [0 if match is None else match[1] for match in found]
        past = max(reused)
        rest = max(len(prompt) - length for prompt, length in zip(prompts, reused))
        width = past + rest
        pad = engine.tokenizer.pad_token_id if engine.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((count, rest), pad, dtype=torch.long)
        attention = torch.zeros((count, width), dtype=torch.long)
        positions = torch.zeros((count, rest), dtype=torch.long)
        for index, (prompt, length) in enumerate(zip(prompts, reused)):
            fed = len(prompt) - length
            self.prefill_tokens += fed
            input_ids[index, rest - fed :] = torch.tensor(prompt[length:])
            attention[index, past - length : past] = 1
            attention[index, width - fed :] = 1
            positions[index, rest - fed :] = torch.arange(length, len(prompt))
        self.prefill_positions += count * rest
        input_ids, attention, positions = input_ids.to(device), attention.to(device), positions.to(device)
        if past > 0:
            assert cache is not None
            reference = next(match[0] for match in found if match is not None)
            for layer_index, layer in enumerate(cache.layers):
                shape = list(reference.keys[layer_index].shape)
                shape[0], shape[2] = count, past
                keys = reference.keys[layer_index].new_zeros(shape)
                values = reference.values[layer_index].new_zeros(shape[:3] + [reference.values[layer_index].shape[-1]])
                for index, match in enumerate(found):
                    if match is not None:
                        entry, length = match
                        keys[index, :, past - length :] = entry.keys[layer_index][0, :, :length]
                        values[index, :, past - length :] = entry.values[layer_index][0, :, :length]
                layer.update(keys, values)
        output = model(input_ids=input_ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True, logits_to_keep=1)
        logits = output.logits[:, -1, :]
        if cache is not None and self.prefixes.capacity_bytes > 0:
            self._remember(adapter, prompts, salts, reused, attention, output.past_key_values)
        if count < len(rows):
            index = torch.tensor(expand, device=device)
            logits, attention, positions = logits.index_select(0, index), attention.index_select(0, index), positions.index_select(0, index)
            assert cache is not None
            for layer in output.past_key_values.layers:
                layer.select(index, 0)  # one copy of each row's buffer, its room to grow kept
        steps = max(row.request.max_tokens for row in rows)
        stepper: EagerStepper | GraphStepper | None = None
        if static and steps > 1:
            stepper = self.graphs.stepper(adapter, model, output.past_key_values, attention, positions, steps)
        if stepper is None:
            stepper = EagerStepper(model, output.past_key_values, attention, positions[:, -1:] + 1)
        return _Wave(rows, logits, stepper)

    def _remember(self, adapter: str | None, prompts: list[list[int]], salts: list[str | None], reused: list[int], attention: torch.Tensor, cache: Any) -> None:
        """Caches each prompt that adds at least one block beyond the prefix it reused (its real columns, in order)."""
        for index, (prompt, salt, length) in enumerate(zip(prompts, salts, reused)):
            if len(prompt) - length < PREFIX_BLOCK:
                continue
            columns = attention[index].nonzero().squeeze(-1)
            keys = [layer.keys[index : index + 1, :, columns] for layer in cache.layers]
            values = [layer.values[index : index + 1, :, columns] for layer in cache.layers]
            self.prefixes.store(adapter, list(prompt), keys, values, salt)

    def _advance(self, wave: _Wave) -> list[_Row]:
        """Samples each row's next token from the wave's logits, records it, and steps the rows still going."""
        engine = self.engine
        rows = wave.rows
        device = wave.logits.device
        raw = wave.logits.float()
        log_probabilities = torch.log_softmax(raw, dim=-1)
        if all(row.request.temperature == 0 for row in rows):
            chosen = torch.argmax(raw, dim=-1)
        else:
            temperatures = torch.tensor([max(row.request.temperature, 1e-6) for row in rows], dtype=torch.float32, device=device)
            scaled = raw / temperatures[:, None]
            if any(row.request.top_p < 1.0 for row in rows):
                top_ps = torch.tensor([row.request.top_p for row in rows], dtype=torch.float32, device=device)
                keep = _filter_top_p(torch.softmax(scaled, dim=-1), top_ps)
                scaled = scaled.masked_fill(~keep, float("-inf"))
            seeds = torch.tensor([row.seed for row in rows], dtype=torch.int64, device=device)
            # Each row's own step index: a seeded sample does not depend on when the row joined the wave.
            steps = torch.tensor([len(row.completion) for row in rows], dtype=torch.int64, device=device)
            gumbel = -torch.log(-torch.log(seeded_uniforms(seeds, steps, raw.shape[-1])))
            sampled = torch.argmax(scaled.double() + gumbel, dim=-1)
            greedy = torch.tensor([row.request.temperature == 0 for row in rows], device=device)
            chosen = torch.where(greedy, torch.argmax(raw, dim=-1), sampled)
        chosen_logprobs = log_probabilities.gather(-1, chosen[:, None]).squeeze(-1)
        listed = max(row.request.top_logprobs for row in rows)
        top_index_list = top_value_list = None
        if listed > 0:
            top_values, top_indices = torch.topk(log_probabilities, k=min(listed, log_probabilities.shape[-1]), dim=-1)
            top_index_list, top_value_list = top_indices.tolist(), top_values.tolist()
        wanted = sorted({token_id for row in rows for token_id in row.request.logprob_token_ids})
        wanted_values = log_probabilities[:, wanted].tolist() if wanted else None
        chosen_list = chosen.tolist()
        chosen_logprob_list = chosen_logprobs.tolist()
        stop_ids = set(engine.stop_token_ids)
        finished: list[_Row] = []
        kept: list[int] = []
        for index, row in enumerate(rows):
            request = row.request
            token_id = chosen_list[index]
            candidates: list[tuple[int, float]] = []
            if request.top_logprobs > 0 and top_index_list is not None and top_value_list is not None:
                candidates = list(zip(top_index_list[index][: request.top_logprobs], top_value_list[index][: request.top_logprobs]))
            if request.logprob_token_ids and wanted_values is not None:
                present = {candidate[0] for candidate in candidates}
                for extra_id in request.logprob_token_ids:
                    if extra_id not in present:
                        candidates.append((extra_id, wanted_values[index][wanted.index(extra_id)]))
                        present.add(extra_id)
            row.completion.append(token_id)
            row.records.append(TokenCandidates(token_id, chosen_logprob_list[index], candidates))
            if token_id in stop_ids:
                row.finish = "stop"
            elif request.stop:
                text = engine.tokenizer.decode(row.completion, skip_special_tokens=False)
                cut = min((position for position in (text.find(stop) for stop in request.stop) if position >= 0), default=-1)
                if cut >= 0:
                    row.text = text[:cut]
                    row.finish = "stop"
            if row.finish is None and len(row.completion) >= request.max_tokens:
                row.finish = "length"
            if row.finish is None:
                kept.append(index)
            else:
                finished.append(row)
        if kept:
            if len(kept) < len(rows):
                wave.stepper.select(kept)
                chosen = chosen[torch.tensor(kept, device=device)]
            wave.rows = [rows[index] for index in kept]
            wave.logits = wave.stepper.step(chosen)
        else:
            wave.rows = []
        return finished

    def _result(self, row: _Row) -> SamplingResult:
        stop_ids = set(self.engine.stop_token_ids)
        text = row.text
        if text is None:
            text = self.engine.tokenizer.decode([token for token in row.completion if token not in stop_ids], skip_special_tokens=False)
        return SamplingResult(row.completion, row.records, text, row.finish or "length")


def token_text(engine: Engine, token_id: int) -> str:
    return engine.tokenizer.decode([token_id], skip_special_tokens=False)


def finite(value: float) -> float:
    """JSON has no infinities: a -inf logprob (a token of zero probability) is reported as -9999.0, as vLLM does."""
    return value if math.isfinite(value) else -9999.0
