/**
 * The generation agent: an LLM writes a capability module, which is validated (every gate, in the sandbox) and, when a
 * base policy is given, calibrated; a failing attempt is regenerated with its report fed back, at most `maxAttempts`
 * times. The best attempt is kept with its report.
 */
import type { ChatClient } from "../../models/chat-client.js";
import { isEndpointFailure } from "../../models/endpoint-failure.js";
import type { Message } from "../../spec/message.js";
import { calibrateDifficulty, distanceToWindow, formatCalibrationReport } from "../calibration/calibrate-module.js";
import type { CalibrationOptions, CalibrationReport } from "../calibration/calibrate-module.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import { formatValidationReport } from "../validation/gate-result.js";
import type { ValidationReport } from "../validation/gate-result.js";
import type { SynthesisTarget } from "../validation/target-tools.js";
import { targetTools } from "../validation/target-tools.js";
import { validateModuleSource } from "../validation/validate-module.js";
import type { ValidationOptions } from "../validation/validate-module.js";
import { extractCodeBlock } from "./extract-code-block.js";
import { sdkDocumentation, workedExample } from "./generation-context.js";
import { synthesisPrompt } from "./synthesis-prompts.js";

/** What the module is for. */
export interface CapabilitySpecification {
  /** snake_case name. */
  capability: string;
  description: string;
  /** Example failed trajectories (ids or short renderings) where the agent lacked the capability. */
  examples: readonly string[];
}

/** Options of `generateModule`. */
export interface GenerateModuleOptions extends CapabilitySpecification {
  target: SynthesisTarget;
  /** The target's policy text (τ² `policy.md`), or a note that it is not available. */
  policyText: string;
  /** The LLM that writes modules. */
  generator: ChatClient;
  /** Generator temperature (default 0.7). */
  temperature?: number;
  /** The base policy to calibrate on; without it calibration is skipped. */
  calibrationPolicy?: ChatClient;
  calibration?: Omit<CalibrationOptions, "runner" | "policy">;
  validation?: Omit<ValidationOptions, "target">;
  /** Default 5. */
  maxAttempts?: number;
  /** Called after each attempt (progress). */
  onAttempt?: (attempt: GenerationAttempt) => void;
}

/** One attempt: the source (if a code block came back), its reports, and whether it passed everything. */
export interface GenerationAttempt {
  attempt: number;
  source: string | null;
  validation: ValidationReport | null;
  calibration: CalibrationReport | null;
  /** What stopped the attempt before the gates (no code block, the generator failed). */
  problem: string | null;
  passed: boolean;
}

/** The result: the best attempt (by gates passed, then calibration) and every attempt's report. */
export interface GenerationResult {
  done: boolean;
  best: GenerationAttempt;
  attempts: GenerationAttempt[];
}

/** Runs the generate → validate → calibrate → regenerate loop. */
export async function generateModule(options: GenerateModuleOptions): Promise<GenerationResult> {
  const maxAttempts = options.maxAttempts ?? 5;
  const system = synthesisPrompt("generate-module", { SDK_DOCUMENTATION: sdkDocumentation(), WORKED_EXAMPLE: workedExample(options.target, options.capability) });
  const request = synthesisPrompt("capability-request", {
    TARGET: options.target.name,
    CAPABILITY: options.capability,
    DESCRIPTION: options.description,
    EXAMPLES: options.examples.length === 0 ? "(none given)" : options.examples.map((example) => (example.includes("\n") ? `\`\`\`text\n${example}\n\`\`\`` : `- ${example}`)).join("\n"),
    TOOLS: JSON.stringify(targetTools(options.target), null, 1),
    POLICY: options.policyText,
  });
  const attempts: GenerationAttempt[] = [];
  let conversation: Message[] = [{ role: "user", content: request }];
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let answer = "";
    let result: GenerationAttempt;
    try {
      const completion = await options.generator.complete({ messages: [{ role: "system", content: system }, ...conversation], temperature: options.temperature ?? 0.7 });
      answer = completion.message.content ?? "";
      result = await judge(attempt, extractCodeBlock(answer), options);
    } catch (error) {
      // An endpoint that fails (the generator's, or the policy's during calibration) is not the module's fault: stop.
      if (isEndpointFailure(error)) throw error;
      result = { attempt, source: null, validation: null, calibration: null, problem: error instanceof Error ? error.message : String(error), passed: false };
    }
    attempts.push(result);
    options.onAttempt?.(result);
    if (result.passed) break;
    // Only the latest attempt and its report are kept in the conversation, so the context stays small.
    const feedback = synthesisPrompt("attempt-feedback", { ATTEMPT: attempt, MAX_ATTEMPTS: maxAttempts, REPORT: attemptReport(result) });
    conversation = [{ role: "user", content: request }, { role: "assistant", content: answer }, { role: "user", content: feedback }];
  }
  const best = attempts.reduce((kept, candidate) => (score(candidate) > score(kept) ? candidate : kept));
  return { done: best.passed, best, attempts };
}

async function judge(attempt: number, source: string, options: GenerateModuleOptions): Promise<GenerationAttempt> {
  const validation = await validateModuleSource({ ...options.validation, target: options.target, source });
  let calibration: CalibrationReport | null = null;
  if (validation.passed && options.calibrationPolicy !== undefined) {
    const runner = await loadSandboxedModule({ source });
    try {
      calibration = await calibrateDifficulty({ ...options.calibration, runner, policy: options.calibrationPolicy });
    } finally {
      await runner.dispose();
    }
  }
  return { attempt, source, validation, calibration, problem: null, passed: validation.passed && (calibration === null || calibration.passed) };
}

/** The report fed back to the generator (and written beside the kept module). */
export function attemptReport(attempt: GenerationAttempt): string {
  const parts: string[] = [];
  if (attempt.problem !== null) parts.push(`Problem: ${attempt.problem}`);
  if (attempt.validation !== null) parts.push(formatValidationReport(attempt.validation));
  if (attempt.calibration !== null) parts.push(formatCalibrationReport(attempt.calibration));
  return parts.join("\n");
}

function score(attempt: GenerationAttempt): number {
  const gates = attempt.validation?.gates.filter((gate) => gate.passed).length ?? -1;
  const calibration = attempt.calibration;
  const window = calibration === null ? 0 : calibration.passed ? 1 : 0.5 - Math.min(0.5, distanceToWindow(calibration));
  return gates * 10 + window;
}


