"""Published Qwen3 shapes (random weights; nothing is downloaded) and an honest FLOP count for LoRA training."""

from __future__ import annotations

from typing import Any

import torch
from transformers import PretrainedConfig, PreTrainedModel, Qwen3Config, Qwen3ForCausalLM, Qwen3MoeConfig, Qwen3MoeForCausalLM

QWEN3_SHAPES: dict[str, dict[str, Any]] = {
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
    "qwen3-8b": dict(hidden_size=4096, intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False),
    # Qwen3-30B-A3B: 48 layers, 128 experts, 8 active (about 61 GB in bf16).
    "qwen3-30b-a3b": dict(
        hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768, num_experts=128, num_experts_per_tok=8, num_hidden_layers=48,
        num_attention_heads=32, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False, norm_topk_prob=True, decoder_sparse_step=1,
    ),
    # The same layer shape cut to 4 layers, so that it loads in seconds.
    "qwen3-30b-a3b-4-layers": dict(
        hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768, num_experts=128, num_experts_per_tok=8, num_hidden_layers=4,
        num_attention_heads=32, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False, norm_topk_prob=True, decoder_sparse_step=1,
    ),
    "tiny-moe": dict(
        hidden_size=64, intermediate_size=192, moe_intermediate_size=32, num_experts=8, num_experts_per_tok=2, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, tie_word_embeddings=False, norm_topk_prob=True, decoder_sparse_step=1, vocab_size=1024,
    ),
    "tiny": dict(hidden_size=64, intermediate_size=192, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16, tie_word_embeddings=True, vocab_size=1024),
}


def shape_config(name: str) -> PretrainedConfig:
    fields = dict(vocab_size=151936, max_position_embeddings=40960, rope_theta=1_000_000.0, rms_norm_eps=1e-6)
    fields.update(QWEN3_SHAPES[name])
    if "num_experts" in fields:
        return Qwen3MoeConfig(**fields)
    return Qwen3Config(**fields)


def random_model(name: str, device: torch.device, dtype: torch.dtype, attention: str = "sdpa") -> PreTrainedModel:
    """A Qwen3-shaped model with random weights, built directly on `device` in `dtype`."""
    config = shape_config(name)
    config._attn_implementation = attention
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = (Qwen3MoeForCausalLM if isinstance(config, Qwen3MoeConfig) else Qwen3ForCausalLM)(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


def lora_training_flops_per_token(model: torch.nn.Module, rank: int, target_modules: list[str], sequence_length: int) -> dict[str, float]:
    """FLOPs per trained token of a LoRA forward + backward on a frozen base, counting only useful work:
    base matmuls 4·N (forward 2·N, activation gradients 2·N, no weight gradients; N = weights of every linear layer incl.
    the output layer, not the embedding lookup); causal attention 6·heads·head_dim·T per layer (forward QKᵀ and PV
    over T/2 keys on average, backward twice that); LoRA 6·r·(in + out) per adapted layer (forward, activation and
    weight gradients), and for adapted fused experts the same per active expert (gate/up: in = hidden, out =
    2·moe_intermediate; down: in = moe_intermediate, out = hidden). Recomputation (e.g. flash attention's backward) is
    not counted."""
    config = model.config
    base = 0
    lora = 0
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear) and "lora_" not in name:
            base += module.in_features * module.out_features
            if name.rsplit(".", 1)[-1] in target_modules:
                lora += 6 * rank * (module.in_features + module.out_features)
    experts = getattr(config, "num_experts", 0) or 0
    if experts:
        active = config.num_experts_per_tok
        base += config.num_hidden_layers * active * 3 * config.hidden_size * config.moe_intermediate_size
        hidden, inner = config.hidden_size, config.moe_intermediate_size
        per_expert = (6 * rank * (hidden + 2 * inner) if "gate_proj" in target_modules else 0) + (6 * rank * (inner + hidden) if "down_proj" in target_modules else 0)
        lora += config.num_hidden_layers * active * per_expert
    attention = 6 * config.num_attention_heads * config.head_dim * sequence_length * config.num_hidden_layers
    return {"base": 4.0 * base, "attention": float(attention), "lora": float(lora), "total": 4.0 * base + attention + lora}
