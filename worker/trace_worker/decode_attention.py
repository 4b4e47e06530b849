"""Decode-step attention for grouped-query models without copying the KV cache.

transformers' SDPA path repeats every key and value head for its query heads (`repeat_kv`, a copy of the whole cache
per layer per step) whenever an attention mask is given, which the worker always gives (left-padded batches). With
one query position per row, the query heads that share a key/value head can instead be laid out as that head's query
positions: one SDPA call over the cache as it is, exact because a decode step's mask is the same for every query
head. On a 2-core CPU this halved a layer's attention time at batch 16 and 400 tokens of context. On a GPU it is used
inside captured decode steps (`folding()`, which the graph decoder enters): on an H200, decoding the Qwen3-30B-A3B
shape (32 query heads on 4 key/value heads) from a static cache spent 40% of its GPU time in those copies and in
attention over the copied heads. Eager decode steps on a GPU (a growing cache) are left unfolded: two H200 runs gave
mixed results, within the spread of eager rates between machines (docs/worker.md). Prefill and training use
transformers' SDPA unchanged."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

import torch
from transformers import AttentionInterface, AttentionMaskInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import sdpa_mask

NAME = "trace_sdpa"

_state = threading.local()


@contextlib.contextmanager
def folding() -> Iterator[None]:
    """Folds decode steps on a GPU too, within the block (a captured decode step keeps the kernels it was captured with)."""
    previous = getattr(_state, "on_gpu", False)
    _state.on_gpu = True
    try:
        yield
    finally:
        _state.on_gpu = previous


def grouped_decode_attention(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    is_causal: bool | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Query [batch, heads, 1, dim] against keys/values [batch, kv_heads, length, dim]; anything else goes to SDPA."""
    groups = int(getattr(module, "num_key_value_groups", 1))
    plain = (
        query.shape[2] != 1
        or groups == 1
        or (query.device.type != "cpu" and not getattr(_state, "on_gpu", False))
        or dropout != 0.0
        or kwargs.get("position_bias") is not None
        or kwargs.get("output_attentions", False)
        or (attention_mask is not None and attention_mask.shape[2] != 1)
    )
    if plain:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, is_causal=is_causal, **kwargs)
    batch, heads, _, dim = query.shape
    # Head h reads key/value head h // groups (repeat_kv's order), so consecutive query heads fold under their head.
    folded = query.reshape(batch, key.shape[1], groups, dim)
    output = torch.nn.functional.scaled_dot_product_attention(folded, key, value, attn_mask=attention_mask, scale=scaling)
    return output.reshape(batch, heads, 1, dim).transpose(1, 2).contiguous(), None


AttentionInterface.register(NAME, grouped_decode_attention)
AttentionMaskInterface.register(NAME, sdpa_mask)


def use_grouped_decode_attention(model: Any) -> bool:
    """Switches a model on SDPA to this attention (same masks, same prefill); True when it did."""
    if getattr(model.config, "_attn_implementation", None) != "sdpa":
        return False
    model.set_attn_implementation(NAME)
    return True
