/** How long to wait before retrying a chat request: exponential backoff with jitter, or the server's `Retry-After`. */

export interface BackoffOptions {
  /** Delay scale of the first retry, in ms. */
  baseMs: number;
  /** Upper bound on any single wait, in ms (also caps `Retry-After`). */
  maxMs: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Backoff before retry number `retry` (0-based): a uniform draw from [½, 1] × base·2^retry, capped at maxMs. */
export function backoffDelayMs(retry: number, options: BackoffOptions): number {
  const random = options.random ?? Math.random;
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** retry);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** Parses `Retry-After` (delta-seconds or an HTTP date) into ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The wait before retry number `retry`: the server's `Retry-After` when it gave one, else backoff; capped at maxMs. */
export function retryDelayMs(retry: number, retryAfter: string | null, options: BackoffOptions): number {
  const fromServer = parseRetryAfterMs(retryAfter);
  return fromServer === undefined ? backoffDelayMs(retry, options) : Math.min(options.maxMs, fromServer);
}

/** Whether an HTTP status is worth retrying: 429 and every 5xx (any other 4xx fails at once). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
