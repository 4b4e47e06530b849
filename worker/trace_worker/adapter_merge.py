"""Merging LoRA adapters into one (the consolidation baselines): linear and TIES-style merges of the adapters' weight
deltas `ΔW = scaling · B·A`, then a truncated SVD back to LoRA factors.

TIES (Yadav et al., 2023, "TIES-Merging"): per source keep the `density` fraction of entries with the largest
magnitude (trim), choose each entry's sign as the sign of the sum of the trimmed deltas (elect), and average, per
entry, only the sources whose trimmed delta has that sign (disjoint mean). This is a simplification of CORE-TSV-style
merging (no task-specific subspace alignment)."""

from __future__ import annotations

import torch


def trim_to_density(delta: torch.Tensor, density: float) -> torch.Tensor:
    """Keeps the `density` share of entries with the largest magnitude (at least one), zeroes the rest."""
    if density >= 1.0:
        return delta.clone()
    count = max(1, int(round(density * delta.numel())))
    threshold = delta.abs().flatten().kthvalue(delta.numel() - count + 1).values
    return torch.where(delta.abs() >= threshold, delta, torch.zeros_like(delta))


def ties_merge(deltas: list[torch.Tensor], weights: list[float], density: float) -> torch.Tensor:
    """TIES merge of same-shape deltas: trim, elect sign, disjoint (weighted) mean."""
    trimmed = torch.stack([trim_to_density(delta, density) * weight for delta, weight in zip(deltas, weights)])
    sign = torch.sign(trimmed.sum(dim=0))
    agrees = (torch.sign(trimmed) == sign.unsqueeze(0)) & (trimmed != 0)
    total = (trimmed * agrees).sum(dim=0)
    count = agrees.sum(dim=0).clamp(min=1)
    return total / count


def linear_merge(deltas: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    return sum((delta * weight for delta, weight in zip(deltas, weights)), torch.zeros_like(deltas[0]))


def low_rank_factors(delta: torch.Tensor, rank: int) -> tuple[torch.Tensor, torch.Tensor, float]:
    """(B [out, r], A [r, in]) with B·A the best rank-r approximation of `delta`, and the relative Frobenius error."""
    left, singular, right = torch.linalg.svd(delta.double(), full_matrices=False)
    rank = min(rank, singular.numel())
    root = singular[:rank].sqrt()
    up = left[:, :rank] * root
    down = root[:, None] * right[:rank]
    norm = float(delta.double().norm())
    error = float((delta.double() - up @ down).norm()) / norm if norm > 0 else 0.0
    return up.float(), down.float(), error
