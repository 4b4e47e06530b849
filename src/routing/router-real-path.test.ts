/** The router against the real worker (tiny checkpoint): labels are single tokens of its tokenizer, label logprobs come from the sampler, a decision is returned. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createChatClient } from "../models/chat-client.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { createRouter } from "./create-router.js";
import { LabelNotSingleTokenError } from "./label-not-single-token-error.js";
import type { RoutingOption } from "./routing-option.js";
import { createTokenizeClient } from "../models/tokenize-client.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-router-"));
let worker: WorkerProcess | undefined;

before(async () => {
  const checkpoint = path.join(scratch, "tiny");
  await promisify(execFile)(process.execPath, [bin, "model", "init-tiny", checkpoint, "--seed", "2"]);
  worker = await startWorker({ model: checkpoint, servedModelName: "base" });
});

after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const options = (labels: string[]): RoutingOption[] => [
  { label: labels[0]!, capability: "tool_calling_precision", model: "tool_calling_precision", description: "exact ids and arguments", example: "user: pay order #W1\nagent → modify_pending_order_payment({})" },
  { label: labels[1]!, capability: "multi_step_completion", model: "multi_step_completion", description: "every requested change", example: "user: cancel both\nagent: done" },
  { label: labels[2]!, capability: null, model: "base", description: "", example: "" },
];

test("labels are single tokens of the worker's tokenizer and the decision uses the sampler's label logprobs", { timeout: 120_000 }, async () => {
  const chat = createChatClient({ baseUrl: worker!.baseUrl, apiKey: worker!.apiKey!, model: "base", maxRetries: 0 });
  const tokenize = createTokenizeClient({ baseUrl: worker!.baseUrl, apiKey: worker!.apiKey! });
  const router = await createRouter({ chat, tokenize, options: options(["A", "B", "C"]) });
  assert.equal(new Set(router.tokenIds).size, 3);
  const decision = await router.route("I want to cancel my reservation 4WQ150 and get a refund.");
  assert.equal(decision.source, "label_logprobs");
  assert.ok(decision.logprobs.every((entry) => entry.logprob !== null && entry.logprob <= 0));
  const best = Math.max(...decision.logprobs.map((entry) => entry.logprob!));
  assert.equal(decision.logprobs.find((entry) => entry.label === decision.label)!.logprob, best);
  assert.ok(["A", "B", "C"].includes(decision.label));
});

test("a label the worker's tokenizer splits is refused with its name", { timeout: 60_000 }, async () => {
  const chat = createChatClient({ baseUrl: worker!.baseUrl, apiKey: worker!.apiKey!, model: "base", maxRetries: 0 });
  const tokenize = createTokenizeClient({ baseUrl: worker!.baseUrl, apiKey: worker!.apiKey! });
  const long = "Xq7ZvKw9Jp";
  await assert.rejects(createRouter({ chat, tokenize, options: options(["A", long, "C"]) }), (error: unknown) => error instanceof LabelNotSingleTokenError && error.label === long);
});

test("a worker the project starts demands a random token: an anonymous or wrong one gets 401", async () => {
  assert.match(worker!.apiKey ?? "", /^[0-9a-f]{48}$/);
  for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[]) assert.equal((await fetch(`${worker!.baseUrl}/models`, { headers })).status, 401);
  assert.equal((await fetch(`${worker!.baseUrl}/models`, { headers: { authorization: `Bearer ${worker!.apiKey!}` } })).status, 200);
});
