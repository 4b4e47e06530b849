"""A dynamic KV cache that appends in place: each layer keeps spare capacity and a decode step writes one position
into it, where transformers' `DynamicLayer` concatenates the whole cache every step (on a 2-core CPU that copy was
40% of a decode step at batch 16 and 400 tokens of context).

Written by hand because transformers offers either that concatenating layer or a `StaticCache` of fixed length, which
cannot take rows that join or leave a running batch; here the keys and values stay plain tensors (views of the
buffer), so rows can still be selected, padded and joined by indexing."""

from __future__ import annotations

from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer


def _with_room(length: int) -> int:
    """Positions to allocate for `length`: half again (at least 64 more), so appends copy the cache rarely."""
    return length + max(64, length // 2)


class GrowingLayer(DynamicLayer):
    """Keys and values [batch, heads, length, dim] as views of buffers with room to grow. Whoever replaces `keys` and
    `values` (row selection, padding, trimming) may: the next update copies them into a fresh buffer."""

    def __init__(self) -> None:
        super().__init__()
        self._key_buffer: torch.Tensor | None = None
        self._value_buffer: torch.Tensor | None = None

    def _in_buffer(self) -> bool:
        """Whether `keys`/`values` are still the leading positions of the buffers."""
        buffer = self._key_buffer
        keys = self.keys
        return (
            buffer is not None
            and self._value_buffer is not None
            and keys is not None
            and self.values is not None
            and keys.shape[0] == buffer.shape[0]
            and keys.data_ptr() == buffer.data_ptr()
            and self.values.data_ptr() == self._value_buffer.data_ptr()
        )

    def _reserve(self, length: int, needed: int) -> None:
        """Fresh buffers holding the current `length` positions with room for `needed` in all (plus half again)."""
        assert self.keys is not None and self.values is not None
        batch, heads, _, dim = self.keys.shape
        capacity = _with_room(needed)
        keys = self.keys.new_empty((batch, heads, capacity, dim))
        values = self.values.new_empty((batch, self.values.shape[1], capacity, self.values.shape[-1]))
        keys[:, :, :length].copy_(self.keys)
        values[:, :, :length].copy_(self.values)
        self._key_buffer, self._value_buffer = keys, values

    def adopt(self, key_buffer: torch.Tensor, value_buffer: torch.Tensor, length: int) -> None:
        """Takes buffers whose first `length` positions are the cache (the rest is room to grow)."""
        self._key_buffer, self._value_buffer = key_buffer, value_buffer
        self.keys, self.values = key_buffer[:, :, :length], value_buffer[:, :, :length]

    def select(self, index: torch.Tensor, first: int) -> None:
        """Keeps the rows `index` and the positions from `first` on, in one copy that keeps the room to grow."""
        if not self._in_buffer():
            assert self.keys is not None and self.values is not None
            self.keys, self.values = self.keys[index, :, first:], self.values[index, :, first:]
            return
        assert self._key_buffer is not None and self._value_buffer is not None and self.keys is not None
        length = self.keys.shape[-2] - first
        self.adopt(self._key_buffer[:, :, first:].index_select(0, index), self._value_buffer[:, :, first:].index_select(0, index), length)

    @staticmethod
    def joined(first: GrowingLayer, second: GrowingLayer, width: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Buffers with the rows of `first` then `second`, each right-aligned to `width` positions (zeros before), and
        room to grow."""
        assert first.keys is not None and first.values is not None and second.keys is not None and second.values is not None
        buffers = []
        for mine, theirs in ((first.keys, second.keys), (first.values, second.values)):
            rows = mine.shape[0] + theirs.shape[0]
            buffer = mine.new_empty((rows, mine.shape[1], _with_room(width), mine.shape[-1]))
            buffer[:, :, :width].zero_()
            buffer[: mine.shape[0], :, width - mine.shape[-2] : width] = mine
            buffer[mine.shape[0] :, :, width - theirs.shape[-2] : width] = theirs
            buffers.append(buffer)
        return buffers[0], buffers[1]

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized or self.keys is None or self.keys.numel() == 0:
            self.lazy_initialization(key_states, value_states)
            self.keys = key_states[:, :, :0]
            self.values = value_states[:, :, :0]
            self._key_buffer = self._value_buffer = None
        assert self.keys is not None and self.values is not None
        length = self.keys.shape[-2]
        added = key_states.shape[-2]
        if not self._in_buffer() or length + added > self._key_buffer.shape[-2]:  # type: ignore[union-attr]
            self._reserve(length, length + added)
        assert self._key_buffer is not None and self._value_buffer is not None
        self._key_buffer[:, :, length : length + added].copy_(key_states)
        self._value_buffer[:, :, length : length + added].copy_(value_states)
        self.keys = self._key_buffer[:, :, : length + added]
        self.values = self._value_buffer[:, :, : length + added]
        return self.keys, self.values


def growing_cache(config: Any) -> DynamicCache | None:
    """A `DynamicCache` for `config` whose layers append in place, or None when the model's cache has other layer
    kinds (sliding windows, recurrent state): those keep transformers' own cache."""
    cache = DynamicCache(config=config)
    if not cache.layers or any(type(layer) is not DynamicLayer for layer in cache.layers):
        return None
    cache.layers = [GrowingLayer() for _ in cache.layers]
    return cache
