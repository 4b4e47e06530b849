/**
 * Adversarial policies for the validation gates, built from what every instance offers: the ground-truth solution,
 * the read/write classification of the tools (`readTools`), the tools' argument schemas and the state's entities.
 *
 * - Changed argument: the ground truth with one write call's argument changed (another entity of the same kind, another
 *   enum value, a number plus one, a flipped boolean).
 * - Unrequested writes: the ground truth followed by one extra write, and by every extra write (the solution's write
 *   tools repeated over every entity of the same kind: "write everything").
 *
 * Only probes whose final state differs from the ground truth's are played: a changed call that fails, or an extra
 * write the tools refuse, leaves the ground truth's outcome, which an honest verifier rightly accepts. A verifier that
 * accepts a different final state is lax ("success if any cancellation succeeded").
 */
import type { Json, ModuleInstance, ModuleTool, SolutionCall, VerifierInput } from "./capability-module.js";
import type { ModuleRunner } from "./module-runner.js";
import { createModuleSdk } from "./module-sdk.js";
import { solutionReply } from "./module-policies.js";
import { executeModuleToolCall } from "./module-tool-call.js";

type State = { [key: string]: Json };
type Path = (string | number)[];

/** The ground truth replayed call by call: the executed calls, and the state before each call and at the end. */
export interface GroundTruthReplay {
  instance: ModuleInstance;
  calls: VerifierInput["calls"];
  /** `states[i]` is the state before call `i`; `states[calls.length]` the final state. */
  states: State[];
}

/** A policy's verifier input and what it did differently from the ground truth. */
export interface AdversarialInput {
  input: VerifierInput;
  description: string;
}

/** Limits of the probes (defaults: 3 tries, 8 extra writes). */
export interface ProbeLimits {
  /** Changed calls or single extra writes tried per seed before giving up on finding one that changes the final state. */
  maximumTries?: number;
  /** Extra writes the write-everything policy makes at most. */
  maximumExtraWrites?: number;
}

const canonical = (value: unknown): string => createModuleSdk().canonical(value as Json);

const isRecord = (value: Json | undefined): value is { [key: string]: Json } => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Other values of the same kind as `value` in `state`: the other keys of an object keyed by it, the other strings of
 * an array holding it, and the same field of the other records beside a record whose field holds it.
 */
export function siblingValues(state: Json, value: string): string[] {
  const found = new Set<string>();
  let visited = 0;
  const visit = (node: Json, depth: number): void => {
    if (depth > 12 || visited > 20_000 || node === null || typeof node !== "object") return;
    visited += 1;
    const children: Json[] = Array.isArray(node) ? node : Object.values(node);
    if (Array.isArray(node)) {
      if (node.includes(value)) for (const item of node) if (typeof item === "string") found.add(item);
    } else if (Object.hasOwn(node, value)) for (const key of Object.keys(node)) found.add(key);
    const records = children.filter(isRecord);
    for (const record of records) {
      for (const [field, fieldValue] of Object.entries(record)) {
        if (fieldValue !== value) continue;
        for (const other of records) if (typeof other[field] === "string") found.add(other[field]);
      }
    }
    for (const child of children) visit(child, depth + 1);
  };
  visit(state, 0);
  found.delete(value);
  return [...found];
}

/** The JSON schema of the argument at `path` (through `properties` and `items`), if the tool declares one. */
function schemaAt(parameters: { [key: string]: Json }, path: Path): { [key: string]: Json } | undefined {
  let schema: Json | undefined = parameters;
  for (const segment of path) {
    if (!isRecord(schema)) return undefined;
    if (typeof segment === "number") schema = schema.items;
    else {
      const properties: Json | undefined = schema.properties;
      schema = isRecord(properties) ? properties[segment] : undefined;
    }
  }
  return isRecord(schema) ? schema : undefined;
}

function leaves(value: Json, path: Path, depth: number, into: { path: Path; value: string | number | boolean }[]): void {
  if (depth > 6) return;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") into.push({ path, value });
  else if (Array.isArray(value)) value.forEach((item, index) => leaves(item, [...path, index], depth + 1, into));
  else if (value !== null) for (const [key, item] of Object.entries(value)) leaves(item, [...path, key], depth + 1, into);
}

