/**
 * What every host's model can read: results whose text carries the whole envelope, errors
 * that stand alone, input schemas that say what the server refuses, and instructions whose
 * first 250 characters hold the rule that matters.
 */
import assert from "node:assert/strict";
import { errorEnvelope, failure, success } from "../../../src/catalogue/result.ts";
import { BridgeError, Codes, invalidInput } from "../../../src/errors.ts";
import { unavailable } from "../../../src/daemon/errors.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { listTools } from "../../../src/catalogue/describe.ts";
import { serverInstructions } from "../../../src/catalogue/instructions.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";

type Json = Record<string, unknown>;

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

Deno.test("failure: the text alone has code, message, retryable, next step and details", () => {
  const error = new BridgeError("portreeve_not_found", "No claim 42.", false, { reason: "gone" });
  const r = failure(error);
  const { line, json } = split(textOf(r));
  assert.equal(line, "portreeve_not_found (not retryable): No claim 42.");
  assert.deepEqual(json, r.structuredContent);
  const body = (json as { ok: boolean; error: Json }).error;
  assert.deepEqual(Object.keys(body), ["code", "message", "retryable", "nextStep", "details"]);
  assert.equal(body.retryable, false);
  assert.match(body.nextStep as string, /list tools/);
  assert.deepEqual(body.details, { reason: "gone" });
  assert.equal(r.isError, true);

  const down = split(textOf(failure(unavailable("/run/p.sock", "ENOENT"))));
  assert.match(down.line, /^portreeve_unavailable \(retryable\): The PortReeve daemon is not/);
  assert.match(
    ((down.json as { error: Json }).error.nextStep) as string,
    /portreeve start.*retry/,
  );
});

Deno.test("every error has a next step: per code, per error, and a fallback", () => {
  for (const code of Object.values(Codes)) {
    assert.ok(errorEnvelope(new BridgeError(code, "m", false)).nextStep.length > 20, code);
  }
  const specific = new BridgeError("portreeve_conflict", "m", false, {}, "Preview again.");
  assert.equal(errorEnvelope(specific).nextStep, "Preview again.");
  assert.match(errorEnvelope(new BridgeError("portreeve_x", "m", true)).nextStep, /^Retry/);
  assert.match(errorEnvelope(new BridgeError("portreeve_x", "m", false)).nextStep, /Do not retry/);
  // The daemon's own `unavailable` is about evidence (e.g. Docker), not a daemon that is down.
  assert.match(
    errorEnvelope(new BridgeError(Codes.unavailable, "Docker is missing.", false)).nextStep,
    /could not observe/,
  );
  assert.match(errorEnvelope(invalidInput("bad")).nextStep, /Correct the arguments/);
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
    const text = textOf(r);
    const { line, json } = split(text);
    assert.deepEqual(json, r.structuredContent, tool.name);
    const error = (json as { error: Json }).error;
    assert.equal(error.code, "portreeve_invalid_input", tool.name);
    assert.ok(line.startsWith("portreeve_invalid_input (not retryable): "), tool.name);
    assert.match(line, /notAnArgument/, `${tool.name}: the summary names the key`);
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
  const { message } = (r.structuredContent as { error: { message: string } }).error;
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
