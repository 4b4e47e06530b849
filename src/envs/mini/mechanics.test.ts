import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatClient } from "../../models/chat-client.js";
import type { ChatCompletion, ChatRequest } from "../../models/chat-types.js";
import { runEpisode } from "../../rollout/agent-loop.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import { createModuleEnvironment, nativeModuleRunner } from "../modules/index.js";
import { NO_EXPERT_DEFICITS } from "./expert-deficits.js";
import { countSampledIdentifiers, measureMechanics, type MechanicsDemonstration } from "./mechanics.js";
import { miniTargetModule } from "./mini-capability-modules.js";
import { createScriptedExpert } from "./scripted-expert.js";
import { expertGarblingAfterLookup } from "../../testing/mini-test-clients.js";

async function demonstrations(count: number): Promise<MechanicsDemonstration[]> {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(miniTargetModule(["precondition", "payment", "composite"])), seeds: Array.from({ length: count }, (_, index) => 7000 + index) });
  const result: MechanicsDemonstration[] = [];
  for (const task of environment.tasks()) {
    const episode = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits: NO_EXPERT_DEFICITS }), user: createInstanceUser(environment.instance(task)) });
    result.push({ messages: [{ role: "system", content: environment.systemPrompt(task) }, ...episode.trajectory.messages], tools: environment.tools(task) });
  }
  return result;
}

/** A client that answers as `inner` does, with its answer's text passed through `change`. */
function altered(inner: ChatClient, change: (text: string) => string): ChatClient {
  return {
    async complete(request: ChatRequest): Promise<ChatCompletion> {
      const completion = await inner.complete(request);
      const message = completion.message;
      return {
        ...completion,
        message: {
          ...message,
          content: message.content == null ? message.content : change(message.content),
          ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls.map((call) => ({ ...call, function: { ...call.function, arguments: change(call.function.arguments) } })) }),
        },
      };
    },
    usage: () => inner.usage(),
  };
}

test("the flawless expert has perfect mechanics and always does what the expert did", async () => {
  const list = await demonstrations(20);
  const report = await measureMechanics({ client: createScriptedExpert({ deficits: NO_EXPERT_DEFICITS }), demonstrations: list, maxTokens: 64 });
  assert.equal(report.demonstrations, 20);
  assert.ok(report.toolTurns > 20 && report.identifiers > report.toolTurns, JSON.stringify(report));
  assert.deepEqual([report.toolCallValidity, report.identifierCopying, report.sameAction], [1, 1, report.turns]);
  const { pending, notPending } = report.afterStatus!;
  assert.ok(pending.turns > 0 && notPending.turns > 0, JSON.stringify(report.afterStatus));
  assert.deepEqual([pending.same, notPending.same], [pending.turns, notPending.turns]);
});

test("after a status lookup, a model that acts the same whatever the status reads low on one side", async () => {
  const list = await demonstrations(40);
  // Answers every turn after an order lookup with a refusal, as a base whose lookups ignore the status does.
  const expert = createScriptedExpert({ deficits: NO_EXPERT_DEFICITS });
  const refusesAfterLookup: ChatClient = {
    async complete(request: ChatRequest): Promise<ChatCompletion> {
      const last = request.messages.at(-1);
      if (last?.role === "tool" && last.content.includes('"status"')) return { message: { role: "assistant", content: "Sorry, I cannot cancel that order." }, finishReason: "stop", usage: { promptTokens: 0, completionTokens: 0 }, raw: {} };
      return expert.complete(request);
    },
    usage: () => expert.usage(),
  };
  const report = await measureMechanics({ client: refusesAfterLookup, demonstrations: list, maxTokens: 64 });
  const { pending, notPending } = report.afterStatus!;
  assert.equal(pending.same, 0, JSON.stringify(report.afterStatus));
  assert.ok(pending.turns > 0 && notPending.same > 0, JSON.stringify(report.afterStatus));
  assert.deepEqual([report.toolCallValidity, report.identifierCopying], [1, 1], "the mechanics themselves are untouched");
});

