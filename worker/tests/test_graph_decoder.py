"""The static-cache decode path (what CUDA graphs replay) gives the same tokens and logprobs as eager decoding."""

from __future__ import annotations

import pytest
import torch

from trace_worker.engine import Engine
from trace_worker.graph_decoder import GraphDecoder
from trace_worker.sampler import Sampler, SamplingRequest
from trace_worker.trainer import Trainer

from .conftest import DEVICE, DTYPE, low_precision, tolerance


def requests(adapter: str | None) -> list[SamplingRequest]:
    prompts = [list(range(20, 37)), list(range(40, 45)), list(range(300, 329))]
    return [SamplingRequest(prompt_ids=prompt, adapter=adapter, max_tokens=12, temperature=1.0, seed=index) for index, prompt in enumerate(prompts)]


@pytest.mark.parametrize("checkpoint", ["tiny_checkpoint", "tiny_moe_checkpoint"])
def test_static_cache_steps_match_eager_steps(checkpoint: str, request: pytest.FixtureRequest) -> None:
    """Dense and mixture-of-experts models (the MoE adapter also covers every expert's gate/up and down), base and
    adapter: what a captured step replays is what eager decoding samples."""
    torch.manual_seed(0)
    engine = Engine(request.getfixturevalue(checkpoint), device=DEVICE, dtype=DTYPE)
    trainer = Trainer(engine)
    trainer.create_adapter({"name": "steps", "rank": 4})
    with torch.no_grad():
        for name, parameter in engine.model.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0, 0.5)
    engine.stop_token_ids = []
    eager = Sampler(engine, cuda_graphs=False)
    static = Sampler(engine)
    static.graphs = GraphDecoder(engine, True, minimum_cache=16, capture=engine.device.type == "cuda")
    for adapter in (None, "steps"):
        expected = eager.generate(requests(adapter))
        for _attempt in range(2):  # the second run reuses the captured step (or the static cache)
            actual = static.generate(requests(adapter))
            for mine, reference in zip(actual, expected):
                if not low_precision():
                    assert mine.completion_ids == reference.completion_ids
                    assert max(abs(a.logprob - b.logprob) for a, b in zip(mine.positions, reference.positions)) < tolerance()
                assert len(mine.completion_ids) == 12
            # Whatever the kernels, the sampled tokens' logprobs are the policy's (trainer's) logprobs.
            for request, result in zip(requests(adapter), actual):
                sequence = request.prompt_ids + result.completion_ids
                body = {"adapter": adapter, "datums": [{"tokens": sequence[:-1], "target_tokens": sequence[1:]}]}
                policy = trainer.forward(body)["logprobs"][0][len(request.prompt_ids) - 1 :]
                assert max(abs(a.logprob - b) for a, b in zip(result.positions, policy)) < tolerance()
    assert static.graphs.enabled and static.graphs.captured and static.graphs.failures == 0
    if checkpoint == "tiny_moe_checkpoint":
        assert engine.expert_parameters, "the MoE adapter adapts the experts too"
