"""Prefix caching: a prompt that starts like a cached one reuses its keys and values and samples what a cold prefill
samples; entries are per adapter, evicted least recently used within the byte budget (a conversation's later turn
replacing the entries it covers), and dropped after a call that may change their weights (only the changed adapter's
after a trainer call that names it)."""

from __future__ import annotations

import torch

from trace_worker.engine import Engine
from trace_worker.executor import EngineExecutor
from trace_worker.prefix_cache import BLOCK, PrefixCache
from trace_worker.sampler import Sampler, SamplingRequest

from .conftest import low_precision, random_adapter, tolerance
from .worker_http import RunningWorker


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
    fed_before, positions_before = warm.prefill_tokens, warm.prefill_positions
    actual = warm.generate(requests)  # one prefill: rows with prefixes of 64, 48, 0, 0 and 31 tokens side by side
    # second_turn reuses the 4 full blocks of first_turn (64 of its 71 tokens), other the system prompt's 3 blocks, the
    # adapter's row nothing (keys and values depend on the weights), and a prompt that is all cached keeps one token.
    assert warm.prefixes.reused_tokens - reused_before == 64 + 48 + 31
    # Fed after those prefixes: 47 + 7 + 37 + 1 tokens on the base model (four rows of 47 columns), the adapter's 111.
    assert warm.prefill_tokens - fed_before == 47 + 7 + 37 + 1 + 111
    assert warm.prefill_positions - positions_before == 4 * 47 + 111
    for mine, reference in zip(actual, expected):
        same(mine, reference)


def test_requests_with_the_same_prompt_in_one_prefill_are_prefilled_once_and_sample_as_apart(engine: Engine) -> None:
    engine.stop_token_ids = []
    task = list(range(100, 140))
    other = list(range(200, 230))
    salted = SamplingRequest(prompt_ids=task, max_tokens=10, temperature=1.0, seed=5, top_logprobs=3, cache_salt="tenant")
    requests = [ask(task, 1), ask(task, 2), ask(other, 3), ask(task, 4), salted]
    alone = Sampler(engine, cuda_graphs=False, prefix_cache_bytes=0)
    expected = [alone.generate([request])[0] for request in requests]

    together = Sampler(engine, cuda_graphs=False, prefix_cache_bytes=0)
    actual = together.generate(requests)  # one prefill: the task's three unsalted rows share one forward row
    assert together.prompt_tokens == 4 * 40 + 30
    assert together.prefill_tokens == 40 + 30 + 40  # the task, the other prompt, the salted task
    assert together.prefill_positions == 3 * 40
    for mine, reference in zip(actual, expected):
        same(mine, reference)
    assert actual[0].completion_ids != actual[1].completion_ids  # each row still samples with its own seed


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


def test_a_conversation_keeps_one_entry_its_later_turns_replacing_the_earlier() -> None:
    def entry(tokens: list[int]) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        return [torch.zeros(1, 1, len(tokens), 4)], [torch.zeros(1, 1, len(tokens), 4)]

    system = list(range(100, 100 + 2 * BLOCK))
    first_turn = system + list(range(200, 200 + BLOCK + 5))  # 3 full blocks and 5 tokens
    second_turn = first_turn + list(range(300, 300 + BLOCK))  # the same conversation one turn later
    other_task = system + list(range(400, 400 + BLOCK))  # shares only the system prompt's blocks
    cache = PrefixCache(capacity_bytes=1 << 20)
    cache.store(None, first_turn, *entry(first_turn))
    cache.store(None, other_task, *entry(other_task))
    cache.store(None, first_turn, *entry(first_turn), salt="tenant")  # the same blocks under another salt
    cache.store(None, second_turn, *entry(second_turn))
    # The first turn's entry went (every full block of it is the second turn's); the other task's and the salted stay.
    assert cache.used_bytes == sum(2 * len(tokens) * 4 * 4 for tokens in (other_task, first_turn, second_turn))
    assert cache.lookup(None, first_turn + [7])[1] == 3 * BLOCK  # type: ignore[index]
    assert cache.lookup(None, other_task + [7])[1] == 3 * BLOCK  # type: ignore[index]
    assert cache.lookup(None, first_turn + [7], salt="tenant")[1] == 3 * BLOCK  # type: ignore[index]


