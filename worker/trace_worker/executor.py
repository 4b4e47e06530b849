"""The engine thread: every model operation runs here, one at a time; queued chat requests are batched together."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable

from .sampler import Sampler, SamplingRequest, SamplingResult

log = logging.getLogger("trace_worker")


@dataclass
class _Job:
    future: Future[Any]
    call: Callable[[], Any] | None = None
    sample: SamplingRequest | None = None


class EngineExecutor:
    """Runs submitted calls in order on one thread; consecutive sampling requests form one batch (up to
    `max_batch_size`), waiting up to `batch_wait` seconds for more to arrive when the first one comes alone."""

    def __init__(self, sampler: Sampler, max_batch_size: int = 64, batch_wait: float = 0.005) -> None:
        self.sampler = sampler
        self.max_batch_size = max_batch_size
        self.batch_wait = batch_wait
        self._queue: deque[_Job] = deque()
        self._condition = threading.Condition()
        self._stopped = False
        self.sampling_batches = 0
        self.largest_batch = 0
        self._thread = threading.Thread(target=self._run, name="trace-engine", daemon=True)
        self._thread.start()

    def call(self, function: Callable[[], Any]) -> Any:
        """Runs `function` on the engine thread and returns its result (or raises its error)."""
        return self._submit(_Job(Future(), call=function)).result()

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

    def _take(self) -> list[_Job] | None:
        with self._condition:
            while not self._queue and not self._stopped:
                self._condition.wait()
            if self._stopped and not self._queue:
                return None
            first = self._queue.popleft()
            if first.sample is None:
                return [first]
        if self.batch_wait > 0:
            time.sleep(self.batch_wait)
        batch = [first]
        with self._condition:
            while self._queue and self._queue[0].sample is not None and len(batch) < self.max_batch_size:
                batch.append(self._queue.popleft())
        return batch

    def _run(self) -> None:
        while True:
            jobs = self._take()
            if jobs is None:
                return
            if jobs[0].call is not None:
                job = jobs[0]
                try:
                    job.future.set_result(job.call())
                except BaseException as error:  # handed to the waiting request thread
                    job.future.set_exception(error)
                continue
            self.sampling_batches += 1
            self.largest_batch = max(self.largest_batch, len(jobs))
            try:
                results = self.sampler.generate([job.sample for job in jobs if job.sample is not None])
                for job, result in zip(jobs, results):
                    job.future.set_result(result)
            except BaseException as error:
                log.exception("sampling failed")
                for job in jobs:
                    if not job.future.done():
                        job.future.set_exception(error)
