"""A point on the line between two merged checkpoints of one trajectory: (1 - ALPHA) * A + ALPHA * B, tensor by tensor,
kept in float32 (cast back to bfloat16 it would add rounding of about a sixth of the two ends' distance); writes DIR_OUT
from A's files. Usage: interpolate.py DIR_OUT A B ALPHA."""
import shutil, sys, torch
from pathlib import Path
from safetensors.torch import load_file, save_file
out, first, second, alpha = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4])
shutil.copytree(first, out, dirs_exist_ok=True)
a, b = load_file(first / "model.safetensors"), load_file(second / "model.safetensors")
assert a.keys() == b.keys()
mixed, same, distance, size = {}, 0, 0.0, 0.0
for k in a:
    if torch.equal(a[k], b[k]): same += 1
    mixed[k] = ((1 - alpha) * a[k].float() + alpha * b[k].float()).contiguous()
    distance += (a[k].float() - b[k].float()).pow(2).sum().item()
    size += a[k].float().pow(2).sum().item()
save_file(mixed, out / "model.safetensors", metadata={"format": "pt"})
print(f"{len(a)} tensors, {same} identical; |B - A| / |A| = {distance ** 0.5 / size ** 0.5:.4f}; alpha {alpha}")
