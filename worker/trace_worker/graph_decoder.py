"""Decode steps replayed from CUDA graphs over a static KV cache.

An eager decode step of a Hugging Face model launches a few thousand small kernels from Python, so small-batch
sampling is bound by the host (≈50 ms a step for Qwen3-0.6B). Here one step per (adapter, batch bucket, cache bucket)
is captured once and replayed: the prompt is prefilled eagerly (dynamic cache), its keys and values are copied into
a static cache, and each step only refreshes four small input buffers. Written by hand because transformers' own
route to this (`generate` with a static cache and `torch.compile`) cannot batch requests that arrive separately or
keep token-level control of sampling. Mixture-of-experts steps are captured too: transformers' grouped experts
forward and the worker's expert-LoRA forward (`expert_lora.py`) route with static shapes and no host sync. A model
whose step cannot be captured falls back to eager steps."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache, StaticCache

from .decode_attention import folding
from .growing_cache import GrowingLayer

log = logging.getLogger("trace_worker")


def bucket(value: int, minimum: int) -> int:
    size = minimum
    while size < value:
        size *= 2
    return size


@dataclass
class _Captured:
    cache: StaticCache
    input_ids: torch.Tensor  # [B, 1]
    positions: torch.Tensor  # [B, 1]
    mask: torch.Tensor  # [B, 1, 1, L] bool
    graph: torch.cuda.CUDAGraph | None
    logits: torch.Tensor | None


class EagerStepper:
    """Decode steps through the model with a dynamic cache (any device, any model). Rows can leave (`select`) and,
    on a plain dynamic cache, join (`join`): this is what continuous batching runs on."""

    def __init__(self, model: torch.nn.Module, cache: Any, attention: torch.Tensor, positions: torch.Tensor) -> None:
        self.model, self.cache, self.attention, self.positions = model, cache, attention, positions

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        count = tokens.shape[0]
        self.attention = torch.cat([self.attention, torch.ones((count, 1), dtype=self.attention.dtype, device=self.attention.device)], dim=-1)
        output = self.model(input_ids=tokens[:, None], attention_mask=self.attention, position_ids=self.positions, past_key_values=self.cache, use_cache=True)
        self.cache = output.past_key_values
        self.positions = self.positions + 1
        logits: torch.Tensor = output.logits[:, -1, :]
        return logits

    @property
    def compactable(self) -> bool:
        """Whether every cache layer is a growing full-attention layer (the sampler makes one whenever the model's
        cache has only full-attention layers), so rows can be padded, joined and trimmed by tensor indexing (sliding or
        recurrent layers keep other state)."""
        return isinstance(self.cache, DynamicCache) and all(isinstance(layer, GrowingLayer) for layer in self.cache.layers)

    def select(self, keep: list[int]) -> None:
        """Keeps only the rows `keep`; on a plain cache, drops the leading columns that are padding in every kept row."""
        index = torch.tensor(keep, device=self.attention.device)
        self.attention = self.attention[index]
        self.positions = self.positions[index]
        if not self.compactable:
            self.cache.batch_select_indices(index)
            return
        occupied = self.attention.any(dim=0).nonzero()
        first = int(occupied[0]) if occupied.numel() else 0
        for layer in self.cache.layers:
            layer.select(index, first)
        self.attention = self.attention[:, first:]

    def join(self, other: EagerStepper) -> None:
        """Appends the rows of `other` (a wave prefilled since): the shorter of the two caches is padded on the left,
        where the attention mask hides it, so every row keeps its own positions."""
        width = max(self.attention.shape[1], other.attention.shape[1])
        for mine, theirs in zip(self.cache.layers, other.cache.layers):
            mine.adopt(*GrowingLayer.joined(mine, theirs, width), width)
        self.attention = torch.cat([_pad_left(self.attention, width), _pad_left(other.attention, width)], dim=0)
        self.positions = torch.cat([self.positions, other.positions], dim=0)


def _pad_left(tensor: torch.Tensor, width: int) -> torch.Tensor:
    """Zeros before each row of a mask [rows, columns] up to `width` columns."""
    missing = width - tensor.shape[1]
    if missing <= 0:
        return tensor
    return torch.cat([tensor.new_zeros((tensor.shape[0], missing)), tensor], dim=1)


class GraphStepper:
    """Decode steps replayed from a captured graph; `step` returns the logits of the live rows. The static cache has
    a fixed number of slots (the batch bucket) and columns; every row writes its next key and value at the same column
    (the cursor). A row that leaves (`select`) frees its slot; a prefilled row joins (`join`) into a free slot with
    its prompt's keys and values placed just before the cursor, so the captured step serves it unchanged."""

    def __init__(self, entry: _Captured, count: int, cursor: int, run: Any) -> None:
        self.entry, self.count, self.cursor, self.run = entry, count, cursor, run
        self.live = torch.arange(count, device=entry.input_ids.device)
        self.cache_key: tuple[int, int, int] | None = None

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        entry = self.entry
        entry.input_ids[self.live, 0] = tokens
        entry.positions.add_(1)
        entry.mask[:, :, :, self.cursor] = True
        self.cursor += 1
        logits: torch.Tensor = self.run()
        return logits[self.live, -1, :]

    def select(self, keep: list[int]) -> None:
        self.live = self.live[torch.tensor(keep, device=self.live.device)]

    def takes(self, rows: int, prompt_tokens: int, new_tokens: int) -> bool:
        """Whether `rows` more rows fit: free slots, prompts of at most `prompt_tokens` tokens before the cursor, and
        room after it for `new_tokens` steps."""
        slots = self.entry.input_ids.shape[0]
        return len(self.live) + rows <= slots and prompt_tokens <= self.cursor and self.cursor + new_tokens + 1 <= self.entry.mask.shape[-1]

    def join(self, other: EagerStepper) -> None:
        """Moves the rows of `other` (freshly prefilled, its logits pending) into free slots: each row's real prompt
        columns go to the columns just before the cursor, its mask shows only those, and its position goes on from its
        own prompt. Check `takes` first."""
        entry = self.entry
        used = set(self.live.tolist())
        free = [slot for slot in range(entry.input_ids.shape[0]) if slot not in used]
        count = other.attention.shape[0]
        assert count <= len(free), "no free slot"
        slots = free[:count]
        for index, slot in enumerate(slots):
            columns = other.attention[index].nonzero().squeeze(-1)
            start = self.cursor - columns.numel()
            assert start >= 0, "the prompt is longer than the columns before the cursor"
            for static_layer, layer in zip(entry.cache.layers, other.cache.layers):
                static_layer.keys[slot, :, start : self.cursor] = layer.keys[index][:, columns]
                static_layer.values[slot, :, start : self.cursor] = layer.values[index][:, columns]
            entry.mask[slot] = False
            entry.mask[slot, 0, 0, start : self.cursor] = True
            entry.positions[slot] = other.positions[index, -1] - 1  # the step adds one before the forward
            entry.input_ids[slot] = 0
        self.live = torch.cat([self.live, torch.tensor(slots, device=self.live.device, dtype=self.live.dtype)])


