import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { createTrainerClient } from "./trainer-client.js";
import { describeWorkerMachine } from "./trainer-response-schemas.js";
import { WorkerConnectionError } from "./worker-connection-error.js";
import { WorkerRequestError } from "./worker-request-error.js";
import { WorkerResponseError } from "./worker-response-error.js";
import { WorkerTimeoutError } from "./worker-timeout-error.js";

const forwardBackwardBody = {
  loss: -1.5,
  tokens: 3,
  metrics: { loss_sum: -1.5, loss_per_token: -0.5, clip_fraction: null, approx_kl: 0.01, entropy: 6.9, mean_ratio: 1.0 },
  logprobs: [[-1, -2], [-3]],
};

test("trainer calls send snake_case bodies with the bearer token and map the answers to camelCase", async () => {
  const server = await startFakeChatServer((request, res) => {
    switch (request.path) {
      case "/v1/trainer/create_adapter":
        return sendJson(res, 200, { name: "a1", trainable_parameters: 1234, target_modules: ["q_proj", "v_proj"] });
      case "/v1/trainer/forward_backward": {
        const { logprobs, ...rest } = forwardBackwardBody;
        return sendJson(res, 200, (request.body as { return_logprobs?: boolean }).return_logprobs === false ? rest : { ...rest, logprobs });
      }
      case "/v1/trainer/forward":
        return sendJson(res, 200, { logprobs: [[-0.25]] });
      case "/v1/trainer/optim_step":
        return sendJson(res, 200, { step: 1, grad_norm: 0.5 });
      case "/v1/trainer/export_merged":
        return sendJson(res, 200, { path: "/abs/merged", merged_modules: 14 });
      case "/v1/trainer/adapters":
        return sendJson(res, 200, {
          adapters: [{ name: "a1", rank: 8, alpha: 16, target_modules: ["q_proj"], step: 1, trainable_parameters: 1234, source: "created" }],
        });
      default:
        return sendJson(res, 200, { ok: true });
    }
  });
  try {
    const client = createTrainerClient({ baseUrl: `${server.baseUrl}/`, apiKey: "secret" });
    assert.equal(client.baseUrl, server.baseUrl);

    const created = await client.createAdapter({ name: "a1", rank: 8, targetModules: ["q_proj", "v_proj"] });
    assert.deepEqual(created, { name: "a1", trainableParameters: 1234, targetModules: ["q_proj", "v_proj"] });

    const result = await client.forwardBackward({
      adapter: "a1",
      loss: "ppo",
      lossConfig: { clipLow: 0.9 },
      datums: [
        { tokens: [1, 2], targetTokens: [2, 3], weights: [0, 1], samplingLogprobs: [0, -2.5], advantages: [0, 0.5] },
        { tokens: [4], targetTokens: [5] },
      ],
    });
    assert.deepEqual(result, {
      loss: -1.5,
      tokens: 3,
      metrics: { lossSum: -1.5, clipFraction: null, approxKl: 0.01, entropy: 6.9, meanRatio: 1.0 },
      logprobs: [[-1, -2], [-3]],
    });
    assert.deepEqual(await client.forward({ datums: [{ tokens: [1], targetTokens: [2] }] }), [[-0.25]]);
    const lean = await client.forwardBackward({ adapter: "a1", loss: "cross_entropy", datums: [{ tokens: [4], targetTokens: [5] }], returnLogprobs: false });
    assert.equal("logprobs" in lean, false, "an answer without logprobs maps to a result without them");
    assert.deepEqual(await client.optimStep({ adapter: "a1", learningRate: 0.01, maxGradNorm: 0 }), { step: 1, gradNorm: 0.5 });
    assert.deepEqual(await client.listAdapters(), [
      { name: "a1", rank: 8, alpha: 16, targetModules: ["q_proj"], step: 1, trainableParameters: 1234, source: "created" },
    ]);
    await client.saveAdapter({ adapter: "a1", path: "/tmp/a1" });
    await client.saveAdapter({ adapter: "a1", path: "/tmp/a1-vllm", layout: "per_expert" });
    await client.saveState({ adapter: "a1", path: "/tmp/a1-state" });
    await client.loadState({ adapter: "a2", path: "/tmp/a1-state" });
    assert.deepEqual(await client.exportMerged({ adapter: "a1", path: "merged" }), { path: "/abs/merged", mergedModules: 14 });
    await client.deleteAdapter("a1");

    const sent = server.received.map((request) => [request.method, request.path, request.body]);
    assert.deepEqual(sent, [
      ["POST", "/v1/trainer/create_adapter", { name: "a1", rank: 8, target_modules: ["q_proj", "v_proj"] }],
      [
        "POST",
        "/v1/trainer/forward_backward",
        {
          adapter: "a1",
          loss: "ppo",
          loss_config: { clip_low: 0.9 },
          datums: [
            { tokens: [1, 2], target_tokens: [2, 3], weights: [0, 1], sampling_logprobs: [0, -2.5], advantages: [0, 0.5] },
            { tokens: [4], target_tokens: [5] },
          ],
        },
      ],
      ["POST", "/v1/trainer/forward", { datums: [{ tokens: [1], target_tokens: [2] }] }],
      ["POST", "/v1/trainer/forward_backward", { adapter: "a1", loss: "cross_entropy", datums: [{ tokens: [4], target_tokens: [5] }], return_logprobs: false }],
      ["POST", "/v1/trainer/optim_step", { adapter: "a1", learning_rate: 0.01, max_grad_norm: 0 }],
      ["GET", "/v1/trainer/adapters", {}],
      ["POST", "/v1/trainer/save_adapter", { adapter: "a1", path: "/tmp/a1" }],
      ["POST", "/v1/trainer/save_adapter", { adapter: "a1", path: "/tmp/a1-vllm", layout: "per_expert" }],
      ["POST", "/v1/trainer/save_state", { adapter: "a1", path: "/tmp/a1-state" }],
      ["POST", "/v1/trainer/load_state", { adapter: "a2", path: "/tmp/a1-state" }],
      ["POST", "/v1/trainer/export_merged", { adapter: "a1", path: "merged" }],
      ["POST", "/v1/trainer/delete_adapter", { name: "a1" }],
    ]);
    for (const request of server.received) assert.equal(request.headers.authorization, "Bearer secret", request.path);
  } finally {
    await server.close();
  }
});

