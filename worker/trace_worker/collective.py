"""Data-parallel collectives for the trainer: a no-op for one process, torch.distributed under torchrun."""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as distributed


class Collective:
    """One process: every rank-aware operation is the identity."""

    rank = 0
    world_size = 1

    def all_reduce_sum(self, tensors: list[torch.Tensor]) -> None:
        return None

    def gather_objects(self, value: Any) -> list[Any]:
        return [value]

    def broadcast_object(self, value: Any) -> Any:
        return value

    def broadcast_tensors(self, tensors: list[torch.Tensor]) -> None:
        return None


class TorchCollective(Collective):
    """Collectives over the default torch.distributed process group (NCCL on GPUs, gloo on CPU)."""

    def __init__(self) -> None:
        self.rank = distributed.get_rank()
        self.world_size = distributed.get_world_size()
        # NCCL reduces GPU tensors only; gloo reduces CPU tensors.
        self.device = torch.device("cuda", torch.cuda.current_device()) if distributed.get_backend() == "nccl" else torch.device("cpu")

    def all_reduce_sum(self, tensors: list[torch.Tensor]) -> None:
        if not tensors:
            return
        flat = torch.cat([tensor.reshape(-1).to(self.device, torch.float32) for tensor in tensors])
        distributed.all_reduce(flat, op=distributed.ReduceOp.SUM)
        offset = 0
        for tensor in tensors:
            size = tensor.numel()
            tensor.copy_(flat[offset : offset + size].view_as(tensor))
            offset += size

    def gather_objects(self, value: Any) -> list[Any]:
        gathered: list[Any] = [None] * self.world_size
        distributed.all_gather_object(gathered, value)
        return gathered

    def broadcast_object(self, value: Any) -> Any:
        holder = [value]
        distributed.broadcast_object_list(holder, src=0)
        return holder[0]

    def broadcast_tensors(self, tensors: list[torch.Tensor]) -> None:
        for tensor in tensors:
            distributed.broadcast(tensor.data, src=0)
