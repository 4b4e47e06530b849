"""`python -m trace_worker serve|init-tiny …` (also under `torchrun --nproc-per-node N -m trace_worker serve …`)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from .errors import BadRequest, WorkerError
from .tiny_checkpoint import TinyModelShape


def _serve(arguments: argparse.Namespace) -> int:
    from .parent_watch import watch_parent

    if not arguments.request_timeout > 0:
        raise BadRequest(f"--request-timeout must be a positive number of seconds, got {arguments.request_timeout}", "request_timeout", arguments.request_timeout)
    if arguments.max_connections < 2:
        raise BadRequest(f"--max-connections must be at least 2, got {arguments.max_connections}", "max_connections", arguments.max_connections)

    # Watch before the slow imports and the model load: a starter that dies meanwhile takes the worker with it.
    serving: dict[str, Any] = {}

    def parent_gone(_reason: str) -> None:
        server = serving.get("server")
        if server is None:  # still loading, or a rank other than 0 (blocked in a collective): nothing to close cleanly
            os._exit(1)
        threading.Thread(target=server.shutdown, daemon=True).start()

    watch_parent(parent_gone)
    if arguments.deterministic:
        # cuBLAS reads this when it creates its first handle: a fixed workspace gives its matmuls one reduction order.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch
    import torch.distributed as distributed

    from .collective import Collective, TorchCollective
    from .engine import Engine
    from .server import WorkerApplication, WorkerServer, follow_rank_zero

    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    collective: Collective = Collective()
    device = arguments.device
    if world_size > 1:
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        use_cuda = torch.cuda.is_available() and device in ("auto", "cuda")
        if use_cuda:
            torch.cuda.set_device(local_rank)
            device = f"cuda:{local_rank}"
        distributed.init_process_group(backend="nccl" if use_cuda else "gloo")
        collective = TorchCollective()
    engine = Engine(arguments.model, arguments.served_model_name, device, arguments.dtype, arguments.attention, fused_kernels=not arguments.no_fused_kernels)
    application = WorkerApplication(engine, collective, arguments.api_key or os.environ.get("TRACE_WORKER_API_KEY"), arguments.max_request_bytes, arguments.file_root)
    application.trainer.micro_batch_tokens = arguments.micro_batch_tokens
    if arguments.deterministic:
        # Every trainer call runs with PyTorch's deterministic algorithms (an operation without one raises rather than
        # varying; on CUDA attention takes its deterministic backward); sampling keeps its own kernels.
        application.trainer.deterministic = True
        torch.backends.cudnn.benchmark = False
        logging.info("trainer calls use deterministic algorithms (CUBLAS_WORKSPACE_CONFIG=%s)", os.environ["CUBLAS_WORKSPACE_CONFIG"])
    application.executor.max_batch_size = arguments.max_batch_size
    application.executor.continuous = not arguments.static_batching
    application.sampler.graphs.enabled = application.sampler.graphs.enabled and not arguments.no_cuda_graphs

    if collective.rank != 0:
        logging.info("rank %d follows rank 0's trainer calls", collective.rank)
        follow_rank_zero(application.trainer)
        application.executor.stop()
        distributed.destroy_process_group()
        return 0

    server = WorkerServer(application, arguments.host, arguments.port, arguments.request_timeout, arguments.max_connections)
    serving["server"] = server

    def stop(_signal: int, _frame: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    # The handlers come first: a starter may signal as soon as it reads the announcement.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.server_address[:2]
    print(f"trace-worker: serving {engine.served_name} on http://{host}:{port} ({engine.device}, {engine.dtype}, world size {collective.world_size})", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        if collective.world_size > 1:
            application.executor.call(lambda: collective.broadcast_object(("shutdown", None)))
        application.executor.stop()
        if collective.world_size > 1:
            distributed.destroy_process_group()
    return 0


def _init_tiny(arguments: argparse.Namespace) -> int:
    from .tiny_checkpoint import chat_corpus_documents, corpus_documents, create_tiny_checkpoint

    shape = TinyModelShape(**{field.name: getattr(arguments, field.name) for field in dataclasses.fields(TinyModelShape)})
    texts: list[str] | None = None
    if arguments.corpus or arguments.chat_corpus:
        texts = corpus_documents([Path(file) for file in arguments.corpus]) if arguments.corpus else []
        texts += chat_corpus_documents([Path(file) for file in arguments.chat_corpus]) if arguments.chat_corpus else []
    directory = create_tiny_checkpoint(Path(arguments.directory), shape, texts, arguments.merge_across_words, arguments.split_digits)
    files = len(arguments.corpus or []) + len(arguments.chat_corpus or [])
    source = f"{files} corpus file(s)" if files else "the project's text"
    print(f"trace-worker: wrote a tiny {'Qwen3-MoE' if shape.experts else 'Qwen3'} checkpoint to {directory} (tokenizer trained on {source})", flush=True)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m trace_worker", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the sampler and trainer over HTTP")
    serve.add_argument("--model", required=True, help="Hugging Face checkpoint directory")
    serve.add_argument("--served-model-name", default=None)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    serve.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N")
    serve.add_argument("--dtype", default="auto", help="auto (bf16 on GPU, fp32 on CPU), float32, bfloat16, float16")
    serve.add_argument("--attention", default="sdpa", help="transformers attn_implementation")
    serve.add_argument("--api-key", default=None, help="require Authorization: Bearer KEY (or set TRACE_WORKER_API_KEY)")
    serve.add_argument("--max-request-bytes", type=int, default=64 << 20, help="bodies declaring more get 413, unread")
    serve.add_argument(
        "--request-timeout",
        type=float,
        default=60.0,
        help="seconds a client may take to send a request head, or leave its body without a byte, before the connection is closed (also the idle keep-alive limit)",
    )
    serve.add_argument(
        "--max-connections", type=int, default=1024, help="with this many connections open or requests in flight, further requests get 503"
    )
    serve.add_argument("--file-root", default=None, help="refuse (403) file paths in requests outside this directory (adapters, states, merged checkpoints)")
    serve.add_argument("--max-batch-size", type=int, default=64, help="most chat requests decoded together")
    serve.add_argument("--no-cuda-graphs", action="store_true", help="decode eagerly (no captured CUDA graphs)")
    serve.add_argument("--no-fused-kernels", action="store_true", help="keep transformers' own RMSNorm, rotary and SwiGLU forwards on CUDA (default: Liger's fused kernels where installed)")
    serve.add_argument("--static-batching", action="store_true", help="decode static waves (a request waits for the running batch to end) instead of continuous batching")
    serve.add_argument(
        "--deterministic",
        action="store_true",
        help="run every trainer call with PyTorch's deterministic algorithms and a fixed cuBLAS workspace, so that the same trainer calls give the same weights run after run (sampling keeps its kernels, and under continuous batching still depends on which requests decode together)",
    )
    serve.add_argument("--micro-batch-tokens", type=int, default=16384, help="padded tokens per forward/backward micro-batch")
    serve.set_defaults(run=_serve)
    tiny = commands.add_parser("init-tiny", help="write a tiny Qwen3-style checkpoint with random weights")
    tiny.add_argument("directory")
    for field in dataclasses.fields(TinyModelShape):
        flag = "--" + field.name.replace("_", "-")
        if field.type is bool or field.type == "bool":
            tiny.add_argument(flag, action="store_true", help="tie the output layer to the input embedding")
            continue
        help_text = "> 0 makes a Qwen3-MoE model" if field.name == "experts" else None
        tiny.add_argument(flag, type=int, default=field.default, help=help_text)
    tiny.add_argument(
        "--corpus",
        action="append",
        metavar="FILE",
        help="train the tokenizer on this UTF-8 text file instead of the project's text (documents separated by blank lines); repeatable",
    )
    tiny.add_argument(
        "--chat-corpus",
        action="append",
        metavar="FILE",
        help="train the tokenizer on conversations rendered with the chat template: JSON lines with `messages` and optional `tools`; repeatable",
    )
    tiny.add_argument("--merge-across-words", action="store_true", help="let tokenizer merges span spaces and punctuation (repeated text becomes long tokens)")
    tiny.add_argument("--split-digits", action="store_true", help="make every digit a token of its own, as Qwen's tokenizer does")
    tiny.set_defaults(run=_init_tiny)
    return root


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("TRACE_WORKER_LOG", "WARNING"), format="trace-worker %(levelname)s %(message)s")
    arguments = parser().parse_args(argv)
    try:
        result: int = arguments.run(arguments)
        return result
    except WorkerError as error:
        print(f"trace-worker: {error.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
