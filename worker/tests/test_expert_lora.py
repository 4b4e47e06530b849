"""LoRA on fused MoE experts: the activation-side forward and its gradients equal a straightforward per-expert loop
with explicit A/B matrices, PEFT's own (delta-weight) forward agrees, and a saved adapter loads in PEFT with the same
logprobs as the worker's."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from peft import PeftModel
from peft.tuners.lora.layer import ParamWrapper
from transformers import AutoModelForCausalLM

from trace_worker import expert_lora
from trace_worker.engine import Engine
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, low_precision, tolerance
from .test_trainer import randomize_adapter  # non-zero B: a fresh adapter's B is zero, which would hide every error

EXPERT_TARGETS = ["q_proj", "gate_proj", "up_proj", "down_proj"]


@pytest.fixture()
def moe_engine(tiny_moe_checkpoint: Path) -> Engine:
    return Engine(tiny_moe_checkpoint, device=DEVICE, dtype=DTYPE)


def first_experts(engine: Engine) -> tuple[ParamWrapper, torch.nn.Module]:
    outer = next(module for module in engine.base.modules() if isinstance(module, ParamWrapper) and getattr(module, expert_lora.MARK, False))
    chain, experts = expert_lora.wrapper_chain(outer)
    assert sorted(wrapper.parameter_name for wrapper in chain) == ["down_proj", "gate_up_proj"]
    return outer, experts


def explicit_factors(wrapper: ParamWrapper, name: str, expert: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Expert `expert`'s A [rank, in] and B [out, rank], read from PEFT's parameters the obvious way: A is the expert's
    block of rows, B every `experts`-th column starting at the expert."""
    experts = wrapper.num_experts
    rank = wrapper.r[name]
    return wrapper.lora_A[name].weight[expert * rank : (expert + 1) * rank], wrapper.lora_B[name].weight[:, expert::experts]


