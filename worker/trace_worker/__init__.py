"""trace's Python worker: one frozen base model, many LoRA adapters, a sampler and a trainer over HTTP."""
