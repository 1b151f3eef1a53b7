/**
 * Every input bounded, by construction. One walk over every tool's advertised input schema
 * fails on a string without a bound (maxLength, or a format or anchored pattern that fixes
 * its length), a list without maxItems, a map without maxProperties and a bounded key, and any
 * value left untyped. Then, through the real catalogue over a daemon that must not be reached,
 * every string input of every tool (list items, map keys and values included), one character
 * over its bound and far over it, is `portreeve_invalid_input` naming that field.
 */
import { INPUT_BOUNDS } from "../../../src/shared/input_bounds.ts";
import assert from "node:assert/strict";
import listing from "../../../src/catalogue/tools_list.json" with { type: "json" };
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { namesPath, stringInputs, validValue } from "../../support/input_walk.ts";
import { inputBounds } from "../../../src/results/input_limits.ts";
import { ok, toolRig } from "../../support/scripted_daemon.ts";
import type { Schema } from "../../../src/results/compact/schema_nodes.ts";

const tools = listing.tools.map((entry) => entry.tool) as unknown as {
  name: string;
  inputSchema: Schema;
}[];

/** Every input under `schema` that nothing bounds, as `path: kind`. */
function unbounded(schema: Schema, name: string): string[] {
  const anyJson = ALL_TOOLS.find((tool) => tool.name === name)?.anyJsonInputs;
  return inputBounds(schema, schema, name, anyJson).filter((b) => b.bound === "none")
    .map((b) => b.path);
}

Deno.test("every string, list and map input of every tool is bounded in its advertised schema", () => {
  assert.equal(tools.length, ALL_TOOLS.length);
  const found = tools.flatMap((tool) => unbounded(tool.inputSchema, tool.name));
  assert.deepEqual(found, [], `unbounded inputs:\n${found.join("\n")}`);
  for (const tool of ALL_TOOLS) {
    for (const field of Object.keys(tool.anyJsonInputs ?? {})) {
      const schema = tools.find((t) => t.name === tool.name)?.inputSchema.properties as Schema;
      assert.deepEqual(schema?.[field], {}, `${tool.name}.${field} is still an any-JSON input`);
    }
  }
});

Deno.test("the walk notices what it must: an unbounded string, list, map, key or value", () => {
  const probe = (schema: Schema) => unbounded(schema, "t");
  const closed = { type: "object", additionalProperties: false };
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string" } } }), ["t.a"]);
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string", pattern: "^a+$" } } }), [
    "t.a",
  ]);
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "array", items: {} } } }), [
    "t.a",
    "t.a[]",
  ]);
  assert.deepEqual(
    probe({ type: "object", additionalProperties: { type: "string", maxLength: 1 } }),
    ["t"],
  );
  assert.deepEqual(
    probe({ type: "object", maxProperties: 2, additionalProperties: { type: "string" } }),
    ["t", "t{}"],
  );
  assert.deepEqual(probe({ ...closed, properties: { a: { type: "string", format: "uuid" } } }), []);
  assert.deepEqual(
    probe({ ...closed, properties: { a: { type: "string", pattern: "^[a-f0-9]{12,64}$" } } }),
    [],
  );
});

Deno.test("an any-JSON input is refused over its stated size, before the daemon", async () => {
  await using rig = toolRig(() => {
    throw new Error("no request may reach the daemon");
  });
  const big = { project: "x".repeat(INPUT_BOUNDS.definition.max) };
  const result = await rig.call("portreeve_stack_definition_validate", { definition: big });
  assert.equal(result.error?.code, "portreeve_invalid_input");
  assert.ok(namesPath(result.error!.message, "definition"), result.error?.message);
  assert.equal(rig.daemon.sent.length, 0);
});

for (const tool of tools) {
  const inputs = stringInputs(tool.inputSchema);
  if (inputs.length === 0) continue;
  Deno.test(`${tool.name}: every over-long string input is invalid_input naming it, unsent`, async () => {
    await using rig = toolRig(() => {
      throw new Error("no request may reach the daemon");
    });
    for (const input of inputs) {
      assert.ok(input.max < Infinity, `${tool.name} ${input.path} has a bound`);
      for (const extra of [1, 100_000]) {
        const label = `${tool.name} ${input.path}${input.key ? " (a key)" : ""} +${extra}`;
        const result = await rig.call(tool.name, input.argsWith(extra));
        assert.equal(result.error?.code, "portreeve_invalid_input", label);
        const message = result.error!.message;
        assert.ok(namesPath(message, input.path, input.key), `${label}: ${message.slice(0, 200)}`);
        // The refusal names the field; it does not echo the value back.
        assert.ok(JSON.stringify(result).length < 4_000, `${label}: a short answer`);
      }
    }
    assert.equal(rig.daemon.sent.length, 0, `${tool.name}: nothing reached the daemon`);
  });
}

/** Bun's default limit on a request's header block (the real daemon's runtime), in bytes. */
const DAEMON_HEADER_LIMIT = 16 * 1024;

Deno.test("within the bounds, no filter makes a request line the real daemon's runtime refuses", async () => {
  // Every string filter at its bound in three-byte characters, each byte percent-encoded three
  // times over in the query: the longest request line any input can make.
  const worst = (schema: Schema): unknown => {
    const max = schema.maxLength as number;
    // Formatted strings (times) are ASCII and short: left out.
    if (schema.type !== "string" || typeof max !== "number" || schema.format) return undefined;
    return max >= 1024 ? `/${"€".repeat(Math.floor((max - 1) / 3))}` : "€".repeat(max);
  };
  const sent: string[] = [];
  await using rig = toolRig((request) => {
    if (request.method === "GET") {
      sent.push(
        `${request.path}?${new URLSearchParams(request.payload as Record<string, string>)}`,
      );
    }
    return ok(request.path === "/v1/history" ? { items: [], page: {} } : []);
  });
  for (const tool of tools.filter((t) => /_list$/.test(t.name))) {
    const props = tool.inputSchema.properties as Record<string, Schema>;
    const args = {
      ...validValue(tool.inputSchema, tool.inputSchema) as Record<string, unknown>,
      ...Object.fromEntries(
        Object.entries(props).map(([key, schema]) => [key, worst(schema)])
          .filter(([key, value]) => value !== undefined && key !== "afterCursor"),
      ),
    };
    const result = await rig.call(tool.name, args);
    assert.equal(result.error?.code ?? "ok", "ok", `${tool.name}: ${result.error?.message}`);
  }
  const longest = Math.max(...sent.map((line) => line.length));
  // `GET http://[100::]<target> HTTP/1.1` and the few headers the client sends.
  assert.ok(longest + 300 < DAEMON_HEADER_LIMIT, `${longest}-character request target`);
  assert.ok(longest > 15_000, `the worst case was reached (${longest})`);
});
