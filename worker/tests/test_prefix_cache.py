"""Prefix caching: a prompt that starts like a cached one reuses its keys and values and samples what a cold prefill
samples; entries are per adapter, evicted least recently used within the byte budget, and dropped after a call."""

from __future__ import annotations

import torch

from trace_worker.engine import Engine
from trace_worker.executor import EngineExecutor
from trace_worker.prefix_cache import BLOCK, PrefixCache
from trace_worker.sampler import Sampler, SamplingRequest

from .conftest import low_precision, random_adapter, tolerance


def ask(prompt: list[int], seed: int, adapter: str | None = None, max_tokens: int = 10) -> SamplingRequest:
    return SamplingRequest(prompt_ids=prompt, adapter=adapter, max_tokens=max_tokens, temperature=1.0, seed=seed, top_logprobs=3)


def same(actual, expected) -> None:  # type: ignore[no-untyped-def]
    assert len(actual.completion_ids) == len(expected.completion_ids)
    if not low_precision():
        assert actual.completion_ids == expected.completion_ids
    assert max(abs(a.logprob - b.logprob) for a, b in zip(actual.positions, expected.positions)) < tolerance()
    assert max(abs(x[1] - y[1]) for a, b in zip(actual.positions, expected.positions) for x, y in zip(a.candidates, b.candidates)) < tolerance()


def test_a_prompt_that_starts_like_a_cached_one_prefills_only_the_rest_and_samples_the_same(engine: Engine) -> None:
    random_adapter(engine, "side")
    engine.stop_token_ids = []
    system = list(range(100, 150))  # a shared system prompt of 50 tokens (3 full blocks)
    first_turn = system + list(range(200, 221))
    second_turn = first_turn + list(range(300, 340))  # the same conversation one turn later
    other = system + list(range(400, 405))
    unrelated = list(range(500, 537))
    requests = [ask(second_turn, 1), ask(other, 2), ask(unrelated, 3), ask(second_turn, 4, adapter="side"), ask(first_turn[:BLOCK * 2], 5)]
    cold = Sampler(engine, cuda_graphs=False, prefix_cache_bytes=0)
    expected = [cold.generate([request])[0] for request in requests]
    assert cold.prefixes.reused_tokens == 0

    warm = Sampler(engine, cuda_graphs=False)
    warm.generate([ask(first_turn, 9)])  # caches the first turn's prompt (base model only)
    reused_before = warm.prefixes.reused_tokens
    actual = warm.generate(requests)  # one prefill: rows with prefixes of 64, 48, 0, 0 and 31 tokens side by side
    # second_turn reuses the 4 full blocks of first_turn (64 of its 71 tokens), other the system prompt's 3 blocks, the
    # adapter's row nothing (keys and values depend on the weights), and a prompt that is all cached keeps one token.
    assert warm.prefixes.reused_tokens - reused_before == 64 + 48 + 31
    for mine, reference in zip(actual, expected):
        same(mine, reference)


def test_the_cache_keeps_the_most_recently_used_within_its_budget() -> None:
    def entry(tokens: list[int]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        return [torch.zeros(1, 1, len(tokens), 4)], [torch.zeros(1, 1, len(tokens), 4)]

    a, b, c = [list(range(n, n + 2 * BLOCK)) for n in (0, 1000, 2000)]
    per_entry = 2 * (2 * BLOCK * 4 * 4)
    cache = PrefixCache(capacity_bytes=2 * per_entry)
    cache.store(None, a, *entry(a))
    cache.store(None, b, *entry(b))
    assert cache.lookup(None, a + [7]) is not None  # a is now the most recently used
    cache.store(None, c, *entry(c))  # evicts b
    assert cache.used_bytes == 2 * per_entry
    assert cache.lookup(None, b + [7]) is None
    assert cache.lookup(None, a + [7])[1] == 2 * BLOCK  # type: ignore[index]
    assert cache.lookup("adapter", a + [7]) is None
    assert cache.lookup(None, a[:BLOCK] + [7] * BLOCK)[1] == BLOCK  # type: ignore[index]
    assert cache.lookup(None, a[: BLOCK - 1]) is None


def test_a_call_drops_the_cache(engine: Engine) -> None:
    executor = EngineExecutor(Sampler(engine, cuda_graphs=False), batch_wait=0)
    try:
        prompt = list(range(100, 140))
        executor.sample(ask(prompt, 1))
        executor.sample(ask(prompt, 2))
        assert executor.sampler.prefixes.reused_tokens == 2 * BLOCK
        executor.call(lambda: None)
        executor.sample(ask(prompt, 3))
        assert executor.sampler.prefixes.reused_tokens == 2 * BLOCK
    finally:
        executor.stop()
