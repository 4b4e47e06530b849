/**
 * The contract of a capability environment module (TRACE step 3): what hand-written and LLM-generated modules export.
 *
 * A module is one self-contained TypeScript file with no imports (generated ones run in a sandbox with no host
 * access); its default export is a `CapabilityModule`. Every function is pure and deterministic: all randomness comes
 * from `sdk.random(seed)`, time from `sdk.now` (a fixed instant), and state is plain JSON passed in and returned, so
 * the host can run the module natively or in the sandbox and marshal everything as JSON.
 */

/** A JSON value (what crosses the sandbox boundary). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** OpenAI function-tool shape (as `src/spec/tool-spec.ts`), kept JSON-only here. */
export interface ModuleTool {
  type: "function";
  function: { name: string; description: string; parameters: { [key: string]: Json } };
}

/** A tool call of the ground-truth solution: name and arguments. */
export interface SolutionCall {
  name: string;
  arguments: { [key: string]: Json };
}

/** One generated task: everything an episode needs, JSON only. */
export interface ModuleInstance {
  /** The environment's state before the first tool call (e.g. small users / reservations / flights tables). */
  state: { [key: string]: Json };
  /** The user's first message. */
  request: string;
  /** What the scripted user says next, in order, each time the agent replies with text; then it sends ###STOP###. */
  followUps: string[];
  /** Ground truth: the tool calls that solve the task (replayed by the host to check solvability)… */
  solution: SolutionCall[];
  /** …and the information the agent must state in its replies (substrings), if any. */
  mustSay: string[];
  /** Anything else the verifier needs (e.g. the id the task is about). */
  facts: { [key: string]: Json };
}

/** The result of one tool call: the observation text and the state after it. */
export interface ToolOutcome {
  output: string;
  /** True when the call failed (bad arguments, policy refusal): the observation starts with "Error:". */
  error: boolean;
  state: { [key: string]: Json };
}

/** What the verifier sees: the instance, the agent's tool calls with their outcomes, its text replies, the final state. */
export interface VerifierInput {
  instance: ModuleInstance;
  calls: { name: string; arguments: { [key: string]: Json }; output: string; error: boolean }[];
  replies: string[];
  finalState: { [key: string]: Json };
}

/** The verifier's verdict: reward in [0, 1], success, and named components. */
export interface Verdict {
  reward: number;
  success: boolean;
  breakdown: { [key: string]: number };
}

/** Helpers the host hands to every module function (implemented identically natively and in the sandbox). */
export interface ModuleSdk {
  /** A deterministic pseudo-random generator seeded by `seed` (mulberry32): `next()` in [0, 1), `int(min, max)` inclusive, `pick(items)`, `shuffle(items)`. */
  random(seed: number): { next(): number; int(min: number, max: number): number; pick<T>(items: readonly T[]): T; shuffle<T>(items: readonly T[]): T[] };
  /** The fixed "current time" of every episode (ISO 8601), as τ² fixes now. */
  now: string;
  /** A canonical JSON string (sorted keys) of a value, for comparing or hashing states. */
  canonical(value: Json): string;
  /** A short stable hash (hex) of `canonical(value)`. */
  hash(value: Json): string;
}

/** A module's difficulty levels (see `CapabilityModule.difficulty`). */
export interface ModuleDifficulty {
  /** How many levels (at least 2). */
  levels: number;
  /** The level used when none is chosen. */
  initial: number;
  /** What a higher level changes, for reports. */
  description: string;
}

/** The default export of a capability environment module. */
export interface CapabilityModule {
  /** snake_case capability name, e.g. `precondition_verification`. */
  capability: string;
  /** What the capability is, as analysis described it. */
  description: string;
  /** The policy text given to the agent (the target's constraints that this environment keeps). */
  policy: string;
  /** Tools offered to the agent; names and argument schemas match the target's tools unless listed in `newTools`. */
  tools: ModuleTool[];
  /** Tools that do not exist in the target environment, each with the reason it is needed. */
  newTools?: { name: string; reason: string }[];
  /** Which tools only read state (used by the validation gate that plays a read-only policy). */
  readTools: string[];
  /**
   * A difficulty `generate` takes: integer levels 0 … `levels` − 1, harder upwards (more look-alike ids, more parts, …).
   * Calibration on the base policy picks the level (starting at `initial`) whose rewards fall in the calibration window;
   * a module without it is calibrated as it is.
   */
  difficulty?: ModuleDifficulty;
  /** `difficulty` is a level of `this.difficulty` (its `initial` when the host passes none); a module without levels ignores it. */
  generate(seed: number, sdk: ModuleSdk, difficulty?: number): ModuleInstance;
  runTool(state: { [key: string]: Json }, name: string, args: { [key: string]: Json }, sdk: ModuleSdk): ToolOutcome;
  verify(input: VerifierInput, sdk: ModuleSdk): Verdict;
}
