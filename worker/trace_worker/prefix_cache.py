"""Prefix caching: the keys and values of recent prompts, found again by their leading blocks of tokens, so a prompt
that starts like a cached one (the same system prompt and tools; the same conversation one turn later) prefills only
the rest.

Prompts are indexed in blocks of `BLOCK` tokens by a hash chain (a block's key hashes the previous block's key with
its own tokens, as vLLM's automatic prefix caching does), so a lookup walks the prompt's blocks once. Entries are
per adapter (keys and values depend on the weights); a call that changes one adapter's weights drops that adapter's
entries (`drop`), one that may change any weights drops them all (`clear`). A request's `cache_salt` (vLLM's request
field, for isolating tenants) seeds the hash chain and is kept with the entry, so requests share prefixes only when
their salts match. Written by hand because transformers has no cross-request KV reuse."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import torch

BLOCK = 16


@dataclass
class CachedPrefix:
    """One prompt's tokens and its keys and values per layer ([1, kv_heads, length, dim] each), computed with adapter
    `adapter`'s weights (None: the base model's)."""

    tokens: list[int]
    keys: list[torch.Tensor]
    values: list[torch.Tensor]
    adapter: str | None = None
    salt: str | None = None
    hashes: list[tuple[str | None, int]] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(tensor.numel() * tensor.element_size() for tensor in (*self.keys, *self.values))


def _chain(tokens: list[int], blocks: int, salt: str | None = None) -> list[int]:
    """The hash-chain key of each of the first `blocks` full blocks (the chain starts from the salt, as vLLM's does)."""
    keys: list[int] = []
    previous = 0 if salt is None else hash(("salt", salt))
    for block in range(blocks):
        previous = hash((previous, tuple(tokens[block * BLOCK : (block + 1) * BLOCK])))
        keys.append(previous)
    return keys


class PrefixCache:
    """Least recently used prompt prefixes within `capacity_bytes` of keys and values (0 turns caching off)."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self._entries: OrderedDict[int, CachedPrefix] = OrderedDict()
        self._index: dict[tuple[str | None, int], int] = {}
        self._next_id = 0
        self.used_bytes = 0
        #: Prompt tokens whose keys and values came from the cache (the sampler counts every prompt token).
        self.reused_tokens = 0

    def clear(self) -> None:
        self._entries.clear()
        self._index.clear()
        self.used_bytes = 0

    def drop(self, adapter: str | None) -> None:
        """Forgets every entry computed with `adapter`'s weights (None: the base model's)."""
        for entry_id in [entry_id for entry_id, entry in self._entries.items() if entry.adapter == adapter]:
            self._evict(entry_id)

    def _evict(self, entry_id: int) -> None:
        entry = self._entries.pop(entry_id)
        self.used_bytes -= entry.bytes
        for key in entry.hashes:
            if self._index.get(key) == entry_id:
                del self._index[key]

    def _drop_covered(self, entry: CachedPrefix) -> None:
        """Evicts the entries whose every full block `entry` holds too (an earlier turn of the same conversation, the
        same prompt sampled again): lookups only ever reuse full blocks, so `entry` answers for all they could, and a
        conversation keeps one entry instead of a copy of its prefix per turn."""
        covered = {self._index.get(key) for key in entry.hashes} - {None}
        for entry_id in covered:
            assert entry_id is not None
            older = self._entries[entry_id]
            blocks = len(older.hashes)
            if 0 < blocks <= len(entry.hashes) and older.hashes[blocks - 1] == entry.hashes[blocks - 1] and older.salt == entry.salt:
                if older.tokens[: blocks * BLOCK] == entry.tokens[: blocks * BLOCK]:
                    self._evict(entry_id)

    def lookup(self, adapter: str | None, tokens: list[int], salt: str | None = None) -> tuple[CachedPrefix, int] | None:
        """The cached prefix (of the same salt) sharing the most leading blocks with `tokens`, and how many tokens to
        reuse from it (at least one token of `tokens` is left to prefill, for its logits)."""
        if self.capacity_bytes <= 0:
            return None
        found: tuple[int, int] | None = None
        for block, key in enumerate(_chain(tokens, len(tokens) // BLOCK, salt)):
            entry_id = self._index.get((adapter, key))
            if entry_id is None:
                break
            found = (entry_id, (block + 1) * BLOCK)
        if found is None:
            return None
        entry_id, length = found
        entry = self._entries[entry_id]
        length = min(length, len(tokens) - 1)
        if length < 1 or entry.salt != salt or entry.tokens[:length] != tokens[:length]:  # a hash collision: no reuse
            return None
        self._entries.move_to_end(entry_id)
        self.reused_tokens += length
        return entry, length

    def store(self, adapter: str | None, tokens: list[int], keys: list[torch.Tensor], values: list[torch.Tensor], salt: str | None = None) -> None:
        """Keeps a prompt's keys and values (evicting the least recently used entries to fit)."""
        entry = CachedPrefix(tokens, keys, values, adapter, salt)
        size = entry.bytes
        if size > self.capacity_bytes or len(tokens) < BLOCK:
            return
        entry.hashes = [(adapter, key) for key in _chain(tokens, len(tokens) // BLOCK, salt)]
        self._drop_covered(entry)
        while self._entries and self.used_bytes + size > self.capacity_bytes:
            self._evict(next(iter(self._entries)))
        entry_id = self._next_id
        self._next_id += 1
        for key in entry.hashes:
            self._index[key] = entry_id  # the newest entry answers for a shared block
        self._entries[entry_id] = entry
        self.used_bytes += size
