"""Continuous batching: requests join a running wave between steps and leave when they finish, and each still gets
the tokens and logprobs it gets decoded alone; the executor lets a short request overtake a long one and keeps a
call (training) between the completions queued before it and those queued after."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import Callable

import pytest
import torch

from trace_worker.engine import Engine
from trace_worker.executor import EngineExecutor, _Job
from trace_worker.graph_decoder import EagerStepper, GraphDecoder
from trace_worker.sampler import Sampler, SamplingRequest, SamplingResult
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, low_precision, random_adapter, tolerance


def ask(prompt_start: int, prompt_length: int, max_tokens: int, seed: int, adapter: str | None = None, temperature: float = 1.0) -> SamplingRequest:
    return SamplingRequest(
        prompt_ids=list(range(prompt_start, prompt_start + prompt_length)),
        adapter=adapter,
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        top_logprobs=2,
    )


def with_adapter(engine: Engine, name: str) -> Trainer:
    trainer = random_adapter(engine, name)
    engine.stop_token_ids = []  # every request runs to its max_tokens: the schedule below is exact
    return trainer


def assert_same(actual: SamplingResult, expected: SamplingResult) -> None:
    assert len(actual.completion_ids) == len(expected.completion_ids)
    if not low_precision():
        assert actual.completion_ids == expected.completion_ids
        assert max(abs(a.logprob - b.logprob) for a, b in zip(actual.positions, expected.positions)) < tolerance()
        assert [c[0] for c in actual.positions[0].candidates] == [c[0] for c in expected.positions[0].candidates]


def assert_compact(sampler: Sampler) -> None:
    """Every eager wave's cache is as wide as its mask, and its first column holds some row's token (no dead padding)."""
    for wave in sampler.waves.values():
        stepper = wave.stepper
        assert isinstance(stepper, EagerStepper)
        assert bool(stepper.attention[:, 0].any())
        assert all(layer.keys.shape[2] == stepper.attention.shape[1] and layer.keys.shape[0] == len(wave.rows) for layer in stepper.cache.layers)


@pytest.mark.parametrize("checkpoint", ["tiny_checkpoint", "tiny_moe_checkpoint"])
def test_rows_that_join_and_leave_mid_decode_get_what_they_get_alone(checkpoint: str, request: pytest.FixtureRequest) -> None:
    torch.manual_seed(0)
    engine = Engine(request.getfixturevalue(checkpoint), device=DEVICE, dtype=DTYPE)
    with_adapter(engine, "side")
    sampler = Sampler(engine, cuda_graphs=False)
    first = [ask(20, 17, 30, seed=1), ask(40, 5, 8, seed=2)]
    later = {
        3: [ask(300, 29, 20, seed=3)],  # a prompt longer than the running cache: the running rows are padded
        5: [ask(60, 9, 12, seed=4, adapter="side"), ask(80, 4, 6, seed=5, temperature=0.0)],
        10: [ask(90, 3, 9, seed=6), ask(100, 7, 4, seed=7, adapter="side")],  # after the second row left
    }
    everything = first + [item for batch in later.values() for item in batch]
    alone = [sampler.generate([item])[0] for item in everything]

    handles = {id(item): index for index, item in enumerate(everything)}
    assert sampler.admit(first, [handles[id(item)] for item in first]) == []
    results: dict[int, SamplingResult] = {}
    step = 0
    widest = 0
    while sampler.waves or step <= max(later):
        if step in later:
            assert sampler.admit(later[step], [handles[id(item)] for item in later[step]]) == []
        widest = max(widest, sampler.running)
        for handle, outcome in sampler.step():
            assert isinstance(outcome, SamplingResult)
            results[handle] = outcome
        assert_compact(sampler)
        step += 1
    assert widest == 6 and sorted(results) == list(range(len(everything)))
    for index, expected in enumerate(alone):
        assert_same(results[index], expected)


def test_a_static_cache_wave_per_adapter_decodes_alongside_another(engine: Engine) -> None:
    """Two adapters' waves step in turn on the static-cache path (what CUDA graphs replay): each on its own cache."""
    with_adapter(engine, "side")
    eager = Sampler(engine, cuda_graphs=False)
    static = Sampler(engine)
    static.graphs = GraphDecoder(engine, True, minimum_cache=16, capture=engine.device.type == "cuda")
    base_requests = [ask(20, 17, 12, seed=1), ask(40, 5, 7, seed=2)]
    side_requests = [ask(300, 11, 12, seed=3, adapter="side"), ask(200, 16, 9, seed=4, adapter="side")]
    expected = [eager.generate([item])[0] for item in base_requests + side_requests]
    actual = static.generate(base_requests + side_requests)
    assert static.graphs.captured and not static.graphs.busy
    # Both waves fall in one (batch, length) bucket: the second decodes on a second static cache of that shape.
    assert {key[1:] for key in static.graphs.captured} == {(2, 32, 0), (2, 32, 1)}
    for mine, reference in zip(actual, expected):
        assert_same(mine, reference)
    # A full static-cache wave (both slots live) takes no new row: a request for its adapter waits for a free slot.
    static.admit(base_requests, [0, 1])
    assert not static.admissible(ask(50, 5, 4, seed=9)) and static.admissible(ask(50, 5, 4, seed=9, adapter="side"))
    while static.waves:
        static.step()
    assert static.admissible(ask(50, 5, 4, seed=9)) and not static.graphs.busy