test("/health's machine fields (accelerator, library versions) are parsed and described in one line", async () => {
  const versions = { python: "3.11.7", torch: "2.11.0", transformers: "5.17.0", peft: "0.21.0" };
  const server = await startFakeChatServer((_request, res) =>
    sendJson(res, 200, { status: "ok", model: "tiny", device: "cuda:0", dtype: "bfloat16", world_size: 2, deterministic: true, accelerator: "NVIDIA H200", versions }),
  );
  try {
    const health = await createTrainerClient({ baseUrl: server.baseUrl }).health();
    assert.deepEqual(health, { status: "ok", model: "tiny", device: "cuda:0", dtype: "bfloat16", worldSize: 2, deterministic: true, accelerator: "NVIDIA H200", versions });
    assert.equal(describeWorkerMachine(health), "NVIDIA H200 × 2 (cuda:0, bfloat16); torch 2.11.0, transformers 5.17.0, peft 0.21.0; deterministic training on");
    // A worker too old to name its machine still gets a line.
    assert.equal(describeWorkerMachine({ status: "ok", model: "tiny", device: "cpu", dtype: "float32", worldSize: 1, deterministic: false }), "unnamed accelerator (cpu, float32); deterministic training off");
  } finally {
    await server.close();
  }
});

test("sampler admin: /v1/models, load and unload LoRA adapters (text answers); /health goes without the token", async () => {
  const server = await startFakeChatServer((request, res) => {
    if (request.path === "/health") return sendJson(res, 200, { status: "ok", model: "tiny", device: "cpu", dtype: "float32", world_size: 1 });
    if (request.path === "/v1/models") {
      return sendJson(res, 200, {
        object: "list",
        data: [
          { id: "tiny", object: "model", owned_by: "trace-worker", root: "tiny", parent: null },
          { id: "a1", object: "model", root: "tiny", parent: "tiny" },
        ],
      });
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("Success: LoRA adapter 'a1' added successfully.");
  });
  try {
    const client = createTrainerClient({ baseUrl: server.baseUrl, apiKey: "secret" });
    assert.deepEqual(await client.health(), { status: "ok", model: "tiny", device: "cpu", dtype: "float32", worldSize: 1, deterministic: false });
    assert.deepEqual(await client.listModels(), [
      { id: "tiny", root: "tiny", parent: null },
      { id: "a1", root: "tiny", parent: "tiny" },
    ]);
    await client.loadLoraAdapter({ loraName: "a1", loraPath: "/tmp/a1" });
    await client.unloadLoraAdapter({ loraName: "a1" });
    const [health, models, load, unload] = server.received;
    assert.equal(health?.headers.authorization, undefined);
    assert.equal(models?.headers.authorization, "Bearer secret");
    assert.deepEqual([load?.path, load?.body], ["/v1/load_lora_adapter", { lora_name: "a1", lora_path: "/tmp/a1" }]);
    assert.deepEqual([unload?.path, unload?.body], ["/v1/unload_lora_adapter", { lora_name: "a1" }]);
  } finally {
    await server.close();
  }
});

test("refusals become WorkerRequestError with the status and the worker's message and param", async () => {
  const server = await startFakeChatServer((request, res) => {
    if (request.path === "/v1/trainer/forward_backward") {
      return sendJson(res, 400, { error: { message: "datums[0].target_tokens has 1 entries but tokens has 2", type: "invalid_request_error", param: "datums[0].target_tokens" } });
    }
    if (request.path === "/v1/trainer/optim_step") return sendJson(res, 404, { error: { message: "no adapter named 'nope'", type: "not_found_error", param: "adapter" } });
    res.writeHead(502, { "content-type": "text/plain" });
    res.end("Bad Gateway");
  });
  try {
    const client = createTrainerClient({ baseUrl: server.baseUrl });
    const badDatum = client.forwardBackward({ adapter: "a1", loss: "cross_entropy", datums: [{ tokens: [1, 2], targetTokens: [2] }] });
    await assert.rejects(badDatum, (error: unknown) => {
      assert.ok(WorkerRequestError.isInstance(error));
      assert.equal(error.status, 400);
      assert.equal(error.param, "datums[0].target_tokens");
      assert.equal(error.type, "invalid_request_error");
      assert.equal(error.workerMessage, "datums[0].target_tokens has 1 entries but tokens has 2");
      assert.match(error.message, /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/trainer\/forward_backward → 400: datums\[0\]/);
      return true;
    });
    await assert.rejects(client.optimStep({ adapter: "nope" }), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 404 && error.param === "adapter");
    await assert.rejects(client.listAdapters(), (error: unknown) => {
      assert.ok(WorkerRequestError.isInstance(error));
      assert.deepEqual([error.status, error.workerMessage, error.param, error.type], [502, "Bad Gateway", null, null]);
      return true;
    });
  } finally {
    await server.close();
  }
});

test("a 2xx answer of the wrong shape is a WorkerResponseError naming each problem", async () => {
  const server = await startFakeChatServer((request, res) => {
    if (request.path === "/v1/trainer/optim_step") return sendJson(res, 200, "NaN-ish: not json {");
    sendJson(res, 200, { ...forwardBackwardBody, tokens: "three", metrics: { ...forwardBackwardBody.metrics, entropy: undefined } });
  });
  try {
    const client = createTrainerClient({ baseUrl: server.baseUrl });
    await assert.rejects(client.forwardBackward({ adapter: "a1", loss: "cross_entropy", datums: [{ tokens: [1], targetTokens: [2] }] }), (error: unknown) => {
      assert.ok(WorkerResponseError.isInstance(error));
      assert.equal(error.problems.length, 2);
      assert.match(error.problems.join("\n"), /^tokens: /m);
      assert.match(error.problems.join("\n"), /^metrics\.entropy: /m);
      return true;
    });
    await assert.rejects(client.optimStep({ adapter: "a1" }), (error: unknown) => WorkerResponseError.isInstance(error) && /body is not JSON/.test(error.message));
    await assert.rejects(
      client.exportMerged({ adapter: "a1", path: "/m" }),
      (error: unknown) => WorkerResponseError.isInstance(error) && error.problems.some((problem) => problem.startsWith("path: ")),
    );
  } finally {
    await server.close();
  }
});

test("a worker that does not answer in time is a WorkerTimeoutError; no worker listening is a WorkerConnectionError", async () => {
  const server = await startFakeChatServer(() => {
    // never answers
  });
  try {
    const client = createTrainerClient({ baseUrl: server.baseUrl, timeoutMs: 5_000 });
    await assert.rejects(client.listAdapters({ timeoutMs: 100 }), (error: unknown) => WorkerTimeoutError.isInstance(error) && error.timeoutMs === 100);
  } finally {
    await server.close();
  }
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
  const client = createTrainerClient({ baseUrl: `http://127.0.0.1:${port}/v1` });
  await assert.rejects(client.health(), (error: unknown) => WorkerConnectionError.isInstance(error) && /ECONNREFUSED/.test(error.message));
});
