import assert from "node:assert/strict";
import { readEnvelope } from "../../../src/daemon/envelope.ts";
import { BridgeError } from "../../../src/errors.ts";

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
