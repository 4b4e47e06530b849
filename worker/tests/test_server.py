"""The sampler and trainer through HTTP: OpenAI-shaped completions whose logprobs equal the trainer's, batching with
a KV cache, adapters sampled right after optim_step, and 4xx answers for malformed requests."""

from __future__ import annotations

import concurrent.futures
import json
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch

from trace_worker.engine import Engine

from .conftest import low_precision, tolerance
from .worker_http import RunningWorker

MESSAGES = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Find reservation 4WQ150."}]


@pytest.fixture()
def worker(engine: Engine) -> Iterator[RunningWorker]:
    running = RunningWorker(engine)
    yield running
    running.close()


def chat(worker: RunningWorker, **fields: Any) -> dict[str, Any]:
    body = {"model": worker.application.engine.served_name, "messages": MESSAGES, "max_tokens": 12, "return_token_ids": True, "logprobs": True}
    body.update(fields)
    result: dict[str, Any] = worker.post("/v1/chat/completions", body)
    return result


def assert_answered(worker: RunningWorker) -> None:
    """A short chat is answered: up to two tokens, ended by the length limit or (sampled from a random model) by the end token."""
    choice = chat(worker, max_tokens=2)["choices"][0]
    generated = len(choice["token_ids"])
    assert generated == 2 and choice["finish_reason"] == "length" or 1 <= generated < 2 and choice["finish_reason"] == "stop"


def trainer_logprobs(worker: RunningWorker, adapter: str | None, completion: dict[str, Any]) -> list[float]:
    sequence = completion["prompt_token_ids"] + completion["choices"][0]["token_ids"]
    datum = {"tokens": sequence[:-1], "target_tokens": sequence[1:]}
    body: dict[str, Any] = {"datums": [datum]}
    if adapter:
        body["adapter"] = adapter
    logprobs: list[float] = worker.post("/v1/trainer/forward", body)["logprobs"][0]
    return logprobs[len(completion["prompt_token_ids"]) - 1 :]


def sampled_logprobs(completion: dict[str, Any]) -> list[float]:
    return [entry["logprob"] for entry in completion["choices"][0]["logprobs"]["content"]]


def test_health_names_the_machine_and_library_versions(worker: RunningWorker) -> None:
    import peft
    import transformers

    health = worker.request("GET", "/health")[1]
    assert health["versions"] == {"python": health["versions"]["python"], "torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__}
    assert health["versions"]["python"].count(".") == 2
    # On CPU: the processor's model and the cores this process may use (a GPU reports its name instead).
    assert health["accelerator"].endswith(" cores") and len(health["accelerator"]) > len(" cores"), health["accelerator"]


def test_completion_has_openai_shape_and_token_ids(worker: RunningWorker) -> None:
    completion = chat(worker, seed=1)
    choice = completion["choices"][0]
    assert completion["object"] == "chat.completion"
    assert choice["message"]["role"] == "assistant"
    assert choice["finish_reason"] in ("stop", "length", "tool_calls")
    assert len(choice["token_ids"]) == len(choice["logprobs"]["content"]) == completion["usage"]["completion_tokens"]
    assert completion["usage"]["prompt_tokens"] == len(completion["prompt_token_ids"])
    tokenizer = worker.application.engine.tokenizer
    assert tokenizer.decode(completion["prompt_token_ids"]).endswith("<|im_start|>assistant\n")


def test_sampler_logprobs_equal_trainer_logprobs(worker: RunningWorker) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "policy", "rank": 4})
    for model in (worker.application.engine.served_name, "policy"):
        for seed in (1, 2):
            completion = chat(worker, model=model, seed=seed, max_tokens=16)
            expected = trainer_logprobs(worker, None if model != "policy" else "policy", completion)
            assert max(abs(x - y) for x, y in zip(sampled_logprobs(completion), expected)) < tolerance()


