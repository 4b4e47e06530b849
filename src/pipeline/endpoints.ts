/**
 * Model roles → OpenAI-compatible endpoints. A run's configuration names endpoints `{url, model, apiKeyEnv}` and assigns
 * them to roles (policy, user, analyst, generator, reflection, router); API keys are read from the environment when a
 * client is made and are never written into the run directory.
 */
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { ROLES, WORKER_ENDPOINT, type ResolvedPipelineConfig, type Role } from "./pipeline-config.js";
import { TraceError } from "../spec/trace-error.js";

/** A role's endpoint has an `apiKeyEnv` whose variable is not set. */
export class MissingApiKeyError extends TraceError {
  override readonly name = "MissingApiKeyError";
  constructor(
    readonly role: Role,
    readonly endpoint: string,
    readonly variable: string,
  ) {
    super(`endpoints.${endpoint}.apiKeyEnv: environment variable ${variable} is not set (needed by the ${role} role)`, { category: "usage" });
  }
}

/** A role that the configuration does not assign, asked for by a stage. */
export class UndefinedRoleError extends TraceError {
  override readonly name = "UndefinedRoleError";
  constructor(readonly role: Role) {
    super(`roles.${role}: no endpoint is assigned to the ${role} role`, { category: "usage" });
  }
}

/** A role's endpoint as a client needs it: URL, model and the key read from the environment. */
export interface ResolvedEndpoint {
  /** The endpoint's name in `endpoints`. */
  name: string;
  url: string;
  model: string;
  apiKey?: string;
  maxConcurrency: number;
  timeoutMs: number;
}

/** The endpoint of `role`, or undefined when the role is unassigned or is the run's worker. */
export function roleEndpoint(config: ResolvedPipelineConfig, role: Role, environment: NodeJS.ProcessEnv = process.env): ResolvedEndpoint | undefined {
  const name = config.roles[role];
  if (name === undefined || name === WORKER_ENDPOINT) return undefined;
  const endpoint = config.endpoints[name];
  if (endpoint === undefined) throw new UndefinedRoleError(role);
  let apiKey: string | undefined;
  if (endpoint.apiKeyEnv !== undefined) {
    apiKey = environment[endpoint.apiKeyEnv];
    if (apiKey === undefined || apiKey === "") throw new MissingApiKeyError(role, name, endpoint.apiKeyEnv);
  }
  return { name, url: endpoint.url, model: endpoint.model, ...(apiKey === undefined ? {} : { apiKey }), maxConcurrency: endpoint.maxConcurrency, timeoutMs: endpoint.timeoutSeconds * 1000 };
}

/** Checks every assigned role's API key variable up front, so a run does not stop halfway for a missing key. */
export function checkRoleEndpoints(config: ResolvedPipelineConfig, environment: NodeJS.ProcessEnv = process.env): void {
  for (const role of ROLES) roleEndpoint(config, role, environment);
}

/** A chat client on the endpoint of a role that must be assigned to an endpoint (not the worker). */
export function roleClient(config: ResolvedPipelineConfig, role: Role, options: { model?: string; maxRetries?: number } = {}): ChatClient {
  const endpoint = roleEndpoint(config, role);
  if (endpoint === undefined) throw new UndefinedRoleError(role);
  return endpointClient(endpoint, options);
}

/** A chat client on a resolved endpoint (its model unless `model` names another, e.g. an adapter). */
export function endpointClient(endpoint: ResolvedEndpoint, options: { model?: string; maxRetries?: number } = {}): ChatClient {
  return createChatClient({
    baseUrl: endpoint.url,
    model: options.model ?? endpoint.model,
    maxConcurrency: endpoint.maxConcurrency,
    timeoutMs: endpoint.timeoutMs,
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  });
}