def reference_experts(outer: ParamWrapper, experts: torch.nn.Module, name: str, hidden: torch.Tensor, index: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Token by token, expert by expert: (W_e + scaling·B_e·A_e) on gate_up, SiLU(gate)·up, the same on down."""
    chain, _ = expert_lora.wrapper_chain(outer)
    wrappers = {wrapper.parameter_name: wrapper for wrapper in chain}
    output = torch.zeros_like(hidden)
    for token in range(hidden.shape[0]):
        for slot in range(index.shape[1]):
            expert = int(index[token, slot])
            a, b = explicit_factors(wrappers["gate_up_proj"], name, expert)
            gate_up = experts.gate_up_proj[expert] + wrappers["gate_up_proj"].scaling[name] * (b @ a)
            gate, up = (gate_up @ hidden[token]).chunk(2)
            inner = torch.nn.functional.silu(gate) * up
            a, b = explicit_factors(wrappers["down_proj"], name, expert)
            down = experts.down_proj[expert] + wrappers["down_proj"].scaling[name] * (b @ a)
            output[token] = output[token] + weights[token, slot] * (down @ inner)
    return output


def gradients(loss: torch.Tensor, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return list(torch.autograd.grad(loss, tensors))


@pytest.mark.skipif(low_precision(), reason="compares fp32 sums in different orders")
def test_expert_forward_and_gradients_equal_a_per_expert_loop(moe_engine: Engine) -> None:
    moe_engine.create_adapter("experts", 4, 8.0, EXPERT_TARGETS)
    randomize_adapter(moe_engine, "experts", seed=1)
    outer, experts = first_experts(moe_engine)
    chain, _ = expert_lora.wrapper_chain(outer)
    lora = [parameter for wrapper in chain for parameter in (wrapper.lora_A["experts"].weight, wrapper.lora_B["experts"].weight)]
    generator = torch.Generator().manual_seed(2)
    hidden = torch.randn(9, experts.down_proj.shape[1], generator=generator).requires_grad_(True)
    weights = torch.rand(9, 2, generator=generator)
    index = torch.stack([torch.randperm(experts.num_experts, generator=generator)[:2] for _ in range(9)])
    index[:, 0] = torch.where(index[:, 0] == 3, 0, index[:, 0])  # some expert gets fewer tokens, as routing does
    target = torch.randn(9, hidden.shape[1], generator=generator)

    expected = reference_experts(outer, experts, "experts", hidden, index, weights)
    expected_gradients = gradients((expected * target).sum(), [hidden, *lora])
    factors = {wrapper.parameter_name: [expert_lora.peft_factors(wrapper, "experts")] for wrapper in chain}

    def peft_forward() -> torch.Tensor:
        with expert_lora.stock(moe_engine.base):
            return outer(hidden, index, weights)

    runs = {
        "worker (grouped kernel)": lambda: outer(hidden, index, weights),
        "per-expert matmuls": lambda: expert_lora.experts_forward(experts, hidden, index, weights, factors, use_kernel=False),
        "PEFT's delta-weight forward": peft_forward,
    }
    for label, run in runs.items():
        actual = run()
        assert (actual - expected).abs().max() < 1e-5 * float(expected.detach().abs().max()), label
        for got, want in zip(gradients((actual * target).sum(), [hidden, *lora]), expected_gradients):
            assert (got - want).abs().max() < 1e-4 * max(1.0, float(want.abs().max())), label


def test_expert_adapters_train_sample_and_load_in_peft(moe_engine: Engine, tmp_path: Path) -> None:
    trainer = Trainer(moe_engine)
    created = trainer.create_adapter({"name": "paper", "rank": 4, "alpha": 8})
    assert created["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    tokens = torch.randint(0, moe_engine.base.get_output_embeddings().weight.shape[0], (2, 12), generator=torch.Generator().manual_seed(4)).tolist()
    datums = [{"tokens": row[:-1], "target_tokens": row[1:]} for row in tokens]
    trainer.forward_backward({"adapter": "paper", "loss": "cross_entropy", "datums": datums})
    assert moe_engine.peft is not None
    expert_up = [parameter for name, parameter in moe_engine.peft.named_parameters() if ".experts." in name and ".lora_B.paper." in name]
    assert len(expert_up) == 4 and all(parameter.grad is not None and parameter.grad.abs().max() > 0 for parameter in expert_up)
    trainer.optim_step({"adapter": "paper", "learning_rate": 5e-2})
    randomize_adapter(moe_engine, "paper", seed=5)  # beyond one small step, so that a layout error could not hide
    adapted = trainer.forward({"adapter": "paper", "datums": datums})["logprobs"]
    base = trainer.forward({"datums": datums})["logprobs"]
    assert max(abs(x - y) for row, other in zip(adapted, base) for x, y in zip(row, other)) > 0.01

    moe_engine.save_adapter("paper", tmp_path / "paper")
    model = AutoModelForCausalLM.from_pretrained(moe_engine.model_path, dtype=moe_engine.dtype).to(moe_engine.device)
    loaded = PeftModel.from_pretrained(model, tmp_path / "paper").eval()
    assert loaded.peft_config["default"].target_parameters == {"gate_up_proj", "down_proj"}
    for datum, row in zip(datums, adapted):
        with torch.no_grad():
            logits = loaded(torch.tensor([datum["tokens"]], device=moe_engine.device)).logits[0].float()
        peft_logprobs = torch.log_softmax(logits, -1).gather(-1, torch.tensor(datum["target_tokens"], device=logits.device)[:, None]).squeeze(-1).cpu()
        assert (peft_logprobs - torch.tensor(row)).abs().max() < tolerance(float(peft_logprobs.abs().max()))

    reloaded = Engine(moe_engine.model_path, device=DEVICE, dtype=DTYPE)
    reloaded.load_adapter("again", tmp_path / "paper")
    assert reloaded.adapter("again").target_modules == ["k_proj", "o_proj", "q_proj", "v_proj", "down_proj", "gate_proj", "up_proj"]
    again = Trainer(reloaded).forward({"adapter": "again", "datums": datums})["logprobs"]
    assert max(abs(x - y) for row, other in zip(again, adapted) for x, y in zip(row, other)) < tolerance()


def test_merged_expert_adapter_carries_each_experts_merged_delta(moe_engine: Engine) -> None:
    trainer = Trainer(moe_engine)
    for seed, name in enumerate(("first", "second")):
        trainer.create_adapter({"name": name, "rank": 2, "alpha": 4, "target_modules": EXPERT_TARGETS})
        randomize_adapter(moe_engine, name, seed=seed + 10)
    answer = trainer.merge_adapters({"name": "merged", "sources": ["first", "second"], "weights": [0.25, 0.75]})
    assert answer["rank"] == 4 and answer["max_relative_error"] < 1e-5 and answer["modules"] == 2 * 3
    assert answer["target_modules"] == ["down_proj", "gate_proj", "q_proj", "up_proj"]
    outer, _ = first_experts(moe_engine)
    for wrapper in expert_lora.wrapper_chain(outer)[0]:
        for expert in range(wrapper.num_experts):

            def delta(adapter: str) -> torch.Tensor:
                a, b = explicit_factors(wrapper, adapter, expert)
                return (wrapper.scaling[adapter] * (b.double() @ a.double())).detach()  # fp64: no TF32 on a GPU

            expected = 0.25 * delta("first") + 0.75 * delta("second")
            assert (delta("merged") - expected).abs().max() < 1e-5 * max(1.0, float(expected.abs().max()))


def test_expert_adapters_through_http(moe_engine: Engine, tmp_path: Path) -> None:
    from .test_server import chat, sampled_logprobs, trainer_logprobs
    from .worker_http import RunningWorker

    worker = RunningWorker(moe_engine)
    try:
        status, payload = worker.request("POST", "/v1/trainer/create_adapter", {"name": "half", "target_modules": ["gate_proj", "down_proj"]})
        assert (status, payload["error"]["param"]) == (400, "target_modules") and "gate_up_proj" in payload["error"]["message"]
        status, payload = worker.request("POST", "/v1/trainer/create_adapter", {"name": "dropped", "dropout": 0.1})
        assert (status, payload["error"]["param"]) == (400, "dropout")
        worker.post("/v1/trainer/create_adapter", {"name": "policy", "rank": 4, "target_modules": EXPERT_TARGETS})
        randomize_adapter(moe_engine, "policy", seed=6)
        completions = {}
        for model in (moe_engine.served_name, "policy"):
            completion = chat(worker, model=model, seed=1, max_tokens=8)
            expected = trainer_logprobs(worker, None if model != "policy" else "policy", completion)
            assert max(abs(x - y) for x, y in zip(sampled_logprobs(completion), expected)) < tolerance()
            completions[model] = completion
        base_view = trainer_logprobs(worker, None, completions["policy"])
        assert max(abs(x - y) for x, y in zip(sampled_logprobs(completions["policy"]), base_view)) > 0.01  # the experts' adapters act

        worker.post("/v1/trainer/save_state", {"adapter": "policy", "path": str(tmp_path / "state")})
        worker.post("/v1/trainer/delete_adapter", {"name": "policy"})
        worker.post("/v1/trainer/load_state", {"adapter": "policy", "path": str(tmp_path / "state")})
        again = trainer_logprobs(worker, "policy", completions["policy"])
        assert max(abs(x - y) for x, y in zip(sampled_logprobs(completions["policy"]), again)) < tolerance()
    finally:
        worker.close()


def test_per_expert_layout_splits_each_experts_adapter_exactly(moe_engine: Engine, tmp_path: Path) -> None:
    import json
    import re

    from safetensors.torch import load_file

    from trace_worker.errors import BadRequest

    trainer = Trainer(moe_engine)
    trainer.create_adapter({"name": "served", "rank": 2, "alpha": 4})
    randomize_adapter(moe_engine, "served", seed=8)
    trainer.save_adapter({"adapter": "served", "path": str(tmp_path / "split"), "layout": "per_expert"})
    config = json.loads((tmp_path / "split" / "adapter_config.json").read_text())
    assert config["target_parameters"] is None and {"gate_proj", "up_proj", "down_proj", "q_proj"} <= set(config["target_modules"])
    state = load_file(str(tmp_path / "split" / "adapter_model.safetensors"))
    expert_keys = [key for key in state if ".experts." in key]
    assert all(re.fullmatch(r".*\.mlp\.experts\.\d+\.(gate_proj|up_proj|down_proj)\.lora_[AB]\.weight", key) for key in expert_keys)
    outer, experts = first_experts(moe_engine)
    wrappers = {wrapper.parameter_name: wrapper for wrapper in expert_lora.wrapper_chain(outer)[0]}
    prefix = "base_model.model.model.layers.0.mlp.experts"
    scaling = wrappers["down_proj"].scaling["served"]
    for expert in range(experts.num_experts):

        def split_delta(projection: str) -> torch.Tensor:
            return scaling * state[f"{prefix}.{expert}.{projection}.lora_B.weight"] @ state[f"{prefix}.{expert}.{projection}.lora_A.weight"]

        fused = {name: expert_lora.delta_weight(wrapper, "served")[expert].cpu() for name, wrapper in wrappers.items()}
        assert torch.allclose(torch.cat([split_delta("gate_proj"), split_delta("up_proj")]), fused["gate_up_proj"], atol=1e-6)
        assert torch.allclose(split_delta("down_proj"), fused["down_proj"], atol=1e-6)
    assert len(expert_keys) == 2 * experts.num_experts * 3 * 2  # layers × experts × projections × (A, B)
    with pytest.raises(BadRequest) as refused:  # PEFT would load only the attention part of it, silently
        moe_engine.load_adapter("split", tmp_path / "split")
    assert refused.value.param == "lora_path" and "split" not in moe_engine.adapters
    with pytest.raises(BadRequest):
        trainer.save_adapter({"adapter": "served", "path": str(tmp_path / "bad"), "layout": "vllm"})
