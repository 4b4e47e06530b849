"""Uniform average of merged checkpoints that share drawn weights (a 'soup'); writes DIR_OUT from the first's files."""
import shutil, sys, torch
from pathlib import Path
from safetensors.torch import load_file, save_file
out, parts = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
shutil.copytree(parts[0], out, dirs_exist_ok=True)
states = [load_file(p / "model.safetensors") for p in parts]
keys = states[0].keys()
assert all(s.keys() == keys for s in states)
averaged, same = {}, 0
for k in keys:
    dtype = states[0][k].dtype
    stack = torch.stack([s[k].float() for s in states])
    if all(torch.equal(states[0][k], s[k]) for s in states[1:]): same += 1
    averaged[k] = stack.mean(0).to(dtype).contiguous()
save_file(averaged, out / "model.safetensors", metadata={"format": "pt"})
print(f"{len(keys)} tensors, {same} identical across parts")
