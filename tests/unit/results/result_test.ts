/**
 * What every host's model can read: results whose text carries the whole envelope, errors
 * that stand alone, input schemas that say what the server refuses, and instructions whose
 * first 250 characters hold the rule that matters.
 */
import assert from "node:assert/strict";
import { envelopeOf, failure, parseErrorText, success } from "../../../src/results/result.ts";
import { BridgeError } from "../../../src/shared/errors.ts";
import { nextStepFor } from "../../../src/shared/error_codes.ts";
import { unavailable } from "../../../src/daemon/errors.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/results/describe.ts";
import { serverInstructions } from "../../../src/catalogue/instructions.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";
import type { Json } from "../../../src/shared/json.ts";

function split(text: string): { line: string; json: unknown } {
  const cut = text.indexOf("\n");
  assert.ok(cut > 0, "a summary line, then the JSON");
  return { line: text.slice(0, cut), json: JSON.parse(text.slice(cut + 1)) };
}

const textOf = (r: object) => {
  assert.ok("content" in r && Array.isArray(r.content), "a tool result, not a request for input");
  assert.equal(r.content.length, 1, "one text block");
  return (r.content[0] as { type: string; text: string }).text;
};

Deno.test("success: one summary line, then the envelope as compact JSON", () => {
  const data = { items: [{ port: 5173 }], page: { nextCursor: "abc" } };
  const r = success(data, "1 port(s): 5173 idle;\n more with afterCursor.");
  const text = textOf(r);
  const { line, json } = split(text);
  assert.equal(line, "1 port(s): 5173 idle; more with afterCursor.", "newlines folded");
  assert.deepEqual(json, { ok: true, data });
  assert.deepEqual(r.structuredContent, { ok: true, data });
  assert.equal(text, `${line}\n${JSON.stringify(r.structuredContent)}`, "compact JSON");
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
  assert.match(down.message, /^The PortReeve daemon is not answering at \/run\/p\.sock/);
  assert.match(down.nextStep, /only a person can start it.*Retry this call/);
});

const listing = listTools(ALL_TOOLS).tools;

Deno.test("inputs are strict: the instructions say so once, no schema spends bytes on it", () => {
  assert.match(serverInstructions({ kind: "mcp" }), /inputs strict/);
  for (const { tool } of listing) {
    // A map still says what its values are; a closed object is closed by the instructions.
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
    const issues = (error.details as { issues: { path: string; message: string }[] }).issues;
    assert.ok(
      issues.some((i) => i.path === "" && i.message.includes("notAnArgument")),
      `${tool.name}: ${JSON.stringify(issues)}`,
    );
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
    "Invalid arguments for portreeve_settings_update_preview: updates: unsupported setting(s) bogus; only automaticPortRanges, excludedPorts, leaseTtlMilliseconds, ephemeralAssignmentTtlMilliseconds, gracefulShutdownMilliseconds, historyMaximumEvents, diagnosticLogMaximumBytes, diagnosticLogFiles can be changed.",
  );
  const empty = await catalogue.call(
    "portreeve_settings_update_preview",
    { updates: {} },
    noContext,
  );
  assert.match(textOf(empty), /updates: name at least one setting to change\./);
});
