import assert from "node:assert/strict";
import { readEnvelope } from "../../../src/daemon/envelope.ts";
import { BridgeError } from "../../../src/errors.ts";
import { ANSWER_BOUNDS } from "../../../src/answer_bounds.ts";

function fails(status: number, text: string): BridgeError {
  try {
    readEnvelope({ status, text });
  } catch (error) {
    assert.ok(error instanceof BridgeError);
    return error;
  }
  throw new Error("expected a failure");
}

Deno.test("success returns data", () => {
  assert.deepEqual(
    readEnvelope({ status: 200, text: '{"protocolVersion":1,"requestId":"r","data":{"a":1}}' }),
    { a: 1 },
  );
});

Deno.test("daemon errors become portreeve_<code> with retryable and details", () => {
  const error = fails(
    409,
    '{"protocolVersion":1,"requestId":"r1","error":{"code":"conflict","message":"busy","retryable":true,"details":{"reason":"claim_pending"}}}',
  );
  assert.equal(error.code, "portreeve_conflict");
  assert.equal(error.retryable, true);
  assert.deepEqual(error.details, { reason: "claim_pending", requestId: "r1" });
});

Deno.test("incompatible_protocol maps to portreeve_incompatible", () => {
  const error = fails(
    426,
    '{"protocolVersion":1,"requestId":"r","error":{"code":"incompatible_protocol","message":"m","retryable":false,"details":{}}}',
  );
  assert.equal(error.code, "portreeve_incompatible");
});

Deno.test("garbage is portreeve_invalid_response; another protocol version is incompatible", () => {
  assert.equal(fails(200, "<html>").code, "portreeve_invalid_response");
  assert.equal(fails(200, "[1]").code, "portreeve_invalid_response");
  assert.equal(fails(200, '{"data":{}}').code, "portreeve_invalid_response");
  assert.equal(
    fails(500, '{"protocolVersion":1,"error":{"code":"boom","message":"x"}}').code,
    "portreeve_invalid_response",
  );
  assert.equal(fails(200, '{"protocolVersion":2,"data":{}}').code, "portreeve_incompatible");
  assert.equal(fails(404, '{"protocolVersion":1}').code, "portreeve_invalid_response");
});

Deno.test("what the daemon says is cut where it arrives: message and details to their bounds", () => {
  const error = fails(
    409,
    JSON.stringify({
      protocolVersion: 1,
      requestId: "r2",
      error: {
        code: "conflict",
        message: "m".repeat(2 * 1024 * 1024),
        retryable: false,
        details: {
          reason: "r".repeat(1024 * 1024),
          rows: Array.from({ length: 5_000 }, (_, i) => i),
        },
      },
    }),
  );
  assert.equal(error.message.length, ANSWER_BOUNDS.daemonMessage.max);
  assert.match(error.message, /^m+…\[cut from 2,097,152 characters\]$/);
  assert.ok(JSON.stringify(error.details).length <= ANSWER_BOUNDS.daemonDetails.max);
  assert.equal(error.details.requestId, "r2", "the request id is kept first");
  assert.match(String(error.details.reason), /…\[cut from 1,048,576 characters\]$/);
  const unknown = fails(
    409,
    JSON.stringify({ protocolVersion: 1, error: { code: "c".repeat(1e6) } }),
  );
  assert.ok(unknown.message.length < 1_000, "an unknown code is quoted cut short");
});
