/**
 * What every host's model can read: results whose text is the whole envelope and nothing
 * else, errors that stand alone and say each thing once, and input schemas that say what the
 * server refuses.
 */
import assert from "node:assert/strict";
import {
  envelopeOf,
  failure,
  isErrorResult,
  parseErrorText,
  success,
} from "../../../src/results/result.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { unavailable } from "../../../src/daemon/errors.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/results/describe.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";
import type { Json } from "../../../src/shared/json.ts";

const textOf = (r: object) => {
  assert.ok("content" in r && Array.isArray(r.content), "a tool result, not a request for input");
  assert.equal(r.content.length, 1, "one text block");
  return (r.content[0] as { type: string; text: string }).text;
};

Deno.test("success: the text block is the envelope as compact JSON, nothing repeated", () => {
  const data = { items: [{ port: 5173 }], page: { itemCount: 1, nextCursor: "abc" } };
  const r = success(data);
  assert.deepEqual(r.structuredContent, { ok: true, data });
  // A host shows its model one half or the other: neither holds more than the other.
  assert.equal(textOf(r), JSON.stringify(r.structuredContent));
  assert.equal(r.isError, undefined);
});

Deno.test("failure: the text alone carries the error, once (no structuredContent)", () => {
  const error = new BridgeError("portreeve_not_found", "No claim\n42.", false, { reason: "gone" });
  const r = failure(error);
  const text = textOf(r);
  assert.equal(r.structuredContent, undefined, "hosts that show both halves see it once");
  assert.equal(r.isError, true);
  assert.equal(
    text,
    "portreeve_not_found (not retryable): No claim 42.\n" +
      `Next step: ${nextStepFor("portreeve_not_found", {})}\n` +
      'Details: {"reason":"gone"}',
  );
  assert.deepEqual(envelopeOf(r), {
    ok: false,
    error: {
      code: "portreeve_not_found",
      message: "No claim 42.",
      retryable: false,
      nextStep: nextStepFor("portreeve_not_found", {}),
      details: { reason: "gone" },
    },
  }, "programs read it back with envelopeOf");

  const bare = textOf(failure(new BridgeError("portreeve_not_found", "m", false)));
  assert.doesNotMatch(bare, /Details:/, "empty details are left out");
  assert.equal(parseErrorText(bare)?.details, undefined);

  const down = parseErrorText(textOf(failure(unavailable("/run/p.sock", "ENOENT"))))!;
  assert.equal(down.retryable, true);
  assert.match(down.message, /^Nothing answers at \/run\/p\.sock, the PortReeve socket/);
  assert.match(down.nextStep, /^Ask the user to run `portreeve-mcp doctor --host HOST` \(HOST: /);
  const named = parseErrorText(
    textOf(failure(unavailable("/run/p.sock", "ENOENT"), { host: "codex" })),
  )!;
  assert.match(named.nextStep, /^Ask the user to run `portreeve-mcp doctor --host codex`: /);
  assert.equal(down.details, undefined, "the socket and the cause are in the message: once");
});

Deno.test("failure unflagged: the same text, no isError, structuredContent {ok: false} alone", () => {
  const error = new BridgeError("portreeve_not_found", "No claim 42.", false, { reason: "gone" });
  const flagged = failure(error);
  const unflagged = failure(error, { flagged: false });
  assert.equal(textOf(unflagged), textOf(flagged), "the text is the error, either way");
  assert.equal(unflagged.isError, undefined);
  assert.deepEqual(unflagged.structuredContent, { ok: false });
  assert.deepEqual(envelopeOf(unflagged), envelopeOf(flagged));
  // Every tool's output schema declares `ok` and requires nothing, so `{ok: false}` is valid.
  for (const { tool } of listTools(ALL_TOOLS).tools) {
    const schema = tool.outputSchema;
    assert.ok(schema !== undefined, tool.name);
    assert.deepEqual(Reflect.get(schema.properties ?? {}, "ok"), { type: "boolean" }, tool.name);
    assert.equal(schema.required, undefined, tool.name);
  }
});

Deno.test("isErrorResult: flagged or unflagged errors, never a success", () => {
  const error = new BridgeError("portreeve_not_found", "No claim 42.", false);
  assert.equal(isErrorResult(failure(error)), true);
  assert.equal(isErrorResult(failure(error, { flagged: false })), true);
  assert.equal(isErrorResult(success({ ok: false })), false, "data of its own is no error");
  assert.equal(isErrorResult({ content: [] }), false);
});

Deno.test("an error's details leave out what its message already states", () => {
  const error = new BridgeError(
    "portreeve_conflict",
    "Claim 6f114f83-6a71-43ce-a8be-391b7dfbf61f on port 18080 has an active run.",
    true,
    {
      claimId: "6f114f83-6a71-43ce-a8be-391b7dfbf61f",
      port: 18080,
      runId: "89df3962-9505-48fa-8000-443c703e6fd7",
      count: 1,
      reason: "active_run",
      near: "6f114f83",
    },
  );
  const { details } = parseErrorText(textOf(failure(error)))!;
  // Only whole words count: a prefix of an id is not the id, a one-digit count is kept.
  assert.deepEqual(details, {
    runId: "89df3962-9505-48fa-8000-443c703e6fd7",
    count: 1,
    reason: "active_run",
    near: "6f114f83",
  });
});

const listing = listTools(ALL_TOOLS).tools;

Deno.test("inputs are strict, and no schema spends bytes on saying so", () => {
  for (const { tool } of listing) {
    // A map still says what its values are; an unknown key is refused, naming it.
    assert.ok(
      !JSON.stringify(tool.inputSchema).includes('"additionalProperties":false'),
      tool.name,
    );
  }
});

// Validation runs before any use of the context, so no daemon is needed here.
const noContext = {} as unknown as Omit<ToolContext, "capabilities">;
const catalogue = new Catalogue("full");

Deno.test("every tool rejects an unknown key, as its schema says, with a standalone error", async () => {
  assert.equal(catalogue.size, ALL_TOOLS.length);
  for (const { tool } of catalogue.entries) {
    const r = await catalogue.call(tool.name, { notAnArgument: 1 }, noContext);
    assert.equal(r.isError, true, tool.name);
    const error = parseErrorText(textOf(r))! as unknown as Json;
    assert.equal(error.code, "portreeve_invalid_input", tool.name);
    assert.match(
      error.message as string,
      /notAnArgument/,
      `${tool.name}: the message names the key`,
    );
    assert.ok((error.nextStep as string).length > 0, tool.name);
    assert.equal(error.details, undefined, `${tool.name}: the message alone names the key`);
  }
});

Deno.test("Gemini CLI's wait_for_previous scheduling hint is not an argument error", async () => {
  for (const { tool } of catalogue.entries) {
    // Tools whose arguments are all optional go on to use the empty context and fail
    // differently; what matters is that no failure is about the hint.
    const r = await catalogue.call(tool.name, { wait_for_previous: true }, noContext);
    assert.doesNotMatch(textOf(r), /wait_for_previous/, tool.name);
  }
  const r = await catalogue.call("portreeve_port_inspect", {
    port: 70000,
    wait_for_previous: false,
  }, noContext);
  assert.doesNotMatch(textOf(r), /wait_for_previous/);
  assert.match(textOf(r), /port/);
  const other = await catalogue.call("portreeve_port_inspect", {
    port: 80,
    wait_for_previous: "yes",
  }, noContext);
  assert.match(textOf(other), /wait_for_previous/, "only the boolean hint is dropped");
});

Deno.test("an input error says each thing once", async () => {
  const r = await catalogue.call(
    "portreeve_settings_update_preview",
    { updates: { bogus: 1 } },
    noContext,
  );
  const { message } = parseErrorText(textOf(r))!;
  assert.equal(
    message,
    "updates: unsupported setting(s) bogus; only automaticPortRanges, excludedPorts, leaseTtlMilliseconds, ephemeralAssignmentTtlMilliseconds, gracefulShutdownMilliseconds, historyMaximumEvents, diagnosticLogMaximumBytes, diagnosticLogFiles can be changed.",
  );
  const empty = await catalogue.call(
    "portreeve_settings_update_preview",
    { updates: {} },
    noContext,
  );
  assert.match(textOf(empty), /updates: name at least one setting to change\./);
});
