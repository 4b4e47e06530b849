/**
 * A uniform mixture of environments as one `Environment`: tasks are the members' tasks with ids prefixed by the member
 * name (`<member>/<id>`), the same number from each member, interleaved, so any shuffle draws each member uniformly;
 * system prompt, tools (and read tools), hints, episodes and grading go to the owning member, and `makeUser` to the
 * member's own user.
 */
import type { SimulatedUser } from "../../rollout/simulated-user.js";
import type { Environment } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import { MixedRulesError } from "./mixed-rules-error.js";
import { UnknownMixtureTaskError } from "./unknown-mixture-task-error.js";

/** One environment of the mixture, with the simulated user of its tasks. */
export interface MixtureMember {
  /** The id prefix (a capability, a domain). */
  name: string;
  environment: Environment;
  makeUser: (task: Task) => SimulatedUser;
}

export interface MixtureEnvironmentOptions {
  members: readonly MixtureMember[];
  /** Tasks taken from each member [the smallest member's task count]. */
  tasksPerMember?: number;
  /** [`mixture(<member>+<member>…)`] */
  name?: string;
}

export interface MixtureEnvironment extends Environment {
  readonly members: readonly MixtureMember[];
  /** The owning member and its own task. */
  owner(task: Task): { member: MixtureMember; task: Task };
  /** The owning member's user for its own task (runGrpo's `makeUser`). */
  makeUser(task: Task): SimulatedUser;
}

/** The mixture's task id of a member task. */
function mixtureTaskId(member: string, taskId: string): string {
  return `${member}/${taskId}`;
}

export function createMixtureEnvironment(options: MixtureEnvironmentOptions): MixtureEnvironment {
  const { members } = options;
  if (members.length === 0) throw new RangeError("a mixture needs at least one member");
  const name = options.name ?? `mixture(${members.map((member) => member.name).join("+")})`;
  const rules = members[0]!.environment.rules;
  for (const member of members.slice(1)) {
    if (JSON.stringify(member.environment.rules) !== JSON.stringify(rules)) throw new MixedRulesError(member.name, member.environment.rules, rules);
  }
  const perMember = options.tasksPerMember ?? Math.min(...members.map((member) => member.environment.tasks().length));
  const byId = new Map<string, { member: MixtureMember; task: Task; mixed: Task }>();
  const columns = members.map((member) => member.environment.tasks().slice(0, perMember));
  for (let row = 0; row < perMember; row += 1) {
    members.forEach((member, index) => {
      const task = columns[index]![row];
      if (task === undefined) return;
      const mixed: Task = { ...task, id: mixtureTaskId(member.name, task.id), raw: { member: member.name, taskId: task.id, raw: task.raw } };
      byId.set(mixed.id, { member, task, mixed });
    });
  }
  const lookup = (id: string) => {
    const entry = byId.get(id);
    if (entry === undefined) throw new UnknownMixtureTaskError(id, name);
    return entry;
  };
  return {
    name,
    rules,
    members,
    tasks: () => [...byId.values()].map((entry) => entry.mixed),
    task: (id) => lookup(id).mixed,
    owner: (task) => lookup(task.id),
    makeUser: (task) => {
      const { member, task: own } = lookup(task.id);
      return member.makeUser(own);
    },
    systemPrompt: (task) => {
      const { member, task: own } = lookup(task.id);
      return member.environment.systemPrompt(own);
    },
    tools: (task) => {
      const { member, task: own } = lookup(task.id);
      return member.environment.tools(own);
    },
    readTools: (task) => {
      const { member, task: own } = lookup(task.id);
      return member.environment.readTools?.(own) ?? [];
    },
    hint: (task) => {
      const { member, task: own } = lookup(task.id);
      return member.environment.hint?.(own);
    },
    start: (task) => {
      const { member, task: own, mixed } = lookup(task.id);
      const episode = member.environment.start(own);
      return { task: mixed, executeToolCall: (call) => episode.executeToolCall(call) };
    },
    grade: (task, messages, termination) => {
      const { member, task: own } = lookup(task.id);
      return member.environment.grade(own, messages, termination);
    },
  };
}
