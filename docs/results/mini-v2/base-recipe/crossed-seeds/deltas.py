import torch, json, sys
from transformers import Qwen3Config, Qwen3ForCausalLM
from safetensors.torch import load_file
cfg = json.load(open("models/mini-v2-base/config.json"))
config = Qwen3Config(**{k: v for k, v in cfg.items() if k not in ("architectures", "transformers_version", "dtype", "torch_dtype")})
torch.manual_seed(0)
model = Qwen3ForCausalLM(config).to(torch.float32)
with torch.no_grad():
    model.get_output_embeddings().weight.normal_(0.0, 2.0 / config.hidden_size**0.5)
init = {k: v.detach().clone() for k, v in model.state_dict().items()}
ship = load_file("models/mini-v2-base/model.safetensors")
emb = ship["model.embed_tokens.weight"].float()
ref = init["model.embed_tokens.weight"].bfloat16().float()
same_rows = (emb == ref).all(1).float().mean().item()
print("embedding rows equal to regenerated init (unmarked rows):", round(same_rows, 3))
parts = {n: load_file(f"/tmp/cross/{n}/model/model.safetensors") for n in ["i0t0", "i0t13", "i0t14"]}
rows = []
tot = {"cos01": [], "cos02": [], "cos12": [], "ratio": []}
for k in ship:
    if not k.endswith("proj.weight"): continue
    w0 = init[k].bfloat16().float()
    d = {n: parts[n][k].float() - w0 for n in parts}
    flat = {n: v.flatten() for n, v in d.items()}
    cos = lambda a, b: float(torch.nn.functional.cosine_similarity(flat[a], flat[b], dim=0))
    mean = sum(flat.values()) / 3
    tot["cos01"].append(cos("i0t0", "i0t13")); tot["cos02"].append(cos("i0t0", "i0t14")); tot["cos12"].append(cos("i0t13", "i0t14"))
    tot["ratio"].append(float(mean.norm() / (sum(v.norm() for v in flat.values()) / 3)))
    # relative size of delta vs init weight
print(json.dumps({k: [round(min(v), 3), round(sum(v) / len(v), 3), round(max(v), 3)] for k, v in tot.items()}))
d0 = {k: (parts["i0t0"][k].float() - init[k].bfloat16().float()) for k in ship if k.endswith("proj.weight")}
print("delta norm / init norm (mean over projections):", round(sum(float(d0[k].norm() / init[k].norm()) for k in d0) / len(d0), 3))