def test_an_adapter_is_sampled_with_its_new_weights_right_after_optim_step(worker: RunningWorker) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "learner", "rank": 4})
    completion = chat(worker, model="learner", seed=3)
    sequence = completion["prompt_token_ids"] + completion["choices"][0]["token_ids"]
    datum = {"tokens": sequence[:-1], "target_tokens": sequence[1:], "weights": [0.0] * (len(completion["prompt_token_ids"]) - 1) + [1.0] * len(completion["choices"][0]["token_ids"])}
    worker.post("/v1/trainer/forward_backward", {"adapter": "learner", "loss": "cross_entropy", "datums": [datum]})
    worker.post("/v1/trainer/optim_step", {"adapter": "learner", "learning_rate": 2e-3})
    again = chat(worker, model="learner", seed=3)
    new_logprobs = trainer_logprobs(worker, "learner", again)
    assert max(abs(x - y) for x, y in zip(sampled_logprobs(again), new_logprobs)) < tolerance()
    assert sum(trainer_logprobs(worker, "learner", completion)) > sum(sampled_logprobs(completion))


def test_seeded_sampling_is_reproducible_and_greedy_is_deterministic(worker: RunningWorker) -> None:
    first, second, other = chat(worker, seed=11), chat(worker, seed=11), chat(worker, seed=12)
    assert first["choices"][0]["token_ids"] == second["choices"][0]["token_ids"]
    assert first["choices"][0]["token_ids"] != other["choices"][0]["token_ids"]
    greedy = [chat(worker, temperature=0)["choices"][0]["token_ids"] for _ in range(2)]
    assert greedy[0] == greedy[1]
    logprobs = trainer_logprobs(worker, None, chat(worker, temperature=0, top_logprobs=1))
    top = chat(worker, temperature=0, top_logprobs=1)["choices"][0]["logprobs"]["content"]
    assert all(entry["top_logprobs"][0]["logprob"] == pytest.approx(entry["logprob"], abs=1e-6) for entry in top)
    assert len(logprobs) == len(top)


def test_concurrent_requests_are_batched_with_a_kv_cache(worker: RunningWorker) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "side", "rank": 4})
    seeds = list(range(8))
    sequential = [chat(worker, seed=seed, model="side" if seed % 2 else worker.application.engine.served_name) for seed in seeds]
    widths: list[int] = []
    hook = worker.application.engine.base.register_forward_pre_hook(
        lambda _module, _args, kwargs: widths.append(int(kwargs["input_ids"].shape[1])), with_kwargs=True
    )
    # Hold the engine thread until all eight requests are queued, so they must decode as one batch.
    gate = threading.Event()
    executor = worker.application.executor
    blocker = threading.Thread(target=lambda: executor.call(gate.wait))
    blocker.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(chat, worker, seed=seed, model="side" if seed % 2 else worker.application.engine.served_name) for seed in seeds]
            deadline = time.time() + 60
            while len(executor._queue) < len(seeds) and time.time() < deadline:
                time.sleep(0.01)
            gate.set()
            batched = [future.result() for future in futures]
    finally:
        gate.set()
        blocker.join()
        hook.remove()
    assert worker.application.executor.largest_batch == len(seeds)
    # Every forward after a prefill feeds one new token per sequence: the prompt is never recomputed.
    prefills = [width for width in widths if width > 1]
    assert len(prefills) <= len(seeds) and widths.count(1) >= len(widths) - len(prefills)
    for seed, alone, together in zip(seeds, sequential, batched):
        if low_precision():
            # bf16 kernels differ with the batch's shape (as in vLLM), so a seeded sample may differ; what must
            # hold is that the batched sample's logprobs are the policy's.
            expected = trainer_logprobs(worker, "side" if seed % 2 else None, together)
            assert max(abs(x - y) for x, y in zip(sampled_logprobs(together), expected)) < tolerance()
        else:
            assert alone["choices"][0]["token_ids"] == together["choices"][0]["token_ids"]
            assert max(abs(x - y) for x, y in zip(sampled_logprobs(alone), sampled_logprobs(together))) < tolerance()


