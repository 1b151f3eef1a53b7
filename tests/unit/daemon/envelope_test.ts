import assert from "node:assert/strict";
import { readEnvelope } from "../../../src/daemon/envelope.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { ANSWER_BOUNDS } from "../../../src/shared/answer_bounds.ts";

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

Deno.test("daemon errors become portreeve_<code> with retryable and details, without requestId", () => {
  const error = fails(
    409,
    '{"protocolVersion":1,"requestId":"r1","error":{"code":"conflict","message":"busy","retryable":true,"details":{"reason":"claim_pending"}}}',
  );
  assert.equal(error.code, "portreeve_conflict");
  assert.equal(error.retryable, true);
  assert.deepEqual(error.details, { reason: "claim_pending" }, "the requestId stays out");
});

Deno.test("codes that say whose fault it is: the daemon's internal and unavailable are renamed, keeping its code", () => {
  const internal = fails(
    500,
    '{"protocolVersion":1,"requestId":"r","error":{"code":"internal","message":"disk full","retryable":false,"details":{}}}',
  );
  assert.equal(internal.code, "portreeve_daemon_error");
  assert.deepEqual(internal.details, { daemonCode: "internal" });
  assert.equal(internal.message, "disk full");
  const evidence = fails(
    400,
    '{"protocolVersion":1,"error":{"code":"unavailable","message":"no docker","retryable":false,"details":{"reason":"provider_unobservable"}}}',
  );
  assert.equal(evidence.code, "portreeve_evidence_unavailable");
  assert.deepEqual(evidence.details, {
    reason: "provider_unobservable",
    daemonCode: "unavailable",
  });
  // Any HTTP 5xx without a readable envelope is the daemon failing, not an unreadable socket.
  for (const text of ["<html>oops</html>", "[1]", '{"protocolVersion":1}']) {
    const failed = fails(503, text);
    assert.equal(failed.code, "portreeve_daemon_error", text);
    assert.deepEqual(failed.details, { status: 503 });
  }
});

Deno.test("an unknown daemon code reaches the message bounded, or only as its size", () => {
  const long = "x".repeat(100_000);
  const error = fails(
    400,
    JSON.stringify({ protocolVersion: 1, error: { code: long, message: "m" } }),
  );
  assert.equal(error.code, "portreeve_invalid_response");
  assert.ok(error.message.length < 200, error.message);
  assert.match(error.message, /not a code: 100000 characters/);
  const word = fails(400, '{"protocolVersion":1,"error":{"code":"boom","message":"x"}}');
  assert.match(word.message, /unknown error code "boom"/);
  const weird = fails(400, '{"protocolVersion":1,"error":{"code":{"a":1},"message":"x"}}');
  assert.match(weird.message, /\(object, not a string\)/);
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
    fails(400, '{"protocolVersion":1,"error":{"code":"boom","message":"x"}}').code,
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
  assert.equal(error.details.requestId, undefined, "the daemon's request id stays out");
  assert.match(String(error.details.reason), /…\[cut from 1,048,576 characters\]$/);
  const unknown = fails(
    409,
    JSON.stringify({ protocolVersion: 1, error: { code: "c".repeat(1e6) } }),
  );
  assert.ok(unknown.message.length < 1_000, "an unknown code is quoted cut short");
});
