"""Per-token logprobs (and entropies) of target tokens without materialising the full [tokens × vocabulary] logits.

Written by hand because neither torch nor transformers offers a chunked linear + log-softmax with a recomputing
backward for frozen output weights: the forward keeps only [tokens] outputs and the backward recomputes each chunk's
logits, so memory stays at one chunk of logits (what fused "linear cross-entropy" kernels do)."""

from __future__ import annotations

from typing import Any

import torch


class ChunkedTokenLogprobs(torch.autograd.Function):
    """(hidden [N, H], weight [V, H] frozen, targets [N]) → (logprobs [N] fp32, entropies [N] fp32, no gradient)."""

    @staticmethod
    def forward(ctx: Any, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
        count = hidden.shape[0]
        logprobs = torch.empty(count, dtype=torch.float32, device=hidden.device)
        entropies = torch.empty(count, dtype=torch.float32, device=hidden.device)
        for start in range(0, count, chunk):
            end = min(start + chunk, count)
            logits = (hidden[start:end] @ weight.t()).float()
            normaliser = torch.logsumexp(logits, dim=-1)
            logprobs[start:end] = logits.gather(-1, targets[start:end, None]).squeeze(-1) - normaliser
            probabilities = torch.exp(logits - normaliser[:, None])
            entropies[start:end] = normaliser - (probabilities * logits).sum(-1)
        ctx.save_for_backward(hidden, weight, targets)
        ctx.chunk = chunk
        ctx.mark_non_differentiable(entropies)
        return logprobs, entropies

    @staticmethod
    def backward(ctx: Any, grad_logprobs: torch.Tensor, _grad_entropies: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        hidden, weight, targets = ctx.saved_tensors
        chunk: int = ctx.chunk
        grad_hidden = torch.empty_like(hidden)
        for start in range(0, hidden.shape[0], chunk):
            end = min(start + chunk, hidden.shape[0])
            logits = (hidden[start:end] @ weight.t()).float()
            gradient = torch.softmax(logits, dim=-1).mul_(-grad_logprobs[start:end, None].float())
            rows = torch.arange(end - start, device=hidden.device)
            gradient[rows, targets[start:end]] += grad_logprobs[start:end].float()
            grad_hidden[start:end] = gradient.to(weight.dtype) @ weight
        return grad_hidden, None, None, None


def chunked_token_logprobs(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, chunk: int = 1024
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logprobs of `targets` under `softmax(hidden @ weight.T)` and the distribution's entropy, per row."""
    if weight.requires_grad:
        logits = (hidden @ weight.t()).float()
        log_probabilities = torch.log_softmax(logits, dim=-1)
        with torch.no_grad():
            entropies = -(log_probabilities.exp() * log_probabilities).sum(-1)
        return log_probabilities.gather(-1, targets[:, None]).squeeze(-1), entropies
    result: tuple[torch.Tensor, torch.Tensor] = ChunkedTokenLogprobs.apply(hidden, weight, targets, chunk)  # type: ignore[no-untyped-call]
    return result
