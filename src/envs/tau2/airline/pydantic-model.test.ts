/** Building FlightInfo / Passenger / Payment from JSON objects with pydantic's lax rules and error text. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolError } from "../../core/tool-error.js";
import { flightInfoModel, passengerModel, paymentModel } from "./argument-models.js";
import { buildModel } from "./pydantic-model.js";

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(ToolError.isInstance(error));
    return error.message;
  }
  throw new Error("expected a validation error");
}

test("valid objects keep the declared fields in order and drop extra keys", () => {
  assert.deepEqual(buildModel(flightInfoModel, { date: "2024-05-01", flight_number: "HAT001", note: "x" }), {
    flight_number: "HAT001",
    date: "2024-05-01",
  });
});

test("a missing field reports the whole input, as pydantic does", () => {
  assert.equal(
    failure(() => buildModel(flightInfoModel, { flight_number: "HAT001" })),
    "1 validation error for FlightInfo\ndate\n" +
      "  Field required [type=missing, input_value={'flight_number': 'HAT001'}, input_type=dict]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/missing",
  );
});

test("several errors are listed in field order", () => {
  assert.equal(
    failure(() => buildModel(passengerModel, { first_name: 1, dob: null })),
    "3 validation errors for Passenger\nfirst_name\n" +
      "  Input should be a valid string [type=string_type, input_value=1, input_type=int]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/string_type\nlast_name\n" +
      "  Field required [type=missing, input_value={'first_name': 1, 'dob': None}, input_type=dict]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/missing\ndob\n" +
      "  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/string_type",
  );
});

test("ints accept lax inputs and reject the rest with pydantic's reasons", () => {
  const amount = (value: unknown) => buildModel(paymentModel, { payment_id: "p", amount: value }).amount;
  assert.equal(amount(" 12 "), 12);
  assert.equal(amount("1_000"), 1000);
  assert.equal(amount("-3.00"), -3);
  assert.equal(amount(true), 1);
  assert.equal(amount(7), 7);
  assert.match(failure(() => amount(1.5)), /fractional part \[type=int_from_float, input_value=1\.5/);
  assert.match(failure(() => amount("1e3")), /as an integer \[type=int_parsing, input_value='1e3'/);
  assert.match(failure(() => amount(null)), /Input should be a valid integer \[type=int_type, input_value=None/);
});

test("long input values are cut to 25 + 24 characters around '...'", () => {
  assert.match(
    failure(() => buildModel(paymentModel, { payment_id: "p", amount: "x".repeat(100) })),
    /input_value='xxxxxxxxxxxxxxxxxxxxxxxx\.\.\.xxxxxxxxxxxxxxxxxxxxxxx', input_type=str/,
  );
});
