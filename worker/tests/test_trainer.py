"""Trainer acceptance: fresh adapters change nothing, each loss's gradients equal an independent computation,
PPO clipping zeroes gradients outside the trust region, state save/load resumes exactly."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch

from trace_worker.engine import Engine
from trace_worker.errors import BadRequest, Conflict, NotFound
from trace_worker.trainer import Trainer

from .conftest import low_precision, tolerance


def sequences(engine: Engine, count: int = 3, seed: int = 1) -> list[list[int]]:
    generator = torch.Generator().manual_seed(seed)
    vocabulary = engine.base.get_output_embeddings().weight.shape[0]
    return [torch.randint(0, vocabulary, (length,), generator=generator).tolist() for length in (7, 12, 4, 9)[:count]]


def datums_for(engine: Engine, **per_token: Any) -> list[dict[str, Any]]:
    result = []
    for tokens in sequences(engine):
        datum: dict[str, Any] = {"tokens": tokens[:-1], "target_tokens": tokens[1:]}
        for key, make in per_token.items():
            datum[key] = make(len(tokens) - 1)
        result.append(datum)
    return result


def randomize_adapter(engine: Engine, name: str, seed: int = 0) -> None:
    generator = torch.Generator().manual_seed(seed)
    assert engine.peft is not None
    with torch.no_grad():
        for parameter_name, parameter in engine.peft.named_parameters():
            if f".{name}." in parameter_name and "lora_" in parameter_name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.2)


def reference_logprobs(engine: Engine, name: str | None, datum: dict[str, Any]) -> torch.Tensor:
    """Independent computation: the PEFT model's full logits → log-softmax → gather."""
    input_ids = torch.tensor([datum["tokens"]], device=engine.device)
    if name is None:
        assert engine.peft is not None
        with engine.peft.disable_adapter():
            logits = engine.peft(input_ids=input_ids).logits
    else:
        engine.activate(name)
        logits = engine.model(input_ids=input_ids).logits
    log_probabilities = torch.log_softmax(logits[0].float(), dim=-1)
    return log_probabilities.gather(-1, torch.tensor(datum["target_tokens"], device=engine.device)[:, None]).squeeze(-1)


def gradients(engine: Engine, name: str) -> list[torch.Tensor]:
    return [parameter.grad.detach().clone() if parameter.grad is not None else torch.zeros_like(parameter) for parameter in engine.adapter(name).parameters]


def clear(engine: Engine, name: str) -> None:
    for parameter in engine.adapter(name).parameters:
        parameter.grad = None


def test_a_fresh_adapter_leaves_logprobs_unchanged(engine: Engine) -> None:
    trainer = Trainer(engine)
    datums = datums_for(engine)
    before = trainer.forward({"datums": datums})["logprobs"]
    trainer.create_adapter({"name": "fresh", "rank": 8})
    assert trainer.forward({"adapter": "fresh", "datums": datums})["logprobs"] == before
    assert trainer.forward({"datums": datums})["logprobs"] == before


def test_forward_matches_the_full_logits_computation(engine: Engine) -> None:
    trainer = Trainer(engine, micro_batch_tokens=16)  # forces several padded micro-batches
    trainer.create_adapter({"name": "alpha"})
    randomize_adapter(engine, "alpha")
    datums = datums_for(engine)
    ours = trainer.forward({"adapter": "alpha", "datums": datums})["logprobs"]
    for datum, values in zip(datums, ours):
        reference = reference_logprobs(engine, "alpha", datum).tolist()
        assert max(abs(x - y) for x, y in zip(values, reference)) < tolerance()
    base = trainer.forward({"datums": datums})["logprobs"]
    assert base[0] != ours[0]
    for datum, values in zip(datums, base):
        assert max(abs(x - y) for x, y in zip(values, reference_logprobs(engine, None, datum).tolist())) < tolerance()


def reference_loss(loss: str, logprobs: torch.Tensor, datum: dict[str, Any], low: float, high: float) -> torch.Tensor:
    weights = torch.tensor(datum.get("weights") or [1.0] * len(datum["tokens"]), device=logprobs.device)
    if loss == "cross_entropy":
        return -(weights * logprobs).sum()
    advantages = torch.tensor(datum["advantages"], device=logprobs.device)
    ratio = torch.exp(logprobs - torch.tensor(datum["sampling_logprobs"], device=logprobs.device))
    if loss == "importance_sampling":
        return -(weights * advantages * ratio).sum()
    terms = [min(r * a, min(max(r, low), high) * a) for r, a in zip(ratio, advantages)]
    return -(weights * torch.stack(terms)).sum()