def test_a_call_drops_the_cache(engine: Engine) -> None:
    executor = EngineExecutor(Sampler(engine, cuda_graphs=False), batch_wait=0)
    try:
        prompt = list(range(100, 140))
        executor.sample(ask(prompt, 1))
        executor.sample(ask(prompt, 2))
        assert executor.sampler.prefixes.reused_tokens == 2 * BLOCK
        executor.call(lambda: None, changes=frozenset())  # a call that changes no weights keeps the cache
        executor.sample(ask(prompt, 3))
        assert executor.sampler.prefixes.reused_tokens == 4 * BLOCK
        executor.call(lambda: None)  # one that may change any weights drops it
        executor.sample(ask(prompt, 4))
        assert executor.sampler.prefixes.reused_tokens == 4 * BLOCK
    finally:
        executor.stop()


#: A conversation whose prompt spans several cache blocks.
MESSAGES = [{"role": "system", "content": "You help with reservations. " * 4}, {"role": "user", "content": "Find reservation 4WQ150."}]


def chat_reusing(worker: RunningWorker, **fields: object) -> tuple[dict, int]:  # type: ignore[type-arg]
    """A two-token chat of MESSAGES (seed 1) with `fields` added, and how many of its prompt tokens came from the cache."""
    before = worker.request("GET", "/health")[1]["prefix_cached_tokens"]
    answer = worker.post("/v1/chat/completions", {"messages": MESSAGES, "max_tokens": 2, "seed": 1, **fields})
    return answer, int(worker.request("GET", "/health")[1]["prefix_cached_tokens"] - before)


def test_a_trainer_call_drops_only_the_adapter_it_changes(engine: Engine) -> None:
    worker = RunningWorker(engine)

    def reused_after_chat(model: str) -> int:
        return chat_reusing(worker, model=model)[1]

    try:
        base = engine.served_name
        for name in ("learner", "bystander"):
            worker.post("/v1/trainer/create_adapter", {"name": name, "rank": 4})
        models = (base, "learner", "bystander")
        assert [reused_after_chat(model) for model in models] == [0, 0, 0]  # cached now
        hit = reused_after_chat(base)
        assert hit >= BLOCK
        completion = worker.post("/v1/chat/completions", {"model": "learner", "messages": MESSAGES, "max_tokens": 4, "seed": 2, "return_token_ids": True})
        sequence = completion["prompt_token_ids"] + completion["choices"][0]["token_ids"]
        datum = {"tokens": sequence[:-1], "target_tokens": sequence[1:]}
        worker.post("/v1/trainer/forward_backward", {"adapter": "learner", "loss": "cross_entropy", "datums": [datum]})  # no weight changes
        assert [reused_after_chat(model) for model in models] == [hit, hit, hit]
        worker.post("/v1/trainer/optim_step", {"adapter": "learner", "learning_rate": 1e-2})  # changes the learner's weights only
        assert [reused_after_chat(model) for model in models] == [hit, 0, hit]
        worker.post("/v1/trainer/delete_adapter", {"name": "bystander"})
        assert reused_after_chat(base) == hit
    finally:
        worker.close()


def test_requests_share_cached_prefixes_only_under_the_same_cache_salt(engine: Engine) -> None:
    worker = RunningWorker(engine)

    def reused_after_chat(salt: str | None) -> int:
        answer, reused = chat_reusing(worker, model=engine.served_name, logprobs=True, **({} if salt is None else {"cache_salt": salt}))
        replies.append(answer["choices"][0]["logprobs"]["content"])
        return reused

    replies: list[list[dict]] = []  # type: ignore[type-arg]
    try:
        assert reused_after_chat("tenant-a") == 0  # cached under tenant-a's salt
        assert reused_after_chat(None) == 0  # unsalted requests do not see it
        assert reused_after_chat("tenant-b") == 0
        assert reused_after_chat("tenant-a") >= BLOCK  # the same salt does
        assert reused_after_chat(None) >= BLOCK
        for reply in replies:  # the same seed samples the same reply, cold or from the cache
            assert [entry["token"] for entry in reply] == [entry["token"] for entry in replies[0]] or low_precision()
            assert max(abs(entry["logprob"] - first["logprob"]) for entry, first in zip(reply, replies[0])) < tolerance()
    finally:
        worker.close()
