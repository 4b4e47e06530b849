/**
 * A small support-ticketing service: customers, tickets and the support team, with the tools an agent uses on them.
 * Both ways of bringing it to trace use this file: `environment.ts` (a target module) and `mcp-server.ts` (an MCP
 * server). A task's expected outcome is a list of tool calls; the grader replays them on a fresh state and compares
 * the final states (the way τ²-bench grades its database), ignoring free text (comments, resolutions).
 */
import { readFileSync } from "node:fs";

export interface Customer {
  id: string;
  name: string;
  email: string;
  plan: "basic" | "pro";
}

export interface Ticket {
  id: string;
  customer_id: string;
  title: string;
  category: "billing" | "technical" | "account";
  status: "open" | "closed";
  priority: "low" | "normal" | "high" | "urgent";
  assignee: string | null;
  comments: string[];
  resolution: string | null;
}

export interface ServiceState {
  customers: Customer[];
  tickets: Ticket[];
  nextTicketNumber: number;
}

/** Team member per category. */
export const TEAM: Record<Ticket["category"], string> = { billing: "sam", technical: "lee", account: "kim" };

/** The agent's policy (`policy.md` beside this file). */
export const POLICY = readFileSync(new URL("./policy.md", import.meta.url), "utf8");

/** The starting state of every episode (a fresh copy). */
export function initialState(): ServiceState {
  const ticket = (id: string, customer_id: string, title: string, category: Ticket["category"], priority: Ticket["priority"], status: Ticket["status"] = "open"): Ticket => ({
    id,
    customer_id,
    title,
    category,
    status,
    priority,
    assignee: TEAM[category],
    comments: [],
    resolution: null,
  });
  return {
    customers: [
      { id: "C1", name: "Alice Park", email: "alice@example.com", plan: "pro" },
      { id: "C2", name: "Bob Diaz", email: "bob@example.com", plan: "basic" },
      { id: "C3", name: "Carol Wu", email: "carol@example.com", plan: "pro" },
      { id: "C4", name: "Dave Okafor", email: "dave@example.com", plan: "basic" },
    ],
    tickets: [
      ticket("T-101", "C1", "Dashboard loads slowly", "technical", "normal"),
      ticket("T-102", "C1", "Add a second admin seat", "account", "low"),
      ticket("T-103", "C2", "Export to CSV fails", "technical", "normal"),
      ticket("T-104", "C2", "Charged twice in March", "billing", "normal"),
      ticket("T-105", "C3", "Cannot log in with SSO", "account", "high"),
      ticket("T-106", "C4", "Webhook retries missing", "technical", "normal"),
      ticket("T-107", "C4", "Update billing email", "billing", "low"),
      ticket("T-108", "C4", "Old invoice question", "billing", "low", "closed"),
    ],
    nextTicketNumber: 109,
  };
}

/** A refusal the agent sees as `Error: …`. */
export class ServiceError extends Error {}

const priorities: Ticket["priority"][] = ["low", "normal", "high", "urgent"];
const categories = Object.keys(TEAM) as Ticket["category"][];

function ticketOf(state: ServiceState, id: unknown): Ticket {
  const ticket = state.tickets.find((entry) => entry.id === id);
  if (ticket === undefined) throw new ServiceError(`no ticket ${String(id)}`);
  return ticket;
}

/** The tools' definitions: name, description, JSON Schema of the arguments, read or write. */
export const TOOLS = [
  {
    name: "find_customer",
    description: "Look up a customer by email. Returns the customer's id, name, email and plan.",
    parameters: { type: "object", properties: { email: { type: "string" } }, required: ["email"], additionalProperties: false },
    kind: "read",
  },
  {
    name: "list_tickets",
    description: "List a customer's tickets (id, title, category, status, priority, assignee), optionally only those with a status.",
    parameters: { type: "object", properties: { customer_id: { type: "string" }, status: { type: "string", enum: ["open", "closed"] } }, required: ["customer_id"], additionalProperties: false },
    kind: "read",
  },
  {
    name: "get_ticket",
    description: "Get one ticket with its comments.",
    parameters: { type: "object", properties: { ticket_id: { type: "string" } }, required: ["ticket_id"], additionalProperties: false },
    kind: "read",
  },
  {
    name: "create_ticket",
    description: "Open a new ticket for a customer. Returns the new ticket (unassigned).",
    parameters: {
      type: "object",
      properties: { customer_id: { type: "string" }, title: { type: "string" }, category: { type: "string", enum: categories }, priority: { type: "string", enum: priorities } },
      required: ["customer_id", "title", "category", "priority"],
      additionalProperties: false,
    },
    kind: "write",
  },
  {
    name: "set_priority",
    description: "Change a ticket's priority.",
    parameters: { type: "object", properties: { ticket_id: { type: "string" }, priority: { type: "string", enum: priorities } }, required: ["ticket_id", "priority"], additionalProperties: false },
    kind: "write",
  },
  {
    name: "assign_ticket",
    description: "Assign a ticket to a team member (sam, lee or kim).",
    parameters: { type: "object", properties: { ticket_id: { type: "string" }, team_member: { type: "string" } }, required: ["ticket_id", "team_member"], additionalProperties: false },
    kind: "write",
  },
  {
    name: "add_comment",
    description: "Add a comment to a ticket.",
    parameters: { type: "object", properties: { ticket_id: { type: "string" }, text: { type: "string" } }, required: ["ticket_id", "text"], additionalProperties: false },
    kind: "write",
  },
  {
    name: "close_ticket",
    description: "Close an open ticket with a short resolution.",
    parameters: { type: "object", properties: { ticket_id: { type: "string" }, resolution: { type: "string" } }, required: ["ticket_id", "resolution"], additionalProperties: false },
    kind: "write",
  },
] as const;