def test_label_logprobs_for_routing(worker: RunningWorker) -> None:
    tokenizer = worker.application.engine.tokenizer
    labels = [tokenizer.convert_tokens_to_ids(token) for token in ("A", "B", "C")]
    completion = chat(worker, max_tokens=1, logprobs=False, logprob_token_ids=labels, return_tokens_as_token_ids=True)
    first = completion["choices"][0]["logprobs"]["content"][0]
    listed = {entry["token"]: entry["logprob"] for entry in first["top_logprobs"]}
    assert set(listed) == {f"token_id:{label}" for label in labels}
    prompt = completion["prompt_token_ids"]
    datum = {"tokens": prompt, "target_tokens": prompt[1:] + [labels[0]]}
    expected = worker.post("/v1/trainer/forward", {"datums": [datum]})["logprobs"][0][-1]
    assert listed[f"token_id:{labels[0]}"] == pytest.approx(expected, abs=tolerance())


def test_stop_strings_and_max_tokens(worker: RunningWorker) -> None:
    free = chat(worker, seed=5, max_tokens=20, temperature=0)
    text = free["choices"][0]["message"]["content"] or ""
    assert free["choices"][0]["finish_reason"] == "length"
    if len(text) > 4:
        stop = text[2:4]
        cut = chat(worker, seed=5, max_tokens=20, temperature=0, stop=[stop])
        assert cut["choices"][0]["finish_reason"] == "stop"
        assert cut["choices"][0]["message"]["content"] == (text[: text.find(stop)] or None)
    # Greedy, as the free run above (which ran to its limit): a sampled token from the random model may be the end token.
    assert len(chat(worker, max_tokens=3, temperature=0)["choices"][0]["token_ids"]) == 3


def test_models_and_adapter_loading(worker: RunningWorker, tmp_path: Path) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "exported", "rank": 4})
    worker.post("/v1/trainer/save_adapter", {"adapter": "exported", "path": str(tmp_path / "exported")})
    status, text = worker.request("POST", "/v1/load_lora_adapter", {"lora_name": "served", "lora_path": str(tmp_path / "exported")})
    assert status == 200 and "served" in text
    ids = [entry["id"] for entry in worker.request("GET", "/v1/models")[1]["data"]]
    assert ids == [worker.application.engine.served_name, "exported", "served"]
    assert chat(worker, model="served", seed=1)["choices"][0]["token_ids"] == chat(worker, seed=1)["choices"][0]["token_ids"]
    assert worker.request("POST", "/v1/unload_lora_adapter", {"lora_name": "served"})[0] == 200
    assert worker.request("POST", "/v1/chat/completions", {"model": "served", "messages": MESSAGES})[0] == 404
    listed = worker.request("GET", "/v1/trainer/adapters")[1]["adapters"]
    assert [entry["name"] for entry in listed] == ["exported"]


