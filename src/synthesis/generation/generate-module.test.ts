import assert from "node:assert/strict";
import { test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";
import { extractCodeBlock, MissingCodeBlockError } from "./extract-code-block.js";
import { generateModule } from "./generate-module.js";
import { parseSynthesisTarget } from "../validation/target-tools.js";

const broken = minimalModuleSource({ generate: "Math.random();" });
const fixed = minimalModuleSource();
const answer = (source: string) => `Plan: one reservation to cancel.\n\n\`\`\`ts\n${source}\`\`\`\n`;
const capability = { capability: "minimal_task", description: "Cancel the named reservation.", examples: ["airline task 3: cancelled the wrong reservation"], target: parseSynthesisTarget("tau2-airline"), policyText: "Cancel only what the user asks." };

test("the generation loop feeds the report back and keeps the fixed second attempt", async () => {
  const server = await startFakeChatServer((_request, res, index) => sendJson(res, 200, chatBody({ content: answer(index === 0 ? broken : fixed) })));
  try {
    const generator = createChatClient({ baseUrl: server.baseUrl, model: "writer" });
    const result = await generateModule({ ...capability, generator, validation: { seeds: [0, 1, 2, 3, 4], determinismSeeds: [0, 1] } });
    assert.equal(result.done, true);
    assert.equal(result.attempts.length, 2);
    assert.equal(result.attempts[0]?.passed, false);
    assert.match(result.attempts[0]?.validation?.gates[0]?.details[0] ?? "", /nondeterminism: .*Math\.random/);
    assert.equal(result.best.attempt, 2);
    assert.equal(result.best.source, fixed);

    const first = server.received[0]?.body.messages as { role: string; content: string }[];
    assert.equal(first.length, 2);
    assert.match(first[0]?.content ?? "", /export interface CapabilityModule/, "the SDK documentation is in the system prompt");
    assert.match(first[0]?.content ?? "", /export default/, "a worked example is in the system prompt");
    assert.match(first[1]?.content ?? "", /minimal_task[\s\S]*cancel_reservation[\s\S]*Cancel only what the user asks/);
    const second = server.received[1]?.body.messages as { role: string; content: string }[];
    assert.deepEqual(second.map((message) => message.role), ["system", "user", "assistant", "user"]);
    assert.match(second[3]?.content ?? "", /attempt 1 of 5[\s\S]*FAIL compiles and exports the SDK shape/);
  } finally {
    await server.close();
  }
});

test("after five failing attempts the best one is kept with its report; answers without code are attempts too", async () => {
  const server = await startFakeChatServer((_request, res, index) =>
    sendJson(res, 200, chatBody({ content: index === 0 ? "I cannot write code." : answer(index === 3 ? minimalModuleSource({ verify: "return { reward: 1, success: true, breakdown: {} };" }) : broken) })),
  );
  try {
    const generator = createChatClient({ baseUrl: server.baseUrl, model: "writer" });
    const result = await generateModule({ ...capability, generator, validation: { seeds: [0, 1, 2], determinismSeeds: [0] } });
    assert.equal(result.done, false);
    assert.equal(result.attempts.length, 5);
    assert.match(result.attempts[0]?.problem ?? "", /no fenced code block/);
    assert.equal(result.best.attempt, 4, "the always-succeeding verifier passes the most gates");
    assert.deepEqual(result.best.validation?.gates.filter((gate) => !gate.passed).map((gate) => gate.name), ["do-nothing policy fails", "read-only policy fails"]);
  } finally {
    await server.close();
  }
});

test("the code block is the last TypeScript fence", () => {
  assert.equal(extractCodeBlock("```json\n{}\n```\n```ts\nconst a = 1;\n```\n```typescript\nconst b = 2;\n```"), "const b = 2;\n");
  assert.equal(extractCodeBlock("```\nplain\n```"), "plain\n");
  assert.throws(() => extractCodeBlock("no code"), MissingCodeBlockError);
});