/** Runs one tool on the state (changing it for writes); throws `ServiceError` to refuse. */
export function runServiceTool(state: ServiceState, name: string, args: Record<string, unknown>): unknown {
  switch (name) {
    case "find_customer": {
      const customer = state.customers.find((entry) => entry.email.toLowerCase() === String(args.email).trim().toLowerCase());
      if (customer === undefined) throw new ServiceError(`no customer with email ${String(args.email)}`);
      return customer;
    }
    case "list_tickets":
      if (!state.customers.some((entry) => entry.id === args.customer_id)) throw new ServiceError(`no customer ${String(args.customer_id)}`);
      return state.tickets
        .filter((ticket) => ticket.customer_id === args.customer_id && (args.status === undefined || ticket.status === args.status))
        .map(({ id, title, category, status, priority, assignee }) => ({ id, title, category, status, priority, assignee }));
    case "get_ticket":
      return ticketOf(state, args.ticket_id);
    case "create_ticket": {
      if (!state.customers.some((entry) => entry.id === args.customer_id)) throw new ServiceError(`no customer ${String(args.customer_id)}`);
      const ticket: Ticket = {
        id: `T-${state.nextTicketNumber}`,
        customer_id: String(args.customer_id),
        title: String(args.title),
        category: args.category as Ticket["category"],
        status: "open",
        priority: args.priority as Ticket["priority"],
        assignee: null,
        comments: [],
        resolution: null,
      };
      state.nextTicketNumber += 1;
      state.tickets.push(ticket);
      return ticket;
    }
    case "set_priority": {
      const ticket = ticketOf(state, args.ticket_id);
      if (ticket.status === "closed") throw new ServiceError(`ticket ${ticket.id} is closed`);
      ticket.priority = args.priority as Ticket["priority"];
      return ticket;
    }
    case "assign_ticket": {
      const ticket = ticketOf(state, args.ticket_id);
      if (!Object.values(TEAM).includes(String(args.team_member))) throw new ServiceError(`no team member ${String(args.team_member)} (sam, lee, kim)`);
      ticket.assignee = String(args.team_member);
      return ticket;
    }
    case "add_comment": {
      const ticket = ticketOf(state, args.ticket_id);
      ticket.comments.push(String(args.text));
      return ticket;
    }
    case "close_ticket": {
      const ticket = ticketOf(state, args.ticket_id);
      if (ticket.status === "closed") throw new ServiceError(`ticket ${ticket.id} is already closed`);
      ticket.status = "closed";
      ticket.resolution = String(args.resolution);
      return ticket;
    }
    default:
      throw new ServiceError(`unknown tool ${name}`);
  }
}

/** A task's data: the tool calls that carry out the request correctly. */
export interface TaskData {
  expected: [string, Record<string, unknown>][];
}

/** The state after the expected calls. */
export function expectedState(data: TaskData): ServiceState {
  const state = initialState();
  for (const [name, args] of data.expected) runServiceTool(state, name, args);
  return state;
}

/** What is compared: every ticket's fields except free text (titles, comments and resolutions: only whether they exist). */
function comparable(state: ServiceState): unknown {
  return state.tickets.map(({ comments, resolution, title: _title, ...rest }) => ({ ...rest, comments: comments.length, resolved: resolution !== null }));
}

/** 1 when the final state matches the expected one, else 0; the breakdown says which tickets differ. */
export function gradeState(final: ServiceState, data: TaskData): { reward: number; breakdown: Record<string, number>; details: Record<string, unknown> } {
  const expected = comparable(expectedState(data)) as { id: string }[];
  const actual = comparable(final) as { id: string }[];
  const ids = [...new Set([...expected, ...actual].map((ticket) => ticket.id))];
  const differing = ids.filter((id) => JSON.stringify(expected.find((ticket) => ticket.id === id)) !== JSON.stringify(actual.find((ticket) => ticket.id === id)));
  const reward = differing.length === 0 ? 1 : 0;
  return { reward, breakdown: { DB: reward }, details: { differingTickets: differing } };
}

/** The tasks (`tasks.json` beside this file). */
export function readTasks(): { id: string; instructions: string; userMessages?: string[]; split?: "train" | "test"; rubric?: string; data: TaskData }[] {
  return JSON.parse(readFileSync(new URL("./tasks.json", import.meta.url), "utf8")) as ReturnType<typeof readTasks>;
}