@pytest.mark.parametrize(
    "path, body, status, param",
    [
        ("/v1/chat/completions", {"messages": MESSAGES}, 400, "model"),
        ("/v1/chat/completions", {"model": "nope", "messages": MESSAGES}, 404, "model"),
        ("/v1/chat/completions", {"model": "{base}", "messages": []}, 400, "messages"),
        ("/v1/chat/completions", {"model": "{base}", "messages": MESSAGES, "stream": True}, 400, "stream"),
        ("/v1/chat/completions", {"model": "{base}", "messages": MESSAGES, "temperature": -1}, 400, "temperature"),
        ("/v1/chat/completions", {"model": "{base}", "messages": MESSAGES, "max_tokens": 0}, 400, "max_tokens"),
        ("/v1/chat/completions", {"model": "{base}", "messages": MESSAGES, "cache_salt": ""}, 400, "cache_salt"),
        ("/v1/chat/completions", {"model": "{base}", "messages": MESSAGES, "logprob_token_ids": [10**9]}, 400, "logprob_token_ids[0]"),
        ("/v1/chat/completions", ["not", "an", "object"], 400, "body"),
        ("/v1/trainer/forward_backward", {"adapter": "ghost", "datums": [{"tokens": [1], "target_tokens": [2]}]}, 404, "adapter"),
        ("/v1/trainer/create_adapter", {"name": "bad name!"}, 400, "name"),
        ("/v1/trainer/create_adapter", {"name": "x", "rank": 0}, 400, "rank"),
        ("/v1/trainer/optim_step", {"adapter": 5}, 400, "adapter"),
        ("/v1/trainer/explode", {}, 404, "path"),
        ("/v1/load_lora_adapter", {"lora_name": "loaded", "lora_path": "/nonexistent"}, 400, "lora_path"),
    ],
)
def test_malformed_requests_get_4xx_naming_the_field(worker: RunningWorker, path: str, body: Any, status: int, param: str) -> None:
    base = worker.application.engine.served_name
    if isinstance(body, dict) and body.get("model") == "{base}":
        body = dict(body, model=base)
    answer_status, answer = worker.request("POST", path, body)
    assert answer_status == status, answer
    assert answer["error"]["param"] == param
    assert worker.request("GET", "/health")[1]["status"] == "ok"


def test_transport_level_errors(engine: Engine) -> None:
    guarded = RunningWorker(engine, api_key="secret", max_request_bytes=2048)
    try:
        assert guarded.request("GET", "/health")[0] == 200
        status, answer = guarded.request("GET", "/v1/models", headers={"Authorization": "Bearer wrong"})
        assert status == 401 and answer["error"]["type"] == "authentication_error"
        assert guarded.request("POST", "/v1/chat/completions", raw=b"{not json")[0] == 400
        big = {"model": "x", "messages": [{"role": "user", "content": "y" * 5000}]}
        status, answer = guarded.request("POST", "/v1/chat/completions", big)
        assert status == 413 and answer["error"]["param"] == "Content-Length"
        assert guarded.request("GET", "/v1/models")[0] == 200
    finally:
        guarded.close()


def test_an_internal_failure_is_a_500_and_the_worker_keeps_serving(worker: RunningWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_body: dict[str, Any]) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(worker.application.trainer, "optim_step", broken)
    status, answer = worker.request("POST", "/v1/trainer/optim_step", {"adapter": "x"})
    assert status == 500 and "disk on fire" in answer["error"]["message"]
    assert_answered(worker)


