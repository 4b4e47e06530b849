/** Reads a TRACE-mini request (target or practice wording) as the scripted expert sees it: ids, method and reason. */

/** What a user asked for, as far as the request's text says. */
export interface ServiceRequest {
  /** `u17`, or null when the request names no user id. */
  userId: string | null;
  /** Every order id (`#W42`) in the order the request names them, without repeats. */
  orderIds: string[];
  /** The payment method named by kind and last four digits; null for a cancellation request. */
  paymentMethod: { kind: "card" | "gift"; lastFour: string } | null;
  /** The cancellation reason the request's wording maps to. */
  reason: "no longer needed" | "ordered by mistake";
}

/** Parses the request text; never throws (missing parts are null or empty). */
export function parseServiceRequest(text: string): ServiceRequest {
  const userId = /\bu\d+\b/.exec(text)?.[0] ?? null;
  const orderIds = [...new Set(text.match(/#W\d+/g) ?? [])];
  const method = /\b(gift card|card)\b[^.?!\d]*?(\d{4})\b/i.exec(text);
  const paymentMethod = method === null ? null : { kind: method[1]?.toLowerCase() === "gift card" ? ("gift" as const) : ("card" as const), lastFour: method[2] ?? "" };
  const reason = /mistake/i.test(text) ? "ordered by mistake" : "no longer needed";
  return { userId, orderIds, paymentMethod, reason };
}