@pytest.mark.parametrize("loss", ["cross_entropy", "importance_sampling", "ppo"])
def test_each_loss_gradient_matches_an_independent_computation(engine: Engine, loss: str) -> None:
    trainer = Trainer(engine, micro_batch_tokens=20)
    trainer.create_adapter({"name": "g", "rank": 4})
    randomize_adapter(engine, "g", seed=3)
    generator = torch.Generator().manual_seed(5)
    datums = datums_for(
        engine,
        weights=lambda n: [float(x) for x in torch.randint(0, 2, (n,), generator=generator)],
        advantages=lambda n: torch.randn(n, generator=generator).tolist(),
    )
    base = trainer.forward({"adapter": "g", "datums": datums})["logprobs"]
    for datum, values in zip(datums, base):
        noise = (torch.randn(len(values), generator=generator) * 0.3).tolist()  # ratios on both sides of the clip range
        datum["sampling_logprobs"] = [value + delta for value, delta in zip(values, noise)]
    result = trainer.forward_backward({"adapter": "g", "loss": loss, "loss_config": {"clip_low": 0.8, "clip_high": 1.2}, "datums": datums})
    ours = gradients(engine, "g")
    clear(engine, "g")

    parameters = engine.adapter("g").parameters
    total = sum(reference_loss(loss, reference_logprobs(engine, "g", datum), datum, 0.8, 1.2) for datum in datums)
    assert isinstance(total, torch.Tensor)
    expected = torch.autograd.grad(total, parameters, allow_unused=True)
    assert math.isclose(result["loss"], float(total.detach()), rel_tol=1e-3 if not low_precision() else 5e-2, abs_tol=1e-4)
    scale = max(float(gradient.abs().max()) for gradient in expected if gradient is not None)
    assert scale > 0
    for mine, reference in zip(ours, expected):
        reference = reference if reference is not None else torch.zeros_like(mine)
        assert float((mine - reference).abs().max()) <= (1e-4 if not low_precision() else 5e-2) * max(1.0, scale)
    if loss != "cross_entropy":
        assert 0.0 < result["metrics"]["clip_fraction"] < 1.0
        assert result["metrics"]["approx_kl"] > 0


@pytest.mark.parametrize("loss", ["cross_entropy", "ppo"])
def test_without_returned_logprobs_the_loss_gradients_and_metrics_are_the_same(engine: Engine, loss: str) -> None:
    """`return_logprobs: false` sends only the weighted tokens through the output layer: same answer, logprobs left out."""
    trainer = Trainer(engine, micro_batch_tokens=20)  # several micro-batches
    trainer.create_adapter({"name": "s", "rank": 4})
    randomize_adapter(engine, "s", seed=4)
    generator = torch.Generator().manual_seed(6)
    datums = datums_for(
        engine,
        weights=lambda n: [float(x) * 0.5 for x in torch.randint(0, 2, (n,), generator=generator)],
        advantages=lambda n: torch.randn(n, generator=generator).tolist(),
        sampling_logprobs=lambda n: (torch.randn(n, generator=generator) * 0.3 - 7).tolist(),
    )
    datums[1]["weights"] = [0.0] * len(datums[1]["tokens"])  # a datum with no weighted token at all
    body = {"adapter": "s", "loss": loss, "datums": datums}
    full = trainer.forward_backward(body)
    expected = gradients(engine, "s")
    clear(engine, "s")
    lean = trainer.forward_backward({**body, "return_logprobs": False})
    assert "logprobs" not in lean and len(full["logprobs"]) == len(datums)
    assert lean["tokens"] == full["tokens"]
    assert math.isclose(lean["loss"], full["loss"], rel_tol=1e-5, abs_tol=1e-6)
    for key, value in full["metrics"].items():
        assert value is None and lean["metrics"][key] is None or math.isclose(lean["metrics"][key], value, rel_tol=1e-5, abs_tol=1e-6), key
    for mine, reference in zip(gradients(engine, "s"), expected):
        assert float((mine - reference).abs().max()) <= 1e-5 * max(1.0, float(reference.abs().max()))
    clear(engine, "s")
    with pytest.raises(BadRequest) as caught:
        trainer.forward_backward({**body, "return_logprobs": "no"})
    assert caught.value.param == "return_logprobs"


