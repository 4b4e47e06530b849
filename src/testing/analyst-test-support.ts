/** Test support: a store of small synthetic trajectories and a scripted analyst for the fake chat server. */
import type { ServerResponse } from "node:http";
import { chatBody, sendJson, type ReceivedRequest } from "./fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";

/** Writes `count` finished episodes of environment `toy` (task i succeeds when i is even) into `file`. */
export function writeToyStore(file: string, count: number): void {
  const store = openTrajectoryStore(file);
  try {
    for (let index = 0; index < count; index++) {
      const key = { environment: "toy", taskId: String(index), trial: 0 };
      const success = index % 2 === 0;
      store.finishEpisode(key, {
        ...key,
        termination: "user_stop",
        reward: { reward: success ? 1 : 0, success, breakdown: {} },
        messages: [
          { role: "user", content: `Please update record ${index}.` },
          { role: "assistant", content: null, tool_calls: [{ id: `c${index}`, type: "function", function: { name: "update_record", arguments: JSON.stringify({ record_id: String(index) }) } }] },
          { role: "tool", tool_call_id: `c${index}`, content: success ? `{"record_id": "${index}", "status": "updated"}` : "Error: record not found" },
          { role: "assistant", content: success ? "Done." : "I could not do it." },
        ],
      });
    }
  } finally {
    store.close();
  }
}

/** What a labeling request asks about. */
export function labelingRequest(request: ReceivedRequest): { keys: string[]; attempt: number } | undefined {
  const messages = request.body.messages as { role: string; content: string }[];
  const first = messages[0]?.content ?? "";
  if (!first.includes("contrastive capability labeling agent")) return undefined;
  const match = /Trajectories \(\d+: ([^)]*)\):/.exec(first);
  return { keys: (match?.[1] ?? "").split(", "), attempt: (messages.length + 1) / 2 };
}

export function isDiscoveryRequest(request: ReceivedRequest): boolean {
  const messages = request.body.messages as { content: string }[];
  return (messages[0]?.content ?? "").includes("capability discovery agent");
}

/** The toy dictionary: `state_tracking` is LACKING exactly on failed tasks, `politeness` is PRESENT everywhere. */
export const TOY_CANDIDATES = {
  candidates: [
    { name: "state_tracking", description: "Keeps track of records. LACKING when it acts on a record it never found.", example_trajectories: [{ task_id: "toy:1", reward: 0, note: "lost the record" }] },
    { name: "politeness", description: "Answers politely. LACKING when rude.", example_trajectories: [{ task_id: "toy:0", reward: 1, note: "polite" }] },
  ],
};

/** Correct labels of the toy trajectories (odd task ids failed). */
export function toyLabels(keys: readonly string[]): Record<string, Record<string, string>> {
  return Object.fromEntries(keys.map((key) => [key, { state_tracking: Number(key.split(":")[1]) % 2 === 1 ? "LACKING" : "PRESENT", politeness: "PRESENT" }]));
}

export function reply(res: ServerResponse, content: string): void {
  sendJson(res, 200, chatBody({ content }));
}
