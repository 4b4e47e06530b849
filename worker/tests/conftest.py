"""Shared fixtures: one tiny checkpoint per test session, on the device the environment names.

TRACE_WORKER_TEST_DEVICE=cuda runs the same suite on a GPU in bf16 (tolerances widen accordingly)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from trace_worker.engine import Engine
from trace_worker.tiny_checkpoint import TinyModelShape, create_tiny_checkpoint
from trace_worker.trainer import Trainer

DEVICE = os.environ.get("TRACE_WORKER_TEST_DEVICE", "cpu")
DTYPE = os.environ.get("TRACE_WORKER_TEST_DTYPE", "auto")


def low_precision() -> bool:
    return DEVICE.startswith("cuda") and DTYPE in ("auto", "bfloat16", "float16")


def tolerance(scale: float = 1.0) -> float:
    """Absolute tolerance for logprob / logit comparisons: 1e-4 in fp32 (the acceptance figure). In bf16 (8 bits of
    mantissa, errors growing through the layers) 3% of the compared values' magnitude `scale`, at least 0.1."""
    return max(1e-1, 3e-2 * scale) if low_precision() else 1e-4


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "tiny-qwen3", TinyModelShape(seed=7))


@pytest.fixture(scope="session")
def tiny_moe_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_tiny_checkpoint(tmp_path_factory.mktemp("tiny-moe") / "tiny-qwen3-moe", TinyModelShape(experts=4, seed=3))


@pytest.fixture()
def engine(tiny_checkpoint: Path) -> Engine:
    torch.manual_seed(0)
    return Engine(tiny_checkpoint, device=DEVICE, dtype=DTYPE)


def random_adapter(engine: Engine, name: str, rank: int = 4) -> Trainer:
    """Creates adapter `name` with random B matrices (a fresh adapter changes nothing), so its outputs differ from the base's."""
    trainer = Trainer(engine)
    trainer.create_adapter({"name": name, "rank": rank})
    with torch.no_grad():
        for parameter_name, parameter in engine.model.named_parameters():
            if "lora_B" in parameter_name:
                parameter.normal_(0, 0.5)
    return trainer
