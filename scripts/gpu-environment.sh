# Sourced by the GPU machine's scripts (gpu-check.sh, multi-gpu-check.sh) from the repository root: the output folder
# ($OUT, else ./gpu-out) as $out, the interpreter as $python, unbuffered Python, NVLink multicast off (a program using
# it can take a shared host's GPUs out of service), and the worker's HTTP server (uvicorn, not on the GPU machine)
# installed offline from the wheels carried in .device/wheels (`bash scripts/worker-wheels.sh` fetches them where
# there is network).
out="${OUT:-gpu-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
python="${TRACE_PYTHON:-python3}"
bash scripts/worker-wheels.sh install "$python" || exit 1
if [ -d .device/python ]; then export PYTHONPATH="$PWD/.device/python${PYTHONPATH:+:$PYTHONPATH}"; fi