class GraphDecoder:
    """Keeps captured decode steps; `stepper` gives one for a prefilled batch, or None when graphs don't apply."""

    def __init__(self, engine: Any, enabled: bool, memory_fraction: float = 0.25, minimum_cache: int = 256, capture: bool | None = None) -> None:
        self.engine = engine
        config = engine.base.config
        # By default only CUDA decodes on a static cache (captured); capture=False runs the same static-cache steps
        # eagerly on any device (tests of the static path). Elsewhere the growing dynamic cache is faster and lets
        # requests join a running wave.
        self.capture = engine.device.type == "cuda" if capture is None else capture
        self.enabled = (
            enabled
            and (engine.device.type == "cuda" or capture is False)
            and not getattr(engine.base.model, "has_sliding_layers", False)
        )
        self.memory_fraction = memory_fraction
        self.minimum_cache = minimum_cache
        # Static caches by (batch, length, slot): waves of different adapters decode at once, each on its own slot.
        self.captured: dict[tuple[str | None, int, int, int], _Captured] = {}
        self.caches: dict[tuple[int, int, int], StaticCache] = {}
        self.busy: set[tuple[int, int, int]] = set()
        self.adapters_version = -1
        self.failures = 0

    def _bytes_per_token(self) -> int:
        config = self.engine.base.config
        element = torch.finfo(self.engine.dtype).bits // 8
        return 2 * config.num_hidden_layers * config.num_key_value_heads * config.head_dim * element

    def stepper(self, adapter: str | None, model: torch.nn.Module, prefill: DynamicCache, attention: torch.Tensor, positions: torch.Tensor, steps: int) -> GraphStepper | None:
        if not self.enabled:
            return None
        if self.adapters_version != self.engine.adapters_version:
            self.captured.clear()
            self.adapters_version = self.engine.adapters_version
        count, width = attention.shape
        batch = bucket(count, 1)
        length = bucket(width + steps + 1, self.minimum_cache)
        slot = 0
        while (batch, length, slot) in self.busy:
            slot += 1
        if self.engine.device.type == "cuda":
            free, _total = torch.cuda.mem_get_info()
            if (batch, length, slot) not in self.caches and batch * length * self._bytes_per_token() > self.memory_fraction * free:
                return None
        key = (adapter, batch, length, slot)
        entry = self.captured.get(key)
        if entry is None:
            entry = self._allocate(batch, length, slot)
        self._load(entry, prefill, attention, positions)
        if not self.capture:
            self.captured[key] = entry
            return self._hold(GraphStepper(entry, count, width, lambda: self._forward(entry, model).logits), (batch, length, slot))
        if entry.graph is None:
            try:
                self._capture(entry, model)
            except Exception as error:  # a model whose step cannot be captured: eager from now on
                self.failures += 1
                self.enabled = False
                log.warning("CUDA graph capture failed (%s); decoding eagerly", error)
                return None
            self.captured[key] = entry
            self._load(entry, prefill, attention, positions)
        graph, logits = entry.graph, entry.logits
        assert graph is not None and logits is not None

        def replay() -> torch.Tensor:
            graph.replay()
            return logits

        return self._hold(GraphStepper(entry, count, width, replay), (batch, length, slot))

    def _hold(self, stepper: GraphStepper, cache_key: tuple[int, int, int]) -> GraphStepper:
        self.busy.add(cache_key)
        stepper.cache_key = cache_key
        return stepper

    def release(self, stepper: object) -> None:
        """Frees the static cache of a wave that ended (any other stepper holds none)."""
        if isinstance(stepper, GraphStepper) and stepper.cache_key is not None:
            self.busy.discard(stepper.cache_key)

    def _allocate(self, batch: int, length: int, slot: int) -> _Captured:
        device = self.engine.device
        cache = self.caches.get((batch, length, slot))
        if cache is None:
            # Keep at most two idle caches besides the busy ones: evict the oldest idle one (and its captured steps).
            idle = [key for key in self.caches if key not in self.busy]
            if len(idle) >= 2:
                self.caches.pop(idle[0])
                self.captured = {key: value for key, value in self.captured.items() if key[1:] in self.caches}
            config = self.engine.base.config
            cache = StaticCache(config=config, max_cache_len=length)
            dummy = torch.zeros((batch, config.num_key_value_heads, 1, config.head_dim), dtype=self.engine.dtype, device=device)
            for layer in cache.layers:
                layer.lazy_initialization(dummy, dummy)
            self.caches[(batch, length, slot)] = cache
        return _Captured(
            cache=cache,
            input_ids=torch.zeros((batch, 1), dtype=torch.long, device=device),
            positions=torch.zeros((batch, 1), dtype=torch.long, device=device),
            mask=torch.zeros((batch, 1, 1, length), dtype=torch.bool, device=device),
            graph=None,
            logits=None,
        )

    @staticmethod
    def _load(entry: _Captured, prefill: DynamicCache, attention: torch.Tensor, positions: torch.Tensor) -> None:
        count, width = attention.shape
        for static_layer, dynamic_layer in zip(entry.cache.layers, prefill.layers):
            static_layer.keys[:count, :, :width].copy_(dynamic_layer.keys)
            static_layer.values[:count, :, :width].copy_(dynamic_layer.values)
            static_layer.cumulative_length.fill_(width)
        entry.mask.zero_()
        entry.mask[:count, 0, 0, :width] = attention.bool()
        entry.positions.zero_()
        entry.positions[:count] = positions[:, -1:]
        entry.input_ids.zero_()

    def _forward(self, entry: _Captured, model: torch.nn.Module) -> Any:
        # Grouped-query heads folded over the static cache rather than copied for each query head (decode_attention.py).
        with folding():
            return model(
                input_ids=entry.input_ids,
                attention_mask=entry.mask,  # 4-D: transformers uses it as given (dense and MoE models alike)
                position_ids=entry.positions,
                past_key_values=entry.cache,
                use_cache=True,
            )

    def _capture(self, entry: _Captured, model: torch.nn.Module) -> None:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                self._forward(entry, model)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            output = self._forward(entry, model)
        entry.graph = graph
        entry.logits = output.logits
