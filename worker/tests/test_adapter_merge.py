"""Merge arithmetic on small matrices, and merged adapters through the trainer."""

from __future__ import annotations

import torch

from trace_worker.adapter_merge import linear_merge, low_rank_factors, ties_merge, trim_to_density
from trace_worker.engine import Engine
from trace_worker.trainer import Trainer

from .conftest import low_precision


def test_trim_keeps_the_largest_magnitudes() -> None:
    delta = torch.tensor([[0.1, -3.0], [2.0, -0.5]])
    assert torch.equal(trim_to_density(delta, 0.5), torch.tensor([[0.0, -3.0], [2.0, 0.0]]))
    assert torch.equal(trim_to_density(delta, 1.0), delta)


def test_ties_merge_on_hand_computed_matrices() -> None:
    first = torch.tensor([[1.0, -2.0], [0.5, 4.0]])
    second = torch.tensor([[3.0, 1.0], [-0.1, -1.0]])
    third = torch.tensor([[-2.0, 2.0], [0.2, -6.0]])
    # density 1 (no trimming). Entry by entry: signs of the sums (2, 1, 0.6, -3) → +, +, +, −;
    # disjoint means: (1 + 3)/2, (1 + 2)/2, (0.5 + 0.2)/2, (−1 − 6)/2.
    expected = torch.tensor([[2.0, 1.5], [0.35, -3.5]])
    assert torch.allclose(ties_merge([first, second, third], [1.0, 1.0, 1.0], 1.0), expected)
    # density 0.5 keeps the 2 largest magnitudes of each, and every entry tied with the 2nd: first {−2, 4},
    # second {3, 1, −1} (|1| ties), third {−2, 2, −6} (|2| ties). Entry sums: 0 + 3 − 2 = 1 (+), −2 + 1 + 2 = 1 (+),
    # 0 (nothing kept), 4 − 1 − 6 = −3 (−); disjoint means: 3, (1 + 2)/2, 0, (−1 − 6)/2.
    trimmed = ties_merge([first, second, third], [1.0, 1.0, 1.0], 0.5)
    assert torch.allclose(trimmed, torch.tensor([[3.0, 1.5], [0.0, -3.5]]))


def test_linear_merge_and_exact_refactorisation() -> None:
    generator = torch.Generator().manual_seed(0)
    deltas = [torch.randn(6, 2, generator=generator) @ torch.randn(2, 5, generator=generator) for _ in range(2)]
    merged = linear_merge(deltas, [0.25, 0.75])
    assert torch.allclose(merged, 0.25 * deltas[0] + 0.75 * deltas[1])
    up, down, error = low_rank_factors(merged, 4)  # rank(merged) ≤ 4: exact
    assert error < 1e-6 and torch.allclose(up @ down, merged, atol=1e-5)
    _up, _down, truncated = low_rank_factors(merged, 1)
    assert truncated > 0.01


def test_merged_adapter_carries_the_merged_delta(engine: Engine) -> None:
    trainer = Trainer(engine)
    for index, name in enumerate(("first", "second")):
        trainer.create_adapter({"name": name, "rank": 2, "alpha": 4})
        generator = torch.Generator().manual_seed(index + 1)
        with torch.no_grad():
            for record_parameter in engine.adapter(name).parameters:
                record_parameter.copy_(torch.randn(record_parameter.shape, generator=generator) * 0.1)
    answer = trainer.merge_adapters({"name": "merged", "sources": ["first", "second"], "weights": [0.5, 0.5]})
    assert answer["rank"] == 4 and answer["max_relative_error"] < 1e-5
    assert engine.peft is not None
    module = next(module for name, module in engine.peft.named_modules() if name.endswith("layers.0.self_attn.q_proj"))

    def delta(adapter: str) -> torch.Tensor:
        return (module.lora_B[adapter].weight.float() @ module.lora_A[adapter].weight.float()) * module.scaling[adapter]

    expected = 0.5 * delta("first") + 0.5 * delta("second")
    assert torch.allclose(delta("merged"), expected, atol=1e-5 if not low_precision() else 1e-2)
    ties = trainer.merge_adapters({"name": "ties", "sources": ["first", "second"], "method": "ties", "density": 0.5, "rank": 2})
    assert ties["modules"] == answer["modules"] and 0 < ties["max_relative_error"] < 1
