/**
 * The target environment whose tools a capability module's tools must match: a τ²-bench domain (airline, retail), or
 * a user's own target (its environment name and tool schemas, see `src/envs/custom/`).
 */
import { TAU2_DOMAINS } from "../../envs/tau2/domains.js";
import type { Tau2DomainName } from "../../envs/tau2/domain.js";
import { TraceError } from "../../spec/trace-error.js";

/** A target tool: name, description and JSON Schema of its arguments. */
export interface TargetTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What synthesis keeps to: the target's name and its tools. */
export interface SynthesisTarget {
  /** `tau2-airline`, `tau2-retail`, or a user's target's environment name. */
  name: string;
  tools: readonly TargetTool[];
  /** The τ² domain whose hand-written module is the generator's worked example. */
  exampleDomain: Tau2DomainName;
}

/** The τ² targets, by name. */
const SYNTHESIS_TARGETS = ["tau2-airline", "tau2-retail"] as const;

/** A target name that is not `tau2-airline` or `tau2-retail`. */
export class UnknownSynthesisTargetError extends TraceError {
  override readonly name = "UnknownSynthesisTargetError";
  constructor(readonly target: string) {
    super(`unknown synthesis target ${JSON.stringify(target)} (expected one of: ${SYNTHESIS_TARGETS.join(", ")})`, { category: "usage" });
  }
}

/** The τ² target of a name; its tools as τ²-bench defines them (from the domain's code; no data directory needed). */
export function parseSynthesisTarget(name: string): SynthesisTarget {
  if (!(SYNTHESIS_TARGETS as readonly string[]).includes(name)) throw new UnknownSynthesisTargetError(name);
  const domain: Tau2DomainName = name === "tau2-airline" ? "airline" : "retail";
  const tools = TAU2_DOMAINS[domain].tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  return { name, tools, exampleDomain: domain };
}

/** A user's target: its name and tools (the worked example stays a τ² module). */
export function customSynthesisTarget(name: string, tools: readonly TargetTool[]): SynthesisTarget {
  return { name, tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })), exampleDomain: "airline" };
}

/** The τ² domain of the worked example. */
export function targetDomain(target: SynthesisTarget): Tau2DomainName {
  return target.exampleDomain;
}

/** The target's tools. */
export function targetTools(target: SynthesisTarget): readonly TargetTool[] {
  return target.tools;
}
