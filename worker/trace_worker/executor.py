"""The engine thread: every model operation runs here, one at a time; queued chat requests are batched together."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import AbstractSet, Any, Callable

from .sampler import Sampler, SamplingRequest, SamplingResult

log = logging.getLogger("trace_worker")


@dataclass
class _Job:
    future: Future[Any]
    call: Callable[[], Any] | None = None
    sample: SamplingRequest | None = None
    #: The adapters whose weights the call may change (None: any weights, the base model's included).
    changes: AbstractSet[str] | None = None


class EngineExecutor:
    """Runs submitted calls in order on one thread and decodes sampling requests with continuous batching: between
    two decode steps, queued requests join the running batch (up to `max_batch_size` rows), so a request never waits
    for another to finish. A call (training, adapter changes) is a barrier: requests queued after it wait, the running
    rows finish, the call runs, then decoding goes on, so every completion is sampled from one set of weights. A request
    that arrives while nothing runs waits up to `batch_wait` seconds for others to prefill with it. `continuous=False`
    decodes static waves instead (a wave is admitted only when the last one ended): the baseline of the benchmark.

    On CUDA (`pace_joins`, by default where the model is on a GPU), joins are paced while rows decode, so that
    prefills take about half the engine's time at most: after a prefill of d seconds the next waits until d seconds of
    decoding have passed, and takes every request queued by then in one prefill. On a GPU a small prefill costs about
    as much host time as a large one (≈25 ms for a Qwen3-0.6B shape) while a captured decode step costs a few
    milliseconds, so admitting each arrival on its own next step would spend the engine on prefills; static waves then
    came out ahead (7.8 s against 11 s on the mixed workload, H200). On a CPU a prefill's cost grows with its tokens,
    so batching joins saves little and pacing would only delay them."""

    def __init__(
        self, sampler: Sampler, max_batch_size: int = 64, batch_wait: float = 0.005, continuous: bool = True, pace_joins: bool | None = None
    ) -> None:
        self.sampler = sampler
        self.max_batch_size = max_batch_size
        self.batch_wait = batch_wait
        self.continuous = continuous
        self.pace_joins = sampler.engine.device.type == "cuda" if pace_joins is None else pace_joins
        self._last_prefill_seconds = 0.0
        self._last_prefill_end = 0.0
        self._queue: deque[_Job] = deque()
        self._condition = threading.Condition()
        self._stopped = False
        self.sampling_batches = 0
        self.largest_batch = 0
        self.decode_steps = 0
        #: Seconds the engine thread spent prefilling and decoding, and running calls (its idle time is the rest).
        self.sampling_seconds = 0.0
        self.call_seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="trace-engine", daemon=True)
        self._thread.start()

    def call(self, function: Callable[[], Any], changes: AbstractSet[str] | None = None) -> Any:
        """Runs `function` on the engine thread and returns its result (or raises its error). `changes` names the adapters
        whose weights it may change (their cached prompt prefixes are dropped after it); None, any weights (the whole
        cache is dropped); an empty set, none."""
        return self._submit(_Job(Future(), call=function, changes=changes)).result()

    def sample(self, request: SamplingRequest) -> SamplingResult:
        result: SamplingResult = self._submit(_Job(Future(), sample=request)).result()
        return result

    def _submit(self, job: _Job) -> Future[Any]:
        with self._condition:
            if self._stopped:
                raise RuntimeError("the worker is shutting down")
            self._queue.append(job)
            self._condition.notify()
        return job.future

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            self._condition.notify()
        self._thread.join(timeout=10)

    def _next_call(self) -> _Job | None:
        """The call at the head of the queue, once no row is decoding (else None)."""
        with self._condition:
            if self._queue and self._queue[0].call is not None and self.sampler.running == 0:
                return self._queue.popleft()
        return None

    def _admissible(self) -> list[_Job]:
        """Takes the sampling jobs queued before the first call that can join now, up to the free rows."""
        taken: list[_Job] = []
        with self._condition:
            if not self.continuous and self.sampler.running > 0:
                return taken
            if self.pace_joins and self.sampler.running > 0 and time.perf_counter() - self._last_prefill_end < self._last_prefill_seconds:
                return taken  # paced: decode for as long as the last prefill took before the next one
            free = self.max_batch_size - self.sampler.running
            kept: deque[_Job] = deque()
            while self._queue:
                job = self._queue[0]
                if job.call is not None:
                    break
                self._queue.popleft()
                assert job.sample is not None
                joining = [other.sample for other in taken if other.sample is not None and other.sample.adapter == job.sample.adapter]
                if len(taken) < free and self.sampler.admissible(job.sample, joining):
                    taken.append(job)
                else:
                    kept.append(job)
            self._queue.extendleft(reversed(kept))
        return taken

    def _wait(self) -> bool:
        """Blocks while there is nothing to do; False once stopped with nothing left."""
        with self._condition:
            while not self._queue and self.sampler.running == 0 and not self._stopped:
                self._condition.wait()
            return not (self._stopped and not self._queue and self.sampler.running == 0)

    def _run(self) -> None:
        while self._wait():
            call = self._next_call()
            if call is not None:
                assert call.call is not None
                started = time.perf_counter()
                try:
                    call.future.set_result(call.call())
                except BaseException as error:  # handed to the waiting request thread
                    call.future.set_exception(error)
                # keys and values computed with weights the call may have changed are stale
                if call.changes is None:
                    self.sampler.prefixes.clear()
                for adapter in call.changes or ():
                    self.sampler.prefixes.drop(adapter)
                self.call_seconds += time.perf_counter() - started
                continue
            if self.sampler.running == 0 and self.batch_wait > 0 and self._queue and self._queue[0].sample is not None:
                time.sleep(self.batch_wait)  # let a burst of requests arrive and prefill together
            started = time.perf_counter()
            jobs = self._admissible()
            if jobs:
                self.sampling_batches += 1
                try:
                    failures = self.sampler.admit([job.sample for job in jobs if job.sample is not None], jobs)
                except BaseException as error:
                    log.exception("sampling failed")
                    failures = [(job, error) for job in jobs]
                for job, error in failures:
                    job.future.set_exception(error)
                self.largest_batch = max(self.largest_batch, self.sampler.running)
                self._last_prefill_end = time.perf_counter()
                self._last_prefill_seconds = self._last_prefill_end - started
            if self.sampler.running > 0:
                self.decode_steps += 1
                for job, outcome in self.sampler.step():
                    if isinstance(outcome, BaseException):
                        job.future.set_exception(outcome)
                    else:
                        job.future.set_result(outcome)
            self.sampling_seconds += time.perf_counter() - started