def test_tool_calls_from_the_model_come_back_as_openai_tool_calls(worker: RunningWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer = worker.application.engine.tokenizer
    scripted = tokenizer.encode('<tool_call>\n{"name": "lookup", "arguments": {"id": 7}}\n</tool_call>', add_special_tokens=False)
    scripted.append(tokenizer.convert_tokens_to_ids("<|im_end|>"))
    sampler = worker.application.sampler
    original = sampler.step

    def forced():  # type: ignore[no-untyped-def]
        outcomes = original()
        for _handle, result in outcomes:
            result.completion_ids = scripted
            result.text = tokenizer.decode(scripted[:-1])
            result.finish_reason = "stop"
        return outcomes

    monkeypatch.setattr(sampler, "step", forced)
    choice = chat(worker, logprobs=False)["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert choice["message"]["tool_calls"][0]["function"] == {"name": "lookup", "arguments": json.dumps({"id": 7})}
    assert torch.tensor(choice["token_ids"]).tolist() == scripted


def test_a_diverged_step_answers_valid_json_with_null(worker: RunningWorker) -> None:
    worker.post("/v1/trainer/create_adapter", {"name": "diverge", "rank": 4})
    datum = {"tokens": [5, 6, 7, 8], "target_tokens": [6, 7, 8, 9]}
    worker.post("/v1/trainer/forward_backward", {"adapter": "diverge", "datums": [datum]})
    worker.post("/v1/trainer/optim_step", {"adapter": "diverge", "learning_rate": 1e30, "max_grad_norm": 0})
    worker.post("/v1/trainer/forward_backward", {"adapter": "diverge", "datums": [datum]})
    worker.post("/v1/trainer/optim_step", {"adapter": "diverge", "learning_rate": 1e30, "max_grad_norm": 0})
    status, answer = worker.request("POST", "/v1/trainer/forward_backward", {"adapter": "diverge", "datums": [datum]})
    assert status == 200 and isinstance(answer, dict)  # parsed as strict JSON by the client helper
    assert answer["loss"] is None  # NaN on the worker, null on the wire
    assert all(value is None for value in answer["logprobs"][0])


def test_tokenize_and_detokenize_as_vllm(worker: RunningWorker) -> None:
    tokenizer = worker.application.engine.tokenizer
    answer = worker.post("/tokenize", {"prompt": "A", "return_token_strs": True})
    assert answer["tokens"] == tokenizer.encode("A", add_special_tokens=False) and answer["count"] == len(answer["tokens"])
    assert "".join(answer["token_strs"]) == "A"
    rendered = worker.post("/tokenize", {"messages": MESSAGES})["tokens"]
    assert rendered == chat(worker, max_tokens=1)["prompt_token_ids"]
    assert worker.post("/detokenize", {"tokens": rendered})["prompt"].endswith("<|im_start|>assistant\n")
    assert worker.request("POST", "/tokenize", {"prompt": 5})[0] == 400
    assert worker.request("POST", "/detokenize", {"tokens": [-1]})[0] == 400


def test_a_prompt_too_long_for_the_context_is_refused_before_tokenizing(worker: RunningWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = worker.application.sampler
    limit = sampler.context_length()
    # Text that needs more tokens than the context even if every token spelled the longest vocabulary entry.
    huge = "y" * (limit * sampler.longest_token_bytes + 1)

    def never(*_arguments: Any, **_keywords: Any) -> None:
        raise AssertionError("the prompt was tokenized")

    monkeypatch.setattr("trace_worker.server.render_prompt", never)
    status, answer = worker.request("POST", "/v1/chat/completions", {"model": worker.application.engine.served_name, "messages": [{"role": "user", "content": huge}]})
    assert status == 400 and answer["error"]["param"] == "messages"
    assert answer["error"]["message"].startswith(f"the prompt has at least {limit} tokens")
    monkeypatch.undo()
    # A prompt under the bound is still tokenized and answered.
    assert_answered(worker)


def test_file_paths_outside_the_file_root_are_refused(engine: Engine, tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    confined = RunningWorker(engine, file_root=str(root))
    try:
        confined.post("/v1/trainer/create_adapter", {"name": "confined", "rank": 2})
        assert confined.post("/v1/trainer/save_adapter", {"adapter": "confined", "path": str(root / "adapters" / "confined")})["path"].startswith(str(root.resolve()))
        for path in [str(tmp_path / "elsewhere"), str(root / ".." / "escaped"), "/tmp/trace-outside"]:
            status, answer = confined.request("POST", "/v1/trainer/save_adapter", {"adapter": "confined", "path": path})
            assert status == 403 and answer["error"]["param"] == "path", answer
        (root / "link").symlink_to(tmp_path)
        assert confined.request("POST", "/v1/trainer/save_state", {"adapter": "confined", "path": str(root / "link" / "state")})[0] == 403
        status, answer = confined.request("POST", "/v1/load_lora_adapter", {"lora_name": "b", "lora_path": str(tmp_path)})
        assert status == 403 and answer["error"]["param"] == "lora_path"
        assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "escaped").exists()
    finally:
        confined.close()
