import assert from "node:assert/strict";
import { test } from "node:test";
import { createChatClient } from "../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { discoverCapabilities, validateCandidates } from "./discover-capabilities.js";
import { DiscoveryFailedError } from "./discovery-failed-error.js";

const trajectories = Array.from({ length: 6 }, (_, index) => ({ key: `toy:${index}`, failed: index % 2 === 1, reward: index % 2, text: `### toy:${index}\n${"z".repeat(3000)}` }));
const proposal = (name: string, example: string) => ({ candidates: [{ name, description: "Two sentences. Here.", example_trajectories: [{ task_id: example, reward: 0, note: "n" }] }] });

test("trajectories too many for one prompt are discovered in parts and the proposals merged", async () => {
  const prompts: string[] = [];
  const server = await startFakeChatServer((request, res) => {
    const prompt = (request.body.messages as { content: string }[])[0]?.content ?? "";
    prompts.push(prompt);
    const body = prompt.includes("Merge these proposals") ? proposal("merged_capability", "toy:1") : proposal(`part_capability_${prompts.length}`, "toy:0");
    sendJson(res, 200, chatBody({ content: JSON.stringify(body) }));
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "analyst", maxRetries: 0, maxConcurrency: 1 });
    const result = await discoverCapabilities({ client, trajectories, budgetTokens: 3000, maxAttempts: 1 });
    assert.deepEqual(result.candidates.map((candidate) => candidate.name), ["merged_capability"]);
    const parts = prompts.filter((prompt) => !prompt.includes("Merge these proposals"));
    assert.ok(parts.length >= 2, `${parts.length} parts`);
    assert.equal(trajectories.filter((trajectory) => parts.some((prompt) => prompt.includes(`### ${trajectory.key}\n`))).length, 6, "every trajectory is read once");
    assert.match(prompts.at(-1) ?? "", /part_capability_1/);
  } finally {
    await server.close();
  }
});

test("discovery that never validates fails with the problems; candidates are checked for shape, names, size and example ids", async () => {
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: JSON.stringify(proposal("Not Snake", "toy:0")) })));
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "analyst", maxRetries: 0 });
    await assert.rejects(discoverCapabilities({ client, trajectories: trajectories.slice(0, 1), budgetTokens: 10_000, maxAttempts: 2 }), (error: unknown) => {
      return error instanceof DiscoveryFailedError && error.attempts === 2 && /must be snake_case/.test(error.message);
    });
  } finally {
    await server.close();
  }
  const keys = new Set(["toy:0"]);
  assert.equal(validateCandidates(proposal("good_name", "toy:9"), keys, 10).ok, false);
  assert.equal(validateCandidates({ candidates: [...proposal("a_b", "toy:0").candidates, ...proposal("a_b", "toy:0").candidates] }, keys, 10).ok, false);
  assert.equal(validateCandidates({ candidates: Array.from({ length: 11 }, (_, index) => proposal(`c${index}`, "toy:0").candidates[0]) }, keys, 10).ok, false);
  assert.equal(validateCandidates(proposal("good_name", "toy:0"), keys, 10).ok, true);
});