def test_ppo_clipping_zeroes_the_gradient_outside_the_trust_region(engine: Engine) -> None:
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "c", "rank": 4})
    randomize_adapter(engine, "c", seed=4)
    datum = datums_for(engine)[0]
    current = trainer.forward({"adapter": "c", "datums": [datum]})["logprobs"][0]
    count = len(current)

    def run(shift: float, advantage: float) -> float:
        body = dict(datum, sampling_logprobs=[value - shift for value in current], advantages=[advantage] * count)
        trainer.forward_backward({"adapter": "c", "loss": "ppo", "loss_config": {"clip_low": 0.8, "clip_high": 1.2}, "datums": [body]})
        norm = sum(float(gradient.abs().sum()) for gradient in gradients(engine, "c"))
        clear(engine, "c")
        return norm

    # ratio = exp(shift): above 1.2 with a positive advantage, or below 0.8 with a negative one, is clipped.
    assert run(math.log(1.5), 1.0) == 0.0
    assert run(math.log(0.5), -1.0) == 0.0
    # Inside the range, or clipped on the side that does not bind, the gradient flows.
    assert run(0.0, 1.0) > 0.0
    assert run(math.log(1.5), -1.0) > 0.0
    assert run(math.log(0.5), 1.0) > 0.0


def test_optim_step_changes_only_the_trained_adapter(engine: Engine) -> None:
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "one"})
    trainer.create_adapter({"name": "two"})
    datums = datums_for(engine, weights=lambda n: [1.0] * n)
    before_two = trainer.forward({"adapter": "two", "datums": datums})["logprobs"]
    before_base = trainer.forward({"datums": datums})["logprobs"]
    trainer.forward_backward({"adapter": "one", "loss": "cross_entropy", "datums": datums})
    step = trainer.optim_step({"adapter": "one", "learning_rate": 1e-2})
    assert step["step"] == 1 and step["grad_norm"] > 0
    after_one = trainer.forward({"adapter": "one", "datums": datums})["logprobs"]
    assert sum(map(sum, after_one)) > sum(map(sum, before_base))  # cross-entropy descent raised the targets' logprobs
    assert trainer.forward({"adapter": "two", "datums": datums})["logprobs"] == before_two
    assert trainer.forward({"datums": datums})["logprobs"] == before_base
    with pytest.raises(BadRequest, match="no gradients"):
        trainer.optim_step({"adapter": "one"})


def test_gradient_clipping_bounds_the_update(engine: Engine) -> None:
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "clip"})
    datums = datums_for(engine)
    trainer.forward_backward({"adapter": "clip", "loss": "cross_entropy", "datums": datums})
    record = engine.adapter("clip")
    torch.nn.utils.clip_grad_norm_(record.parameters, 1e-3)
    clipped_norm = math.sqrt(sum(float((parameter.grad**2).sum()) for parameter in record.parameters))
    assert clipped_norm == pytest.approx(1e-3, rel=1e-3)


def test_save_state_then_load_state_resumes_exactly(engine: Engine, tmp_path: Path) -> None:
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "run", "rank": 4})
    datums = datums_for(engine, weights=lambda n: [1.0] * n)

    def step() -> None:
        trainer.forward_backward({"adapter": "run", "loss": "cross_entropy", "datums": datums})
        trainer.optim_step({"adapter": "run", "learning_rate": 5e-3})

    step()
    trainer.save_state({"adapter": "run", "path": str(tmp_path / "state")})
    step()
    uninterrupted = trainer.forward({"adapter": "run", "datums": datums})["logprobs"]
    restored = trainer.load_state({"adapter": "resumed", "path": str(tmp_path / "state")})
    assert restored["step"] == 1
    trainer.forward_backward({"adapter": "resumed", "loss": "cross_entropy", "datums": datums})
    trainer.optim_step({"adapter": "resumed", "learning_rate": 5e-3})
    resumed = trainer.forward({"adapter": "resumed", "datums": datums})["logprobs"]
    for mine, reference in zip(resumed, uninterrupted):
        assert max(abs(x - y) for x, y in zip(mine, reference)) < tolerance()
    assert engine.adapter("resumed").step == 2


