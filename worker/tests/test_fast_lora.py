from pathlib import Path

import torch
from peft import LoraConfig, get_peft_model

from trace_worker import fast_lora, fused_kernels
from trace_worker.engine import Engine

from .conftest import DEVICE, DTYPE


def test_lean_lora_forward_and_gradients_equal_peft(tiny_checkpoint: Path) -> None:
    """The lean LoRA forward alone: transformers' own norms, MLPs and rotary embedding (no fused kernels on CUDA)."""
    torch.manual_seed(0)
    engine = Engine(tiny_checkpoint, device=DEVICE, dtype=DTYPE, fused_kernels=False)
    with fused_kernels.stock(engine.base):
        check_lean_forward(engine)


def check_lean_forward(engine: Engine) -> None:
    model = get_peft_model(engine.base, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "down_proj"]), adapter_name="first")
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
    input_ids = torch.randint(0, 500, (2, 9), generator=generator).to(engine.device)

    def run() -> tuple[torch.Tensor, list[torch.Tensor]]:
        logits = model(input_ids=input_ids).logits.float()
        loss = logits.logsumexp(-1).sum()
        parameters = [parameter for name, parameter in model.named_parameters() if "lora_" in name]
        return logits.detach(), list(torch.autograd.grad(loss, parameters))

    stock_logits, stock_gradients = run()
    assert fast_lora.install(model) == 2 * engine.base.config.num_hidden_layers
    lean_logits, lean_gradients = run()
    tolerance = 1e-4 if engine.dtype == torch.float32 else 3e-2 * max(1.0, float(stock_logits.abs().max()))
    assert float((stock_logits - lean_logits).abs().max()) < tolerance
    for stock, lean in zip(stock_gradients, lean_gradients):
        assert float((stock - lean).abs().max()) <= tolerance * max(1.0, float(stock.abs().max()))
    with model.disable_adapter():
        base_logits = model(input_ids=input_ids).logits.float()
    assert float((base_logits - lean_logits).abs().max()) > 1e-3
    with fast_lora.stock(model):
        again, _ = run()
    assert torch.equal(again, stock_logits)