function replaced(value: Json, path: Path, replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === "number") return value.map((item, index) => (index === head ? replaced(item, rest, replacement) : item));
  if (isRecord(value) && typeof head === "string") return { ...value, [head]: replaced(value[head] ?? null, rest, replacement) };
  return value;
}

/**
 * The call with one argument changed, every way that is plausible: a string becomes another entity of the same kind
 * in `state` or another value of the tool's enum, a number grows by one, a boolean flips. Ordered so that the first
 * variants change different arguments; at most `limit`.
 */
export function argumentVariants(tools: readonly ModuleTool[], state: State, call: SolutionCall, limit: number): { call: SolutionCall; description: string }[] {
  const tool = tools.find((candidate) => candidate.function.name === call.name);
  const found: { path: Path; value: string | number | boolean }[] = [];
  leaves(call.arguments, [], 0, found);
  const candidates = found.map(({ path, value }) => {
    let others: Json[] = [];
    if (typeof value === "string") {
      const enumeration = tool === undefined ? undefined : schemaAt(tool.function.parameters, path)?.enum;
      const enumerated = Array.isArray(enumeration) ? enumeration.filter((item): item is string => typeof item === "string" && item !== value) : [];
      others = [...new Set([...enumerated, ...siblingValues(state, value)])];
    } else if (typeof value === "number") others = [value + 1];
    else others = [!value];
    return { path, value, others };
  });
  const variants: { call: SolutionCall; description: string }[] = [];
  const longest = Math.max(0, ...candidates.map((candidate) => candidate.others.length));
  for (let round = 0; round < longest && variants.length < limit; round += 1) {
    for (const { path, value, others } of candidates) {
      const other = others[round];
      if (other === undefined || variants.length >= limit) continue;
      const argumentsChanged = replaced(call.arguments, path, other) as { [key: string]: Json };
      variants.push({ call: { name: call.name, arguments: argumentsChanged }, description: `${call.name} ${path.join(".")} ${JSON.stringify(value)} → ${JSON.stringify(other)}` });
    }
  }
  return variants;
}

async function execute(runner: ModuleRunner, state: State, call: SolutionCall): Promise<{ call: VerifierInput["calls"][number]; state: State }> {
  const result = await executeModuleToolCall(runner, state, call.name, JSON.stringify(call.arguments));
  return { call: { name: result.name, arguments: result.arguments, output: result.output, error: result.error }, state: result.state };
}

/** Replays the instance's solution from its initial state, keeping every intermediate state. */
export async function replayGroundTruth(runner: ModuleRunner, instance: ModuleInstance): Promise<GroundTruthReplay> {
  const states: State[] = [instance.state];
  const calls: VerifierInput["calls"] = [];
  let state = instance.state;
  for (const call of instance.solution) {
    const result = await execute(runner, state, call);
    calls.push(result.call);
    state = result.state;
    states.push(state);
  }
  return { instance, calls, states };
}

/** The ground truth's verifier input (its calls, then a reply stating every `mustSay` item). */
export function groundTruthInput(replay: GroundTruthReplay): VerifierInput {
  return { instance: replay.instance, calls: replay.calls, replies: [solutionReply(replay.instance)], finalState: replay.states[replay.calls.length] ?? replay.instance.state };
}

function writeIndices(runner: ModuleRunner, replay: GroundTruthReplay): number[] {
  return replay.instance.solution.flatMap((call, index) => (runner.readTools.includes(call.name) ? [] : [index]));
}

/**
 * The ground truth with one write call's argument changed, the first such (of at most `maximumTries`, spread over the
 * write calls) whose final state differs from the ground truth's; null when none does (e.g. no write call).
 */
