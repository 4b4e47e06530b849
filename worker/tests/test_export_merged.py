"""export_merged: the written checkpoint is the base with the adapter's delta merged in (its logits equal the adapter's),
with the base's config, tokenizer and chat template; the served base stays as it was; bad destinations and unknown
adapters are refused naming the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from trace_worker.engine import Engine
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, tolerance
from .test_trainer import datums_for, sequences
from .worker_http import RunningWorker


@pytest.fixture()
def worker(engine: Engine) -> Iterator[RunningWorker]:
    running = RunningWorker(engine)
    yield running
    running.close()


def train(trainer: Trainer, engine: Engine, name: str, steps: int = 3) -> None:
    datums = datums_for(engine, weights=lambda n: [1.0] * n)
    for _ in range(steps):
        trainer.forward_backward({"adapter": name, "loss": "cross_entropy", "datums": datums})
        trainer.optim_step({"adapter": name, "learning_rate": 1e-2})


def engine_logits(engine: Engine, adapter: str | None, tokens: list[int]) -> torch.Tensor:
    input_ids = torch.tensor([tokens], device=engine.device)
    with torch.no_grad():
        if adapter is None:
            assert engine.peft is not None
            with engine.peft.disable_adapter():
                return engine.peft(input_ids=input_ids).logits[0].float().cpu()
        engine.activate(adapter)
        return engine.model(input_ids=input_ids).logits[0].float().cpu()


def merged_logits(directory: Path, tokens: list[int]) -> torch.Tensor:
    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32)
    with torch.no_grad():
        return model(input_ids=torch.tensor([tokens])).logits[0].float()


def test_the_merged_checkpoint_computes_the_adapters_logits_and_the_base_is_unchanged(worker: RunningWorker, tiny_checkpoint: Path, tmp_path: Path) -> None:
    engine = worker.application.engine
    trainer = worker.application.trainer
    worker.post("/v1/trainer/create_adapter", {"name": "sft", "rank": 32, "alpha": 64})
    worker.post("/v1/trainer/create_adapter", {"name": "other", "rank": 4})
    tokens = sequences(engine, count=4, seed=5)
    base_before = [engine_logits(engine, None, sequence) for sequence in tokens]
    train(trainer, engine, "sft")
    assert any(float(parameter.detach().abs().max()) > 0 for name, parameter in engine.peft.named_parameters() if ".sft." in name and "lora_B" in name)  # type: ignore[union-attr]

    target = tmp_path / "exports" / "merged"
    answer = worker.post("/v1/trainer/export_merged", {"adapter": "sft", "path": str(target)})
    assert answer == {"path": str(target.resolve()), "merged_modules": 7 * 2}  # seven projections in each of two layers
    assert not [entry.name for entry in target.parent.iterdir() if entry.name != "merged"], "no partial directory is left"

    assert any(entry.suffix == ".safetensors" for entry in target.iterdir())
    assert not any(entry.suffix in (".bin", ".pt") for entry in target.iterdir())
    assert json.loads((target / "config.json").read_text()) == json.loads((tiny_checkpoint / "config.json").read_text())
    tokenizer = AutoTokenizer.from_pretrained(target)
    assert tokenizer.chat_template == engine.tokenizer.chat_template and tokenizer.chat_template
    assert tokenizer.get_vocab() == engine.tokenizer.get_vocab()

    for sequence, before in zip(tokens, base_before):
        adapted = engine_logits(engine, "sft", sequence)
        merged = merged_logits(target, sequence)
        assert (adapted - before).abs().max() > 1e-2, "the adapter moved the logits"
        assert (merged - adapted).abs().max() < tolerance(float(adapted.abs().max()))
        assert torch.equal(engine_logits(engine, None, sequence), before), "the served base is unchanged"

    # Sampling the base through HTTP still works, and the base weights equal the checkpoint's.
    fresh = AutoModelForCausalLM.from_pretrained(tiny_checkpoint, dtype=torch.float32)
    served = engine.base.get_submodule("model.layers.0.self_attn.q_proj").base_layer.weight.float().cpu()
    if DEVICE == "cpu" and DTYPE in ("auto", "float32"):
        assert torch.equal(served, fresh.get_submodule("model.layers.0.self_attn.q_proj").weight)
    completion = worker.post("/v1/chat/completions", {"model": engine.served_name, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3})
    assert completion["choices"][0]["finish_reason"] in ("stop", "length")


def test_export_refuses_a_non_empty_directory_and_unknown_adapters_naming_the_field(worker: RunningWorker, tmp_path: Path) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "small", "rank": 2})
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    status, payload = worker.request("POST", "/v1/trainer/export_merged", {"adapter": "small", "path": str(occupied)})
    assert (status, payload["error"]["param"]) == (409, "path")
    assert (occupied / "keep.txt").read_text() == "mine"
    a_file = tmp_path / "file"
    a_file.write_text("x")
    status, payload = worker.request("POST", "/v1/trainer/export_merged", {"adapter": "small", "path": str(a_file)})
    assert (status, payload["error"]["param"]) == (409, "path")
    status, payload = worker.request("POST", "/v1/trainer/export_merged", {"adapter": "missing", "path": str(tmp_path / "new")})
    assert (status, payload["error"]["param"]) == (404, "adapter") and "missing" in payload["error"]["message"]
    status, payload = worker.request("POST", "/v1/trainer/export_merged", {"adapter": "small"})
    assert (status, payload["error"]["param"]) == (400, "path")
    assert not (tmp_path / "new").exists()

    empty = tmp_path / "empty"
    empty.mkdir()
    answer = worker.post("/v1/trainer/export_merged", {"adapter": "small", "path": str(empty)})
    assert answer["merged_modules"] > 0 and (empty / "config.json").is_file()
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["empty", "file", "occupied"]


def test_a_moe_checkpoint_exports_merged(tiny_moe_checkpoint: Path, tmp_path: Path) -> None:
    engine = Engine(tiny_moe_checkpoint, device=DEVICE, dtype=DTYPE)
    trainer = Trainer(engine)
    created = trainer.create_adapter({"name": "experts", "rank": 8})
    assert "gate_proj" in created["target_modules"]  # attention and every expert's gate/up and down
    train(trainer, engine, "experts", steps=2)
    answer = trainer.export_merged({"adapter": "experts", "path": str(tmp_path / "moe-merged")})
    assert answer["merged_modules"] == 2 * 6  # per layer q, k, v, o and the fused gate_up_proj, down_proj
    for sequence in sequences(engine, count=2, seed=3):
        adapted = engine_logits(engine, "experts", sequence)
        assert (merged_logits(tmp_path / "moe-merged", sequence) - adapted).abs().max() < tolerance(float(adapted.abs().max()))