def test_save_adapter_writes_peft_layout_that_loads_back_identically(engine: Engine, tmp_path: Path) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    trainer = Trainer(engine)
    trainer.create_adapter({"name": "saved", "rank": 4, "alpha": 8})
    randomize_adapter(engine, "saved", seed=9)
    datums = datums_for(engine)
    expected = trainer.forward({"adapter": "saved", "datums": datums})["logprobs"]
    trainer.save_adapter({"adapter": "saved", "path": str(tmp_path / "adapter")})
    assert sorted(path.name for path in (tmp_path / "adapter").iterdir()) == ["adapter_config.json", "adapter_model.safetensors"]

    engine.load_adapter("reloaded", tmp_path / "adapter")
    assert trainer.forward({"adapter": "reloaded", "datums": datums})["logprobs"] == expected

    # PEFT itself, on a separately loaded base, reads the same adapter (the layout vLLM reads too).
    base = AutoModelForCausalLM.from_pretrained(engine.model_path, dtype=engine.dtype).to(engine.device)
    peft_model = PeftModel.from_pretrained(base, tmp_path / "adapter")
    for datum, values in zip(datums, expected):
        logits = peft_model(input_ids=torch.tensor([datum["tokens"]], device=engine.device)).logits[0].float()
        reference = torch.log_softmax(logits, -1).gather(-1, torch.tensor(datum["target_tokens"], device=engine.device)[:, None]).squeeze(-1)
        assert max(abs(x - y) for x, y in zip(values, reference.tolist())) < tolerance(float(reference.abs().max()))


def test_bad_trainer_calls_name_the_problem(engine: Engine) -> None:
    trainer = Trainer(engine)
    with pytest.raises(NotFound):
        trainer.forward_backward({"adapter": "missing", "datums": datums_for(engine)})
    trainer.create_adapter({"name": "x"})
    with pytest.raises(Conflict):
        trainer.create_adapter({"name": "x"})
    with pytest.raises(BadRequest) as caught:
        trainer.create_adapter({"name": "y", "target_modules": ["q_proj", "nonexistent"]})
    assert "nonexistent" in caught.value.message
    with pytest.raises(BadRequest) as caught:
        trainer.forward_backward({"adapter": "x", "loss": "ppo", "datums": datums_for(engine)})
    assert caught.value.param == "datums[0].sampling_logprobs"
    with pytest.raises(BadRequest) as caught:
        trainer.forward_backward({"adapter": "x", "loss": "dpo", "datums": datums_for(engine)})
    assert caught.value.param == "loss"
    with pytest.raises(BadRequest) as caught:
        trainer.forward_backward({"adapter": "x", "datums": [{"tokens": [1, 2], "target_tokens": [2]}]})
    assert caught.value.param == "datums[0].target_tokens"
    with pytest.raises(BadRequest) as caught:
        trainer.forward_backward({"adapter": "x", "datums": [{"tokens": [1, 2], "target_tokens": [2, 3], "weights": [1, float("nan")]}]})
    assert caught.value.param == "datums[0].weights[1]"
    for field, value, where in (
        ("tokens", [1, True], "datums[0].tokens[1]"),
        ("tokens", [1, 2.0], "datums[0].tokens[1]"),
        ("tokens", [-1, 2], "datums[0].tokens[0]"),
        ("target_tokens", [2, 1 << 30], "datums[0].target_tokens[1]"),
        ("weights", [1, True], "datums[0].weights[1]"),
        ("weights", ["1", 0.5], "datums[0].weights[0]"),
    ):
        datum: dict[str, Any] = {"tokens": [1, 2], "target_tokens": [2, 3], field: value}
        with pytest.raises(BadRequest) as caught:
            trainer.forward_backward({"adapter": "x", "datums": [datum]})
        assert caught.value.param == where, (field, value)
    with pytest.raises(NotFound):
        trainer.load_state({"adapter": "x", "path": "/nonexistent/state"})


def test_moe_checkpoint_trains_attention_and_expert_adapters(tiny_moe_checkpoint: Path) -> None:
    from .conftest import DEVICE, DTYPE

    engine = Engine(tiny_moe_checkpoint, device=DEVICE, dtype=DTYPE)
    trainer = Trainer(engine)
    created = trainer.create_adapter({"name": "moe"})
    assert created["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]  # experts: fused 3-D weights
    datums = datums_for(engine, weights=lambda n: [1.0] * n)
    before = trainer.forward({"adapter": "moe", "datums": datums})["logprobs"]
    trainer.forward_backward({"adapter": "moe", "loss": "cross_entropy", "datums": datums})
    trainer.optim_step({"adapter": "moe", "learning_rate": 1e-2})
    after = trainer.forward({"adapter": "moe", "datums": datums})["logprobs"]
    assert sum(map(sum, after)) > sum(map(sum, before))
