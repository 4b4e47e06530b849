"""The decode path's two pieces against transformers' own: the growing KV cache holds exactly what the concatenating
cache holds (through appends, row selection, trimming and joins), and the grouped decode attention equals SDPA with
repeated key/value heads."""

from __future__ import annotations

import torch
from transformers.cache_utils import DynamicLayer
from transformers.integrations.sdpa_attention import sdpa_attention_forward

from trace_worker.decode_attention import folding, grouped_decode_attention
from trace_worker.engine import Engine
from trace_worker.growing_cache import GrowingLayer
from trace_worker.sampler import Sampler, SamplingRequest

from .conftest import DEVICE, low_precision, random_adapter, tolerance


def test_the_growing_layer_holds_what_the_concatenating_layer_holds() -> None:
    generator = torch.Generator().manual_seed(0)
    growing, reference = GrowingLayer(), DynamicLayer()

    def append(length: int) -> None:
        keys = torch.randn(3, 2, length, 4, generator=generator)
        values = torch.randn(3, 2, length, 4, generator=generator)
        mine = growing.update(keys, values)
        theirs = reference.update(keys, values)
        assert torch.equal(mine[0], theirs[0]) and torch.equal(mine[1], theirs[1])

    append(10)  # a prefill
    buffers = set()
    for _ in range(200):  # decode steps: appended in place, the buffer reallocated only as it fills
        append(1)
        buffers.add(growing._key_buffer.data_ptr())  # type: ignore[union-attr]
    assert len(buffers) <= 6 and growing.keys.shape[-2] == 210  # type: ignore[union-attr]
    # Rows leave and leading columns are trimmed by replacing the tensors: the next append adopts them.
    for layer in (growing, reference):
        layer.keys = layer.keys[torch.tensor([0, 2])][:, :, 5:]  # type: ignore[index]
        layer.values = layer.values[torch.tensor([0, 2])][:, :, 5:]  # type: ignore[index]
    generator.manual_seed(1)
    keys, values = torch.randn(2, 2, 1, 4, generator=generator), torch.randn(2, 2, 1, 4, generator=generator)
    assert torch.equal(growing.update(keys, values)[0], reference.update(keys, values)[0])
    assert torch.equal(growing.values, reference.values)  # type: ignore[arg-type]
    assert growing.keys.shape == (2, 2, 206, 4)  # type: ignore[union-attr]


class _Attention(torch.nn.Module):
    num_key_value_groups = 4
    is_causal = True


def test_grouped_decode_attention_equals_sdpa_with_repeated_heads() -> None:
    generator = torch.Generator().manual_seed(0)
    device = torch.device(DEVICE)
    query = torch.randn(5, 8, 1, 16, generator=generator).to(device)
    key = torch.randn(5, 2, 30, 16, generator=generator).to(device)
    value = torch.randn(5, 2, 30, 16, generator=generator).to(device)
    mask = torch.ones(5, 1, 1, 30, dtype=torch.bool, device=device)
    for row, padding in enumerate([0, 3, 10, 29, 7]):
        mask[row, :, :, :padding] = False
    # A key/value view with room after it, as the growing cache hands them over.
    roomy_key = torch.zeros(5, 2, 50, 16, device=device)
    roomy_key[:, :, :30] = key
    module = _Attention()
    expected, _ = sdpa_attention_forward(module, query, key, value, mask, scaling=0.25)
    with folding():  # on a GPU the fold is used inside captured decode steps, which enter this
        actual, _ = grouped_decode_attention(module, query, roomy_key[:, :, :30], value, mask, scaling=0.25)
    assert actual.shape == expected.shape == (5, 1, 8, 16)
    # fp32 on both devices; a GPU's attention kernels round differently for repeated and folded heads.
    assert torch.allclose(actual, expected, atol=1e-6 if device.type == "cpu" else 1e-5)
    # More than one query position (prefill, training) is SDPA's own computation.
    prefill = torch.randn(5, 8, 30, 16, generator=generator).to(device)
    causal = torch.tril(torch.ones(30, 30, dtype=torch.bool, device=device))[None, None].expand(5, 1, 30, 30)
    assert torch.equal(grouped_decode_attention(module, prefill, key, value, causal)[0], sdpa_attention_forward(module, prefill, key, value, causal)[0])


def test_the_engine_decodes_with_it_and_samples_what_sdpa_samples(engine: Engine) -> None:
    assert engine.base.config._attn_implementation == "trace_sdpa"
    engine.stop_token_ids = []
    requests = [SamplingRequest(prompt_ids=list(range(20, 20 + length)), max_tokens=10, seed=index) for index, length in enumerate([17, 5, 29])]
    grouped = Sampler(engine, cuda_graphs=False).generate(requests)
    engine.base.set_attn_implementation("sdpa")
    try:
        plain = Sampler(engine, cuda_graphs=False).generate(requests)
    finally:
        engine.base.set_attn_implementation("trace_sdpa")
    for mine, theirs in zip(grouped, plain):
        if not low_precision():
            assert mine.completion_ids == theirs.completion_ids
        # In bf16 a near tie may pick another token; positions are compared up to the first difference.
        same = next((index for index, (a, b) in enumerate(zip(mine.positions, theirs.positions)) if a.token_id != b.token_id), len(mine.positions))
        assert same > 0
        assert max(abs(a.logprob - b.logprob) for a, b in zip(mine.positions[:same], theirs.positions[:same])) < tolerance()


def test_adapters_off_gives_the_base_and_restores_the_adapter(engine: Engine) -> None:
    random_adapter(engine, "side")
    with torch.no_grad():
        tokens = torch.tensor([list(range(20, 40))], device=engine.device)
        engine.activate("side")
        adapted = engine.model(input_ids=tokens).logits
        assert engine.peft is not None
        with engine.peft.disable_adapter():
            base = engine.model(input_ids=tokens).logits
        with engine.adapters_off():
            mine = engine.model(input_ids=tokens).logits
        assert torch.equal(mine, base) and not torch.allclose(mine, adapted)
        assert torch.equal(engine.model(input_ids=tokens).logits, adapted)


def test_point_at_switches_adapters_as_peft_does_and_activate_keeps_training_flags(engine: Engine) -> None:
    random_adapter(engine, "one")
    random_adapter(engine, "two")
    assert engine.peft is not None
    tokens = torch.tensor([list(range(20, 40))], device=engine.device)
    with torch.no_grad():
        expected = {}
        for name in ("one", "two"):
            engine.peft.set_adapter(name)
            expected[name] = engine.model(input_ids=tokens).logits
        assert not torch.allclose(expected["one"], expected["two"])
        for name in ("one", "two", "one", "two"):
            engine.point_at(name)
            assert torch.equal(engine.model(input_ids=tokens).logits, expected[name])
    engine.point_at("two")
    engine.activate("one")
    assert all(parameter.requires_grad for parameter in engine.adapters["one"].parameters)
    assert not any(parameter.requires_grad for parameter in engine.adapters["two"].parameters)
    with torch.no_grad():
        assert torch.equal(engine.model(input_ids=tokens).logits, expected["one"])
