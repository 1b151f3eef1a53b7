/**
 * Cursor binding as a property of every tool whose result is a page, not of the mechanism
 * alone: the paged tools are found from the definitions (an input that takes `afterCursor`, an
 * output that hands out `page.nextCursor`; a tool has both or neither), and each one's cursor is
 * walked against the catalogue over a scripted daemon that answers every listing whatever its
 * filters (so only the bridge can refuse): it continues its own listing, with `detail` or
 * without; every other paged tool refuses it; and the same tool refuses it under any other
 * value of any of its filters. A paged tool that hands out a cursor unbound to its name and
 * filters (the daemon's own, or one scoped without them) fails here, named.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import type { AnyTool } from "../../../src/catalogue/define.ts";
import { matches } from "../../../src/daemon/routes.ts";
import type { Schema } from "../../../src/results/compact/schema_nodes.ts";
import type { Json } from "../../../src/shared/json.ts";
import { type Reply, toolRig } from "../../support/scripted_daemon.ts";
import { type ExchangeName, recorded } from "../../support/recorded.ts";
import { validValue } from "../../support/input_walk.ts";

/** A recorded answer of each paged tool's listing; a new paged tool needs one here. */
const LISTINGS: Readonly<Record<string, ExchangeName>> = {
  portreeve_ports_list: "portsListening",
  portreeve_claims_list: "claimsOfWorkspace",
  portreeve_stacks_list: "stacksList",
  portreeve_generations_list: "generationsList",
  portreeve_activations_list: "activationsList",
  portreeve_history_list: "historyFirstPage",
  portreeve_launcher_operations_list: "launcherOperationsList",
};

/** Fields of a paged input that choose no listing: the page itself, and the form shown. */
const NOT_FILTERS = new Set(["limit", "afterCursor", "detail"]);

const listed = new Map(new Catalogue("full").listing().map((tool) => [tool.name, tool]));

function takesCursor(tool: AnyTool): boolean {
  return "afterCursor" in tool.input.shape;
}

function givesCursor(tool: AnyTool): boolean {
  return JSON.stringify(listed.get(tool.name)?.outputSchema ?? {}).includes('"nextCursor"');
}

const PAGED = ALL_TOOLS.filter((tool) => takesCursor(tool) || givesCursor(tool));

/** The recorded listing, with a record-answer widened to three records so a page can end. */
function listingReply(tool: AnyTool): Reply {
  const { reply, data } = recorded(LISTINGS[tool.name]);
  if (!Array.isArray(data)) return reply;
  const body = reply.body as Record<string, unknown>;
  return { ...reply, body: { ...body, data: [data[0], data[0], data[0]] } };
}

/** A daemon that answers each paged tool's listing, whatever the query. */
function listings() {
  const replies = PAGED.map((tool) => ({ route: tool.routes[0], reply: listingReply(tool) }));
  return toolRig((sent) => {
    const found = replies.find(({ route }) => matches(route, sent.method, sent.path));
    if (!found) throw new Error(`unscripted ${sent.method} ${sent.path}`);
    return found.reply;
  });
}

/** The tool's advertised input properties, and the arguments it needs (its required ones). */
function inputOf(tool: AnyTool): { properties: Record<string, Schema>; args: Json } {
  const schema = listed.get(tool.name)!.inputSchema as Schema;
  return {
    properties: (schema.properties ?? {}) as Record<string, Schema>,
    args: validValue(schema, schema) as Json,
  };
}

/** Two values a filter accepts that differ from each other (and from `current`, if set). */
function otherValues(field: Schema, root: Schema, current: unknown): unknown[] {
  const candidates: unknown[] = Array.isArray(field.enum)
    ? field.enum
    : field.type === "boolean"
    ? [true, false]
    : field.type === "integer"
    ? [Number(field.minimum ?? 1), Number(field.minimum ?? 1) + 1]
    : field.format === "uuid"
    ? [crypto.randomUUID(), crypto.randomUUID()]
    : field.format === "date-time"
    ? ["2026-11-30T04:18:12.000Z", "2026-11-29T04:18:12.000Z"]
    : [validValue(field, root), `${validValue(field, root)}-other`];
  return candidates.filter((value) => value !== current).slice(0, 2);
}

interface Refused {
  ok: boolean;
  error?: { code: string; details: Json };
}

function refusedCursor(result: Refused, reasons: readonly string[], where: string): void {
  assert.equal(result.ok, false, `${where}: accepted`);
  assert.equal(result.error?.code, "portreeve_invalid_input", where);
  assert.ok(
    reasons.includes(String(result.error?.details.reason)),
    `${where}: refused for ${JSON.stringify(result.error)}`,
  );
}

Deno.test("cursor binding: every paged tool's cursor continues only its own listing under its own filters", async () => {
  assert.ok(PAGED.length >= 7, `${PAGED.length} paged tools`);
  const unlisted = PAGED.filter((tool) => !Object.hasOwn(LISTINGS, tool.name));
  assert.deepEqual(unlisted.map((t) => t.name), [], "paged tools without a recorded listing here");
  for (const tool of PAGED) {
    assert.ok(takesCursor(tool) && givesCursor(tool), `${tool.name}: takes and gives cursors`);
    assert.equal(tool.routes.length, 1, `${tool.name}: one listing route`);
  }

  await using rig = listings();
  for (const tool of PAGED) {
    const { properties, args } = inputOf(tool);
    const schema = listed.get(tool.name)!.inputSchema as Schema;
    const first = await rig.call(tool.name, { ...args, limit: 1 });
    assert.equal(first.ok, true, `${tool.name}: ${first.text}`);
    const cursor = (first.data!.page as { nextCursor?: string }).nextCursor;
    assert.equal(typeof cursor, "string", `${tool.name}: a page of one hands out a cursor`);

    const again = await rig.call(tool.name, { ...args, limit: 1, afterCursor: cursor });
    assert.equal(again.ok, true, `${tool.name}: its own cursor continues (${again.text})`);
    if ("detail" in properties) {
      const full = await rig.call(tool.name, { ...args, afterCursor: cursor, detail: "full" });
      assert.equal(full.ok, true, `${tool.name}: detail is not a filter (${full.text})`);
    }

    for (const other of PAGED.filter((t) => t !== tool)) {
      const theirs = inputOf(other);
      // Alone, and with every filter value the two tools share: a cursor scoped to the wrong
      // tool's name would pass only there.
      const shared = Object.fromEntries(
        Object.entries(args).filter(([key]) => !NOT_FILTERS.has(key) && key in theirs.properties),
      );
      for (const with_ of [theirs.args, { ...theirs.args, ...shared }]) {
        const r = await rig.call(other.name, { ...with_, afterCursor: cursor });
        refusedCursor(
          r,
          ["cursor_scope_mismatch", "foreign_cursor"],
          `${tool.name}'s cursor in ${other.name} ${JSON.stringify(with_)}`,
        );
      }
    }

    const filters = Object.keys(properties).filter((key) => !NOT_FILTERS.has(key));
    assert.ok(filters.length > 0, `${tool.name} has filters`);
    for (const field of filters) {
      for (const value of otherValues(properties[field], schema, args[field])) {
        const r = await rig.call(tool.name, { ...args, [field]: value, afterCursor: cursor });
        refusedCursor(
          r,
          ["cursor_scope_mismatch"],
          `${tool.name}'s cursor with ${field}=${JSON.stringify(value)}`,
        );
      }
    }
  }
});
