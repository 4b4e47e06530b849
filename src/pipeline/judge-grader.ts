/**
 * An LLM judge as an MCP target's grader (`target.mcp.grader.judge`): the `judge` role reads the task, its rubric and
 * the conversation and answers `{"reward", "reason"}`. Weaker than a programmatic check (it sees only the
 * conversation, not the server's state, and can be talked into a pass); documented as such.
 */
import path from "node:path";
import { extractJsonObject } from "../analysis/model-json.js";
import { renderTrajectory } from "../rollout/render-trajectory.js";
import type { GradeInput, GradeResult } from "../envs/custom/target-module.js";
import type { ChatClient } from "../models/chat-client.js";
import { fillPromptFile, PROMPTS_ROOT } from "../prompts/prompt-file.js";
import { TraceError } from "../spec/trace-error.js";

/** A judge that never gave a usable answer; carries its last reply. */
export class JudgeAnswerError extends TraceError {
  override readonly name = "JudgeAnswerError";
  constructor(
    readonly taskId: string,
    readonly reply: string,
    problem: string,
  ) {
    super(`the judge's answer for task ${taskId} is unusable: ${problem}`, { category: "endpoint" });
  }
}

/** A grader function on a judge client (`attempts` replies are tried before giving up). */
export function createJudgeGrader(options: { client: ChatClient; temperature: number; attempts?: number }): (input: GradeInput) => Promise<GradeResult> {
  return async (input) => {
    const conversation = renderTrajectory(
      { key: input.task.id, failed: false, reward: null, termination: input.termination, messages: input.messages },
      { maxToolResultChars: 2000, maxMessageChars: 4000 },
    ).text.split("\n").slice(1).join("\n");
    const prompt = fillPromptFile(path.join(PROMPTS_ROOT, "targets/judge.md"), {
      INSTRUCTIONS: input.task.instructions,
      RUBRIC: input.task.rubric ?? "The user's request in the task is fully carried out, correctly, and nothing the user did not ask for was changed.",
      CONVERSATION: conversation,
    });
    let reply = "";
    let problem = "no reply";
    for (let attempt = 0; attempt < (options.attempts ?? 3); attempt += 1) {
      const completion = await options.client.complete({ messages: [{ role: "user", content: prompt }], temperature: options.temperature });
      reply = completion.message.content ?? "";
      const parsed = extractJsonObject(reply);
      if (!parsed.ok) {
        problem = parsed.problem;
        continue;
      }
      const answer = parsed.value as { reward?: unknown; reason?: unknown };
      if (typeof answer.reward !== "number" || !Number.isFinite(answer.reward) || answer.reward < 0 || answer.reward > 1) {
        problem = `reward ${JSON.stringify(answer.reward)} is not a number in [0, 1]`;
        continue;
      }
      return { reward: answer.reward, breakdown: { judge: answer.reward }, details: { judge: typeof answer.reason === "string" ? answer.reason : "" } };
    }
    throw new JudgeAnswerError(input.task.id, reply, problem);
  };
}
