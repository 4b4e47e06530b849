"""Fused kernels on the layers around the matrix products (`fused_kernels.py`): on a CPU, plain-torch stand-ins check
the wiring (every RMSNorm, MLP and the rotary embedding go through the kernels, outputs and gradients unchanged, names
unchanged, `stock` restores transformers' forwards); on CUDA with Liger installed, Liger's own kernels give
transformers' logprobs and gradients within bf16 tolerance."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from transformers.models.qwen3 import modeling_qwen3

from trace_worker import fused_kernels
from trace_worker.engine import Engine
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, low_precision, tolerance


def counting_kernels(calls: dict[str, int]) -> fused_kernels.Kernels:
    """Stand-ins with the kernels' signatures, computing what transformers computes (so outputs must not change)."""

    def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        calls["rms_norm"] += 1
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return weight * (x.float() * torch.rsqrt(variance + eps)).to(x.dtype)

    def rope(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, position_ids: object = None, unsqueeze_dim: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
        calls["rope"] += 1
        return modeling_qwen3._trace_stock_rotary(q, k, cos, sin, unsqueeze_dim)  # type: ignore[attr-defined]

    def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        calls["swiglu"] += 1
        return torch.nn.functional.silu(gate) * up

    return fused_kernels.Kernels(rms_norm=rms_norm, rope=rope, swiglu=swiglu, name="stand-ins")


def forward_backward(trainer: Trainer) -> tuple[list[float], dict[str, torch.Tensor]]:
    tokens = list(range(30, 62))
    body = {"adapter": "f", "loss": "cross_entropy", "datums": [{"tokens": tokens[:-1], "target_tokens": tokens[1:]}]}
    logprobs = trainer.forward_backward(body)["logprobs"][0]
    grads = {name: parameter.grad.detach().clone() for name, parameter in trainer.engine.model.named_parameters() if parameter.grad is not None}
    for parameter in trainer.engine.model.parameters():
        parameter.grad = None
    return logprobs, grads


def test_fused_kernels_replace_norms_mlps_and_rotary_without_changing_anything(tiny_checkpoint: Path) -> None:
    torch.manual_seed(0)
    engine = Engine(tiny_checkpoint, device=DEVICE, dtype=DTYPE, fused_kernels=False)
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "f", "rank": 4})
    names = sorted(engine.base.state_dict())
    with fused_kernels.stock(engine.base):  # transformers' own rotary, also where another engine installed Liger's
        expected, expected_grads = forward_backward(trainer)
    stock_rotary = modeling_qwen3.apply_rotary_pos_emb
    calls = {"rms_norm": 0, "rope": 0, "swiglu": 0}
    layers = engine.base.config.num_hidden_layers
    try:
        changed = fused_kernels.install(engine.base, counting_kernels(calls))
        assert changed == layers * 5 + 1  # per layer: two norms, q and k norms, the MLP; and the final norm
        actual, grads = forward_backward(trainer)
        assert calls == {"rms_norm": layers * 4 + 1, "rope": layers, "swiglu": layers}
        assert max(abs(a - b) for a, b in zip(actual, expected)) < tolerance()
        assert grads.keys() == expected_grads.keys()
        for name, grad in grads.items():
            assert_close_gradients(grad, expected_grads[name], name)
        assert sorted(engine.base.state_dict()) == names  # checkpoints and adapters keep their names
        with fused_kernels.stock(engine.base):
            before = dict(calls)
            forward_backward(trainer)
            assert calls == before and modeling_qwen3.apply_rotary_pos_emb is modeling_qwen3._trace_stock_rotary  # type: ignore[attr-defined]
        forward_backward(trainer)
        assert calls["rope"] == 2 * layers  # back on after `stock`
    finally:
        modeling_qwen3.apply_rotary_pos_emb = stock_rotary  # as it was before this test (another engine's fused one on CUDA)


def test_torch_rms_norm_matches_qwen3s_norm_forward_and_backward() -> None:
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    torch.manual_seed(0)
    for dtype, limit in ((torch.float32, 1e-5), (torch.bfloat16, 2e-2)):
        norm = Qwen3RMSNorm(64, eps=1e-6).to(DEVICE, dtype)
        with torch.no_grad():
            norm.weight.copy_(torch.rand(64) + 0.5)
        x = (torch.randn(3, 5, 64) * 4).to(DEVICE, dtype).requires_grad_(True)
        expected = norm(x)
        (expected.float() ** 2).sum().backward()
        expected_grad, x.grad = x.grad, None
        actual = fused_kernels.torch_rms_norm(x, norm.weight, norm.variance_epsilon)
        (actual.float() ** 2).sum().backward()
        assert actual.dtype == expected.dtype
        scale = float(expected.detach().float().abs().max())
        assert float((actual.detach().float() - expected.detach().float()).abs().max()) <= limit * scale, dtype
        assert float((x.grad.float() - expected_grad.float()).abs().max()) <= limit * float(expected_grad.float().abs().max()) * 4, dtype


@pytest.mark.skipif(not DEVICE.startswith("cuda") or importlib.util.find_spec("liger_kernel") is None, reason="Liger's kernels need CUDA and liger-kernel")
@pytest.mark.parametrize("norm", ["torch", "liger"])
@pytest.mark.parametrize("checkpoint", ["tiny_checkpoint", "tiny_moe_checkpoint"])
def test_liger_kernels_give_transformers_logprobs_and_gradients(checkpoint: str, norm: str, request: pytest.FixtureRequest) -> None:
    torch.manual_seed(0)
    engine = Engine(request.getfixturevalue(checkpoint), device=DEVICE, dtype=DTYPE)
    assert engine.fused_kernels == "liger+torch-rms-norm"
    kernels = fused_kernels.liger(norm)
    assert kernels is not None
    fused_kernels.install(engine.base, kernels)
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "f", "rank": 4})
    fused, fused_grads = forward_backward(trainer)
    with fused_kernels.stock(engine.base):
        plain, plain_grads = forward_backward(trainer)
    assert max(abs(a - b) for a, b in zip(fused, plain)) < tolerance(max(abs(value) for value in plain))
    for name, grad in fused_grads.items():
        assert_close_gradients(grad, plain_grads[name], name)


def assert_close_gradients(actual: torch.Tensor, expected: torch.Tensor, name: str) -> None:
    """Within 1e-4 of the largest entry in fp32; 10% in bf16 (rounding of 8-bit mantissas through the layers)."""
    scale = float(expected.abs().max()) or 1.0
    assert float((actual - expected).abs().max()) / scale < (0.1 if low_precision() else 1e-4), name