@pytest.mark.parametrize("checkpoint", ["tiny_checkpoint", "tiny_moe_checkpoint"])
def test_rows_join_a_static_cache_wave_in_free_slots(checkpoint: str, request: pytest.FixtureRequest) -> None:
    """On the static cache (what CUDA graphs replay) a row that leaves frees its slot and a prefilled row joins into it,
    its prompt placed just before the cursor: every row still gets what it gets decoded alone, dense and MoE alike."""
    torch.manual_seed(0)
    engine = Engine(request.getfixturevalue(checkpoint), device=DEVICE, dtype=DTYPE)
    with_adapter(engine, "side")
    static = Sampler(engine)
    static.graphs = GraphDecoder(engine, True, minimum_cache=16, capture=engine.device.type == "cuda")
    first = [ask(20, 17, 30, seed=1, adapter="side"), ask(40, 5, 3, seed=2, adapter="side"), ask(70, 9, 25, seed=3, adapter="side"),
             ask(90, 12, 4, seed=4, adapter="side")]
    later = ask(300, 14, 9, seed=5, adapter="side")  # joins once a slot is free; its prompt fits before the cursor
    too_long = ask(500, 40, 4, seed=6, adapter="side")  # longer than the columns before the cursor: waits
    alone = [static.generate([item])[0] for item in [*first, later]]
    assert static.admit(first, [0, 1, 2, 3]) == []
    wave = static.waves["side"]
    assert not isinstance(wave.stepper, EagerStepper) and not wave.takes([later])  # four rows in four slots
    results: dict[int, SamplingResult] = {}
    joined_at = None
    while static.waves:
        if joined_at is None and wave.takes([later]):
            assert not static.admissible(too_long) and static.admissible(later)
            assert static.admit([later], [4]) == []
            joined_at = len(wave.rows)
        for handle, outcome in static.step():
            assert isinstance(outcome, SamplingResult)
            results[handle] = outcome
    assert joined_at is not None and sorted(results) == [0, 1, 2, 3, 4]
    for index, expected in enumerate(alone):
        assert_same(results[index], expected)


