"""The worker dies with the process that started it.

A worker outliving its starter holds its port and ~1 GB (or GPUs) with nobody left to stop it. The Node side
(`src/worker/worker-process.ts`) sets TRACE_WORKER_PARENT_PID to its own pid and gives the worker a pipe as stdin that
nothing writes to. Then the worker leaves as soon as any of these says that its starter is gone:

- end of file on stdin: the pipe's only writer was the starter, so the kernel closes it however the starter died, even
  by SIGKILL, and it reaches through torchrun too (the ranks inherit torchrun's stdin);
- its parent changed (the parent died and the worker was re-parented to init or a subreaper), polled every half second;
- the starter's pid, when it is not the parent (torchrun between them), no longer names the process it named at start;
- on Linux, when the starter is the parent and spawned it from its main thread, PR_SET_PDEATHSIG (SIGTERM). The
  kernel sends that signal when the parent *thread* ends, hence the main-thread condition the starter passes in
  TRACE_WORKER_PDEATHSIG, and the watchdog above as well.

Under torchrun (TORCHELASTIC_RUN_ID set) a rank also leaves when its parent, the torchrun agent, is gone, whoever started
that: an agent killed by SIGKILL cannot stop its ranks. A worker started by hand outside torchrun is watched by nothing
(`nohup python -m trace_worker serve … &` keeps serving after its shell exits).

Leaving means calling `on_gone` (which shuts the server down cleanly) and, should that not finish within a grace period
(a long trainer call in progress, a collective waiting for a dead rank), `os._exit`.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

PARENT_PID_VARIABLE = "TRACE_WORKER_PARENT_PID"
PDEATHSIG_VARIABLE = "TRACE_WORKER_PDEATHSIG"
POLL_SECONDS = 0.5
GRACE_SECONDS = 10.0
PR_SET_PDEATHSIG = 1
EXIT_CODE = 1


@dataclass
class ParentWatch:
    """What is watched: `parent` (the parent at start), `starter` (TRACE_WORKER_PARENT_PID, if set) and how."""

    parent: int
    starter: int | None
    mechanisms: list[str] = field(default_factory=list)
    gone: threading.Event = field(default_factory=threading.Event)


def process_status(pid: int) -> tuple[str, str] | None:
    """The process's state letter and start time in clock ticks since boot (Linux /proc; the start time tells a
    process from a later one that reuses its pid); None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def start_time(pid: int) -> str | None:
    status = process_status(pid)
    return status[1] if status else None


def is_alive(pid: int, started: str | None) -> bool:
    """Whether `pid` still names a running process (one that started at `started`, where known); a zombie, dead but not
    yet reaped, is not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by someone else
    status = process_status(pid)
    if status is None:
        return True
    state, now_started = status
    return state not in ("Z", "X") and (started is None or now_started == started)


def stdin_is_pipe() -> bool:
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def set_parent_death_signal(signal_number: int = signal.SIGTERM) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal_number), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(
    on_gone: Callable[[str], None],
    environ: Mapping[str, str] | None = None,
    poll_seconds: float = POLL_SECONDS,
    grace_seconds: float = GRACE_SECONDS,
) -> ParentWatch | None:
    """Starts watching (daemon threads) and returns what is watched, or None where nothing asks for it (see above).
    `on_gone(reason)` is called once, from a watcher thread; the process exits `grace_seconds` later regardless."""
    environ = os.environ if environ is None else environ
    raw = environ.get(PARENT_PID_VARIABLE, "")
    starter = int(raw) if raw.isdigit() and int(raw) > 0 else None
    under_torchrun = bool(environ.get("TORCHELASTIC_RUN_ID"))
    if starter is None and not under_torchrun:
        return None
    watch = ParentWatch(parent=os.getppid(), starter=starter)
    lock = threading.Lock()

    def leave(reason: str) -> None:
        with lock:
            if watch.gone.is_set():
                return
            watch.gone.set()
        print(f"trace-worker: {reason}: shutting down", file=sys.stderr, flush=True)
        deadline = threading.Thread(target=exit_after, args=(grace_seconds,), name="trace-parent-grace", daemon=True)
        deadline.start()
        try:
            on_gone(reason)
        except BaseException:
            os._exit(EXIT_CODE)

    if starter is not None and starter == watch.parent and environ.get(PDEATHSIG_VARIABLE) == "1" and set_parent_death_signal():
        watch.mechanisms.append("pdeathsig")
    if starter is not None and stdin_is_pipe():
        watch.mechanisms.append("stdin")
        threading.Thread(target=watch_stdin, args=(leave,), name="trace-parent-stdin", daemon=True).start()
    watch.mechanisms.append("parent")
    starter_started = start_time(starter) if starter is not None and starter != watch.parent else None
    if starter is not None and starter != watch.parent:
        watch.mechanisms.append("starter")
    threading.Thread(target=poll, args=(watch, starter_started, leave, poll_seconds), name="trace-parent-poll", daemon=True).start()
    # A starter that died before the worker began to watch (the worker's parent is then already init, not the starter)
    # is seen by the pipe's end of file, and here where there is no pipe.
    if starter is not None and starter != watch.parent and not is_alive(starter, None):
        leave(f"the process that started the worker ({starter}) was gone before the worker began to watch")
    return watch


def watch_stdin(leave: Callable[[str], None]) -> None:
    while True:
        try:
            data = os.read(0, 4096)
        except InterruptedError:
            continue
        except OSError:
            return  # stdin is unusable: the other watchers remain
        if not data:
            leave("the process that started the worker closed its stdin (it exited)")
            return


def poll(watch: ParentWatch, starter_started: str | None, leave: Callable[[str], None], poll_seconds: float) -> None:
    while not watch.gone.is_set():
        time.sleep(poll_seconds)
        parent = os.getppid()
        if parent != watch.parent:
            leave(f"its parent process {watch.parent} is gone (the parent is now {parent})")
            return
        if watch.starter is not None and watch.starter != watch.parent and not is_alive(watch.starter, starter_started):
            leave(f"the process that started the worker ({watch.starter}) is gone")
            return


def exit_after(seconds: float) -> None:
    time.sleep(seconds)
    print(f"trace-worker: still running {seconds:g} s after its starter left: exiting now", file=sys.stderr, flush=True)
    os._exit(EXIT_CODE)
