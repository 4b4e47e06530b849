"""Per-token logprobs (and entropies) of target tokens without materialising the full [tokens × vocabulary] logits.

Written by hand because neither torch nor transformers offers a chunked linear + log-softmax for frozen output
weights: each chunk's logits live only inside the forward, which also computes the logprobs' gradient with respect to
the hidden states, `(onehot − softmax) @ W`, an [N, H] tensor; the backward only scales it by the incoming per-token
gradient. The matrix work equals a plain forward + backward through the output layer, and memory stays at one chunk
of logits (the trick of fused "linear cross-entropy" kernels)."""

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
        need_gradient = bool(ctx.needs_input_grad[0])
        hidden_gradient = torch.empty_like(hidden) if need_gradient else None
        for start in range(0, count, chunk):
            end = min(start + chunk, count)
            logits = (hidden[start:end] @ weight.t()).float()
            normaliser = torch.logsumexp(logits, dim=-1)
            logprobs[start:end] = logits.gather(-1, targets[start:end, None]).squeeze(-1) - normaliser
            probabilities = torch.exp(logits.sub_(normaliser[:, None]))
            entropies[start:end] = -(probabilities * logits).sum(-1)
            if hidden_gradient is not None:
                direction = probabilities.neg_()
                direction[torch.arange(end - start, device=hidden.device), targets[start:end]] += 1.0
                hidden_gradient[start:end] = direction.to(weight.dtype) @ weight
        ctx.save_for_backward(hidden_gradient)
        ctx.mark_non_differentiable(entropies)
        return logprobs, entropies

    @staticmethod
    def backward(ctx: Any, grad_logprobs: torch.Tensor, _grad_entropies: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        (hidden_gradient,) = ctx.saved_tensors
        if hidden_gradient is None:
            return None, None, None, None
        return hidden_gradient * grad_logprobs[:, None].to(hidden_gradient.dtype), None, None, None


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