def test_the_executor_lets_a_short_request_overtake_and_holds_calls_between_completions(engine: Engine) -> None:
    with_adapter(engine, "side")
    executor = EngineExecutor(Sampler(engine, cuda_graphs=False), batch_wait=0)
    order: list[str] = []

    def submit(name: str, item: SamplingRequest) -> Future[SamplingResult]:
        # The engine thread completes the future and runs its callback, so `order` is the engine's own order.
        future: Future[SamplingResult] = executor._submit(_Job(Future(), sample=item))
        future.add_done_callback(lambda _future: order.append(name))
        return future

    try:
        long = submit("long", ask(20, 17, 400, seed=1))
        deadline = time.time() + 30
        while executor.sampler.running == 0 and time.time() < deadline:
            time.sleep(0.001)
        short = submit("short", ask(40, 5, 3, seed=2, adapter="side"))
        assert len(short.result(timeout=60).completion_ids) == 3
        assert not long.done(), "the short request finished while the long one still decoded"
        # A call queued now waits for the running row; a request queued after the call is sampled after it.
        running_at_call: list[int] = []
        call_done = threading.Event()

        def call() -> None:
            running_at_call.append(executor.sampler.running)
            order.append("call")

        threading.Thread(target=lambda: (executor.call(call), call_done.set())).start()
        while not any(job.call is not None for job in list(executor._queue)) and not call_done.is_set():
            time.sleep(0.001)
        after = submit("after", ask(60, 9, 2, seed=3))
        assert len(long.result(timeout=120).completion_ids) == 400
        after.result(timeout=60)
        assert call_done.wait(60)
        assert running_at_call == [0]
        assert order == ["short", "long", "call", "after"]
        assert executor.largest_batch == 2
    finally:
        executor.stop()


def finishing_order(executor: EngineExecutor, while_long_decodes: Callable[[], None] = lambda: None) -> list[str]:
    """Starts a long request, runs `while_long_decodes` once it decodes, then samples a short one; the order they finish."""
    try:
        finished: list[str] = []
        long_thread = threading.Thread(target=lambda: (executor.sample(ask(20, 17, 200, seed=1)), finished.append("long")))
        long_thread.start()
        deadline = time.time() + 30
        while executor.sampler.running == 0 and time.time() < deadline:
            time.sleep(0.001)
        while_long_decodes()
        executor.sample(ask(40, 5, 2, seed=2))
        finished.append("short")
        long_thread.join()
        return finished
    finally:
        executor.stop()


def test_paced_joins_wait_for_as_much_decoding_as_the_last_prefill_took(engine: Engine) -> None:
    """With `pace_joins` (the default on CUDA) a request arriving while rows decode waits until as much decoding time has
    passed as the last prefill took: a prefill taken to have lasted an hour keeps it out until the wave ends. Without
    pacing (the default on CPU) it joins at the next step (the overtaking test above)."""
    engine.stop_token_ids = []
    default = EngineExecutor(Sampler(engine, cuda_graphs=False))
    default.stop()
    assert default.pace_joins == (engine.device.type == "cuda")
    executor = EngineExecutor(Sampler(engine, cuda_graphs=False), batch_wait=0, pace_joins=True)

    def slow_last_prefill() -> None:
        executor._last_prefill_seconds = 3600.0

    assert finishing_order(executor, slow_last_prefill) == ["long", "short"]
    assert executor.largest_batch == 1


def test_static_waves_are_the_baseline(engine: Engine) -> None:
    """continuous=False admits a wave only when the last one ended: a short request waits for the long one."""
    engine.stop_token_ids = []
    assert finishing_order(EngineExecutor(Sampler(engine, cuda_graphs=False), batch_wait=0, continuous=False)) == ["long", "short"]


def test_a_seeded_sample_does_not_depend_on_when_it_joined() -> None:
    """The noise of a row's k-th token depends on its seed and k only, not on the wave's step count."""
    from trace_worker.sampler import seeded_uniforms

    seeds = torch.tensor([5, 5, 9])
    together = seeded_uniforms(seeds, torch.tensor([0, 3, 3]), 11)
    assert torch.equal(together[0], seeded_uniforms(seeds[:1], 0, 11)[0])
    assert torch.equal(together[1], seeded_uniforms(seeds[:1], 3, 11)[0])
    assert torch.equal(together[2], seeded_uniforms(seeds[2:], 3, 11)[0])
    assert not torch.equal(together[0], together[1])