test("garbled digits and broken JSON are counted as mechanics failures; a wrong but real choice is not", async () => {
  const list = await demonstrations(20);
  const expert = createScriptedExpert({ deficits: NO_EXPERT_DEFICITS });
  const garbled = await measureMechanics({ client: altered(expert, (text) => text.replace(/(\d)(\d)\b/g, "$2$1")), demonstrations: list, maxTokens: 64 });
  assert.ok(garbled.identifierCopying < 0.8, JSON.stringify(garbled));
  const broken = await measureMechanics({ client: altered(expert, (text) => (text.startsWith("{") ? text.slice(0, -1) : text)), demonstrations: list, maxTokens: 64 });
  assert.equal(broken.toolCallValidity, 0);
  const wrongChoice = await measureMechanics({ client: createScriptedExpert({ deficits: { ...NO_EXPERT_DEFICITS, wrongPaymentMethod: 1 } }), demonstrations: list, maxTokens: 64 });
  assert.deepEqual([wrongChoice.toolCallValidity, wrongChoice.identifierCopying], [1, 1]);
  assert.ok(wrongChoice.sameAction < wrongChoice.turns);
});

test("a text reply where a call was due is a decision, apart from the calls' form; an unparsed <tool_call> block is a malformed call", async () => {
  const list = await demonstrations(20);
  const stopsEarly = await measureMechanics({ client: createScriptedExpert({ deficits: { ...NO_EXPERT_DEFICITS, stopAfterFirstChange: 1 } }), demonstrations: list, maxTokens: 64 });
  assert.ok(stopsEarly.textAtToolTurns > 0, JSON.stringify(stopsEarly));
  assert.equal(stopsEarly.toolCallValidity, 1);
  assert.ok(stopsEarly.callWhenDue < 1 && stopsEarly.callWhenDue === stopsEarly.validToolCalls / stopsEarly.toolTurns);
  assert.ok(stopsEarly.examples.some((example) => example.problem === "text instead of a tool call"));
  const unparsed: ChatClient = {
    complete: () => Promise.resolve<ChatCompletion>({ message: { role: "assistant", content: '<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "u1"' }, finishReason: "length", usage: { promptTokens: 0, completionTokens: 0 }, raw: {} }),
    usage: () => createScriptedExpert({ deficits: NO_EXPERT_DEFICITS }).usage(),
  };
  const garbled = await measureMechanics({ client: unparsed, demonstrations: list.slice(0, 3), maxTokens: 64 });
  assert.equal(garbled.callAttempts, garbled.turns);
  assert.deepEqual([garbled.wellFormedCalls, garbled.toolCallValidity, garbled.textAtToolTurns], [0, 0, 0]);
  assert.equal(garbled.examples[0]?.problem, "malformed tool call");
});

test("in the model's own episodes, an identifier not yet in the conversation is counted, and only where it is first written", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(miniTargetModule(["precondition", "payment", "composite"])), seeds: Array.from({ length: 20 }, (_, index) => 9000 + index) });
  const expert = createScriptedExpert({ deficits: NO_EXPERT_DEFICITS });
  // After an order lookup, a cancellation naming another order: the id's last two digits swapped.
  const garblesAfterLookup = expertGarblingAfterLookup();
  const play = async (policy: ChatClient) => {
    const episodes = [];
    for (const task of environment.tasks()) {
      const result = await runEpisode({ environment, task, policy, user: createInstanceUser(environment.instance(task)) });
      episodes.push([{ role: "system" as const, content: environment.systemPrompt(task) }, ...result.trajectory.messages]);
    }
    return episodes;
  };
  const flawless = countSampledIdentifiers(await play(expert), 1);
  assert.equal(flawless.episodes, 20);
  assert.ok(flawless.identifiers > 40, JSON.stringify(flawless));
  assert.deepEqual([flawless.identifierCopying, flawless.episodesWithUnseenIdentifier, flawless.examples.length, flawless.temperature], [1, 0, 0, 1]);
  const garbled = countSampledIdentifiers(await play(garblesAfterLookup), 1);
  assert.ok(garbled.episodesWithUnseenIdentifier > 0 && garbled.identifierCopying < 1, JSON.stringify(garbled));
  assert.ok(garbled.examples.every((example) => example.answer.includes(example.identifier)), JSON.stringify(garbled.examples));
  // An id the model wrote first and repeats later is in the conversation by then: counted once as unseen.
  const repeated = countSampledIdentifiers([[{ role: "system", content: "orders: #W12" }, { role: "assistant", content: "#W21" }, { role: "user", content: "ok" }, { role: "assistant", content: "#W21 and #W12" }]], 1);
  assert.deepEqual([repeated.identifiers, repeated.copiedIdentifiers, repeated.episodesWithUnseenIdentifier], [3, 2, 1]);
});
