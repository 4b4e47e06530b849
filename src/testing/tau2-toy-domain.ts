/** A two-tool τ²-shaped domain (accounts with balances) for unit tests of loading and grading. */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { DatabaseState } from "../envs/core/copy-on-write-database.js";
import { ToolError } from "../envs/core/tool-error.js";
import type { Tau2Domain } from "../envs/tau2/domain.js";

export interface ToyTables extends Record<string, object> {
  accounts: { id: string; balance: number; notes: string[] };
}

type ToyState = DatabaseState<ToyTables>;

export const toyDomain: Tau2Domain<ToyTables> = {
  name: "airline",
  className: "ToyTools",
  databaseSchema: z.object({
    accounts: z.record(z.string(), z.object({ id: z.string(), balance: z.number(), notes: z.array(z.string()) })),
  }),
  isFloat: () => false,
  tools: [
    {
      name: "get_account",
      kind: "read",
      description: "Read an account.",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      run(state: ToyState, args) {
        const account = state.get("accounts", args.id as string);
        if (account === undefined) throw new ToolError(`Account ${String(args.id)} not found`);
        return account;
      },
    },
    {
      name: "deposit",
      kind: "write",
      description: "Deposit into an account.",
      parameters: {
        type: "object",
        properties: { id: { type: "string" }, amount: { type: "integer" }, note: { type: "string" } },
        required: ["id", "amount"],
      },
      run(state: ToyState, args) {
        if (!state.has("accounts", args.id as string)) throw new ToolError(`Account ${String(args.id)} not found`);
        const account = state.edit("accounts", args.id as string);
        account.balance += args.amount as number;
        if (typeof args.note === "string") account.notes.push(args.note);
        return account;
      },
    },
  ],
};

const toyDatabase = {
  accounts: { a1: { id: "a1", balance: 10, notes: [] }, a2: { id: "a2", balance: 0, notes: [] } },
};

const toyTasks = [
  {
    id: "0",
    user_scenario: { persona: null, instructions: "Deposit 5 into a1 and tell me the new balance." },
    evaluation_criteria: {
      actions: [
        { action_id: "0_0", name: "get_account", arguments: { id: "a1" } },
        { action_id: "0_1", name: "deposit", arguments: { id: "a1", amount: 5, note: "gift" }, compare_args: ["id", "amount"] },
      ],
      communicate_info: ["1015"],
      nl_assertions: ["Agent deposits."],
    },
  },
  { id: "1", user_scenario: { instructions: "Just chat." }, evaluation_criteria: { actions: null, communicate_info: [] } },
];

/** Writes the toy domain's files to a new temporary directory and returns it. */
export function writeToyDomainDirectory(overrides: { tasks?: string; db?: string; policy?: string | null } = {}): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), "trace-toy-"));
  writeFileSync(path.join(directory, "tasks.json"), overrides.tasks ?? JSON.stringify(toyTasks));
  writeFileSync(path.join(directory, "db.json"), overrides.db ?? JSON.stringify(toyDatabase));
  if (overrides.policy !== null) writeFileSync(path.join(directory, "policy.md"), overrides.policy ?? "# Toy policy\n");
  return directory;
}
