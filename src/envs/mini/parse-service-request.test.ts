import assert from "node:assert/strict";
import { test } from "node:test";
import { parseServiceRequest } from "./parse-service-request.js";

test("reads ids, the named payment method and the reason from target and practice wordings", () => {
  assert.deepEqual(parseServiceRequest("Hi, I am u17. Can you cancel order #W42? I ordered it by mistake."), {
    userId: "u17",
    orderIds: ["#W42"],
    paymentMethod: null,
    reason: "ordered by mistake",
    parts: [{ kind: "cancel", orderIds: ["#W42"] }],
  });
  assert.deepEqual(parseServiceRequest("u71 here. Cancel my orders #W62, #W90 and #W62 please, I do not need them any more."), {
    userId: "u71",
    orderIds: ["#W62", "#W90"],
    paymentMethod: null,
    reason: "no longer needed",
    parts: [{ kind: "cancel", orderIds: ["#W62", "#W90"] }],
  });
  assert.deepEqual(parseServiceRequest("I am u17. Please pay order #W42 with my gift card ending 5530.").paymentMethod, { kind: "gift", lastFour: "5530" });
  assert.deepEqual(parseServiceRequest("My user id is u60. Please use my card ending in 4821 for order #W60.").paymentMethod, { kind: "card", lastFour: "4821" });
  assert.deepEqual(parseServiceRequest("hello"), { userId: null, orderIds: [], paymentMethod: null, reason: "no longer needed", parts: [] });
});

test("reads a request of several parts, one per sentence, in the order asked", () => {
  const request = parseServiceRequest("Hi, I am u17. Please cancel order #W42. Also pay order #W13 with my gift card ending 5530. And cancel orders #W20 and #W42. I no longer need them.");
  assert.deepEqual(request.parts, [
    { kind: "cancel", orderIds: ["#W42"] },
    { kind: "pay", orderId: "#W13", method: { kind: "gift", lastFour: "5530" } },
    { kind: "cancel", orderIds: ["#W20"] },
  ]);
  assert.deepEqual(request.orderIds, ["#W42", "#W13", "#W20"]);
});
