import torch

from trace_worker.token_logprobs import chunked_token_logprobs


def test_chunked_logprobs_and_gradients_equal_the_full_computation() -> None:
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(37, 16, generator=generator, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(50, 16, generator=generator, dtype=torch.float64)
    targets = torch.randint(0, 50, (37,), generator=generator)
    upstream = torch.randn(37, generator=generator, dtype=torch.float64)

    logprobs, entropies = chunked_token_logprobs(hidden, weight, targets, chunk=8)
    (logprobs.double() * upstream).sum().backward()
    ours = hidden.grad.clone()  # type: ignore[union-attr]
    hidden.grad = None

    full = torch.log_softmax(hidden @ weight.t(), dim=-1)
    reference = full.gather(-1, targets[:, None]).squeeze(-1)
    (reference * upstream).sum().backward()
    assert torch.allclose(logprobs.double(), reference, atol=1e-5)
    assert torch.allclose(entropies.double(), -(full.exp() * full).sum(-1), atol=1e-5)
    assert torch.allclose(ours, hidden.grad, atol=1e-5)  # type: ignore[arg-type]


def test_no_gradient_work_without_grad() -> None:
    hidden = torch.randn(5, 4)
    weight = torch.randn(9, 4)
    logprobs, _ = chunked_token_logprobs(hidden, weight, torch.zeros(5, dtype=torch.long))
    assert not logprobs.requires_grad
