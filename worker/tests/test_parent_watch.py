"""The worker dies with the process that started it (trace_worker.parent_watch), on small Python processes: no model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from trace_worker.parent_watch import watch_parent

WORKER_DIRECTORY = Path(__file__).resolve().parents[1]

# A stand-in for the worker: watches its parent as `serve` does, says what it watches, and waits. Leaving exits 7 (or
# hangs in on_gone when told to, to show the grace period's hard exit).
WATCHED = textwrap.dedent(
    """
    import os, sys, time
    from trace_worker.parent_watch import watch_parent

    def gone(reason):
        print("gone:", reason, flush=True)
        if os.environ.get("TRACE_TEST_HANG") == "1":
            time.sleep(60)
        os._exit(7)

    watch = watch_parent(gone, poll_seconds=0.1, grace_seconds=float(os.environ.get("TRACE_TEST_GRACE", "5")))
    print("watching", os.getpid(), ",".join(watch.mechanisms) if watch else "nothing", flush=True)
    time.sleep(60)
    """
)

# Starts WATCHED (stdin as told, TRACE_WORKER_PARENT_PID = STARTER or its own pid), prints its line and waits.
MIDDLE = textwrap.dedent(
    """
    import os, subprocess, sys, time
    environment = dict(os.environ)
    environment.setdefault("TRACE_WORKER_PARENT_PID", str(os.getpid()))
    stdin = subprocess.PIPE if os.environ.get("TRACE_TEST_STDIN") == "pipe" else subprocess.DEVNULL
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], env=environment, stdin=stdin, stdout=subprocess.PIPE, text=True)
    print(child.stdout.readline().strip(), flush=True)
    time.sleep(60)
    """
)


def environment(**extra: str) -> dict[str, str]:
    base = {key: value for key, value in os.environ.items() if key not in ("TRACE_WORKER_PARENT_PID", "TRACE_WORKER_PDEATHSIG", "TORCHELASTIC_RUN_ID")}
    return dict(base, PYTHONPATH=str(WORKER_DIRECTORY), **extra)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its new parent) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def wait_gone(pid: int, seconds: float) -> float:
    started = time.monotonic()
    while alive(pid):
        if time.monotonic() - started > seconds:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"process {pid} still runs {seconds} s after its starter left")
        time.sleep(0.05)
    return time.monotonic() - started


def start_middle(**extra: str) -> tuple[subprocess.Popen[str], int, str]:
    middle = subprocess.Popen([sys.executable, "-c", MIDDLE, WATCHED], env=environment(**extra), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    assert middle.stdout is not None
    line = middle.stdout.readline().split()
    assert line[0] == "watching", line
    return middle, int(line[1]), line[2]


def finish(process: subprocess.Popen[Any]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()


def test_nothing_is_watched_unless_asked() -> None:
    assert watch_parent(lambda _reason: None, environ={}) is None
    assert watch_parent(lambda _reason: None, environ={"TRACE_WORKER_PARENT_PID": "not a pid"}) is None


def test_the_end_of_stdin_stops_the_worker() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", WATCHED], env=environment(TRACE_WORKER_PARENT_PID=str(os.getpid())), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().split()[2] == "stdin,parent"
        child.stdin.close()  # what the kernel does when the starter dies, however it dies
        assert child.wait(timeout=5) == 7
        assert "closed its stdin" in child.stdout.read()
    finally:
        finish(child)


@pytest.mark.parametrize("pdeathsig", ["0", "1"])
def test_a_killed_parent_stops_the_worker(pdeathsig: str) -> None:
    """SIGKILL of the parent, with no pipe: the parent poll (and, on Linux, PDEATHSIG) sees it."""
    middle, pid, mechanisms = start_middle(TRACE_WORKER_PDEATHSIG=pdeathsig)
    try:
        expected = "pdeathsig,parent" if pdeathsig == "1" and sys.platform.startswith("linux") else "parent"
        assert mechanisms == expected
        middle.kill()
        assert wait_gone(pid, 5) < 5
    finally:
        finish(middle)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_dead_starter_behind_a_live_parent_stops_the_worker() -> None:
    """starter → torchrun (lives on) → rank: the rank watches the starter's pid itself."""
    starter = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=environment())
    middle, pid, mechanisms = start_middle(TRACE_WORKER_PARENT_PID=str(starter.pid), TORCHELASTIC_RUN_ID="test")
    try:
        assert mechanisms == "parent,starter"
        time.sleep(0.3)
        assert alive(pid)
        starter.kill()
        assert wait_gone(pid, 5) < 5
        assert middle.poll() is None  # the stand-in for torchrun is not ours to stop: it ends when its ranks do
    finally:
        finish(starter)
        finish(middle)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_rank_leaves_when_torchrun_dies() -> None:
    middle, pid, mechanisms = start_middle(TORCHELASTIC_RUN_ID="test", TRACE_WORKER_PARENT_PID="")
    try:
        assert mechanisms == "parent"
        middle.kill()
        assert wait_gone(pid, 5) < 5
    finally:
        finish(middle)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_shutdown_that_hangs_ends_after_the_grace_period() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", WATCHED],
        env=environment(TRACE_WORKER_PARENT_PID=str(os.getpid()), TRACE_TEST_HANG="1", TRACE_TEST_GRACE="0.5"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None and child.stderr is not None
        child.stdout.readline()
        started = time.monotonic()
        child.stdin.close()
        assert child.wait(timeout=5) == 1
        assert 0.4 < time.monotonic() - started < 4
        assert "exiting now" in child.stderr.read()
    finally:
        finish(child)