export async function changedArgumentInput(runner: ModuleRunner, replay: GroundTruthReplay, limits: ProbeLimits = {}): Promise<AdversarialInput | null> {
  const maximumTries = limits.maximumTries ?? 3;
  const solution = replay.instance.solution;
  const finalState = canonical(replay.states[solution.length]);
  const perWrite = writeIndices(runner, replay).map((index) => ({ index, variants: argumentVariants(runner.tools, replay.states[index] ?? {}, solution[index] as SolutionCall, maximumTries) }));
  const order: { index: number; variant: { call: SolutionCall; description: string } }[] = [];
  for (let round = 0; round < maximumTries; round += 1) {
    for (const { index, variants } of perWrite) {
      const variant = variants[round];
      if (variant !== undefined) order.push({ index, variant });
    }
  }
  for (const { index, variant } of order.slice(0, maximumTries)) {
    let state = replay.states[index] ?? replay.instance.state;
    const calls = replay.calls.slice(0, index);
    for (const call of [variant.call, ...solution.slice(index + 1)]) {
      const result = await execute(runner, state, call);
      calls.push(result.call);
      state = result.state;
    }
    if (canonical(state) === finalState) continue;
    return { input: { instance: replay.instance, calls, replies: [solutionReply(replay.instance)], finalState: state }, description: `call ${index + 1} changed: ${variant.description}` };
  }
  return null;
}

/**
 * Writes the ground truth did not make: each of the solution's write calls with one argument changed (another entity,
 * enum value or number), spread over the write calls and arguments, without repeats; at most `maximumExtraWrites`.
 */
function extraWrites(runner: ModuleRunner, replay: GroundTruthReplay, maximumExtraWrites: number): { call: SolutionCall; description: string }[] {
  const solution = replay.instance.solution;
  const groundTruthFinal = replay.states[solution.length] ?? replay.instance.state;
  const groundTruthCalls = new Set(solution.map((call) => canonical(call)));
  const perWrite = writeIndices(runner, replay).map((index) => argumentVariants(runner.tools, groundTruthFinal, solution[index] as SolutionCall, maximumExtraWrites));
  const extras: { call: SolutionCall; description: string }[] = [];
  const seen = new Set<string>();
  for (let round = 0; extras.length < maximumExtraWrites && perWrite.some((variants) => round < variants.length); round += 1) {
    for (const variants of perWrite) {
      const variant = variants[round];
      if (variant === undefined || extras.length >= maximumExtraWrites) continue;
      const key = canonical(variant.call);
      if (seen.has(key) || groundTruthCalls.has(key)) continue;
      seen.add(key);
      extras.push(variant);
    }
  }
  return extras;
}

/** The ground truth then one extra write: the first of at most `maximumTries` that changes the final state; null when none does. */
export async function oneExtraWriteInput(runner: ModuleRunner, replay: GroundTruthReplay, limits: ProbeLimits = {}): Promise<AdversarialInput | null> {
  const maximumTries = limits.maximumTries ?? 3;
  const groundTruthFinal = replay.states[replay.calls.length] ?? replay.instance.state;
  const finalState = canonical(groundTruthFinal);
  for (const extra of extraWrites(runner, replay, maximumTries)) {
    const result = await execute(runner, groundTruthFinal, extra.call);
    if (canonical(result.state) === finalState) continue;
    return { input: { instance: replay.instance, calls: [...replay.calls, result.call], replies: [solutionReply(replay.instance)], finalState: result.state }, description: `extra write: ${extra.description}` };
  }
  return null;
}

/**
 * The ground truth then every extra write ("write everything": the solution's write tools over every other entity and
 * value, at most `maximumExtraWrites`); null when there are fewer than two or they leave the ground truth's final state.
 */
export async function everyWriteInput(runner: ModuleRunner, replay: GroundTruthReplay, limits: ProbeLimits = {}): Promise<AdversarialInput | null> {
  const extras = extraWrites(runner, replay, limits.maximumExtraWrites ?? 8);
  if (extras.length < 2) return null;
  const groundTruthFinal = replay.states[replay.calls.length] ?? replay.instance.state;
  let state = groundTruthFinal;
  const calls = [...replay.calls];
  for (const extra of extras) {
    const result = await execute(runner, state, extra.call);
    calls.push(result.call);
    state = result.state;
  }
  if (canonical(state) === canonical(groundTruthFinal)) return null;
  const tools = [...new Set(extras.map((extra) => extra.call.name))].join(", ");
  return { input: { instance: replay.instance, calls, replies: [solutionReply(replay.instance)], finalState: state }, description: `${extras.length} extra writes (${tools} over every entity)` };
}
