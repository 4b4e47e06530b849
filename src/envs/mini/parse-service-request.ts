/** Reads a TRACE-mini request (target or practice wording) as the scripted expert sees it: ids, methods and reason. */

/** One thing the user asks for: cancel some orders, or pay one order with a named method. */
export type ServicePart = { kind: "cancel"; orderIds: string[] } | { kind: "pay"; orderId: string; method: { kind: "card" | "gift"; lastFour: string } };

/** What a user asked for, as far as the request's text says. */
export interface ServiceRequest {
  /** `u17`, or null when the request names no user id. */
  userId: string | null;
  /** Every order id (`#W42`) in the order the request names them, without repeats. */
  orderIds: string[];
  /** The first payment method named by kind and last four digits; null for a request without one. */
  paymentMethod: { kind: "card" | "gift"; lastFour: string } | null;
  /** The cancellation reason the request's wording maps to. */
  reason: "no longer needed" | "ordered by mistake";
  /** The request's parts in the order they are asked: one per sentence that names an order. */
  parts: ServicePart[];
}

const METHOD = /\b(gift card|card)\b[^.?!\d]*?(\d{4})\b/i;

function methodOf(text: string): ServiceRequest["paymentMethod"] {
  const method = METHOD.exec(text);
  return method === null ? null : { kind: method[1]?.toLowerCase() === "gift card" ? "gift" : "card", lastFour: method[2] ?? "" };
}

/** Parses the request text; never throws (missing parts are null or empty). */
export function parseServiceRequest(text: string): ServiceRequest {
  const userId = /\bu\d+\b/.exec(text)?.[0] ?? null;
  const orderIds = [...new Set(text.match(/#W\d+/g) ?? [])];
  const reason = /mistake/i.test(text) ? "ordered by mistake" : "no longer needed";
  const parts: ServicePart[] = [];
  const seen = new Set<string>();
  for (const sentence of text.split(/(?<=[.?!])\s+/)) {
    const ids = [...new Set(sentence.match(/#W\d+/g) ?? [])].filter((id) => !seen.has(id));
    if (ids.length === 0) continue;
    for (const id of ids) seen.add(id);
    const method = methodOf(sentence);
    if (method !== null) parts.push({ kind: "pay", orderId: ids[0] ?? "", method });
    else parts.push({ kind: "cancel", orderIds: ids });
  }
  return { userId, orderIds, paymentMethod: methodOf(text), reason, parts };
}
