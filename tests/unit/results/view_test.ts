/**
 * A tool's default view (src/results/view.ts): what it leaves out is said in the result's own
 * `notShown`, once, in words a reader follows without any other text; an empty field is left
 * to the compactor (which says what it leaves out); and every view a definition declares names
 * fields its served output schema has, rarely used ones only on tools that offer
 * `detail: "full"`, and others only tools that exist.
 */
import assert from "node:assert/strict";
import { applyView, type ResultView } from "../../../src/results/view.ts";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { servedDataSchema } from "../../support/expand.ts";
import { readNote, restoreStated } from "../../support/not_shown.ts";
import * as nodes from "../../../src/results/compact/schema_nodes.ts";
import type { Json } from "../../../src/shared/json.ts";

const STATUS: ResultView = { rare: ["stack.definition", "stack.currentRevision"] };

Deno.test("rarely used fields are left out with their names, once", () => {
  const data = { stack: { id: "s", definition: { version: 1 }, currentRevision: "r" } };
  const { data: shown, note } = applyView(STATUS, data);
  assert.deepEqual(shown, { stack: { id: "s" } });
  assert.equal(note, "stack.definition, stack.currentRevision (detail: full)");
  assert.deepEqual(readNote(note).shownWithDetail, ["stack.definition", "stack.currentRevision"]);
  assert.equal(data.stack.currentRevision, "r", "the records themselves are untouched");
});

Deno.test("an empty or absent field needs no words: the compactor leaves it out", () => {
  const { data: shown, note } = applyView(STATUS, { stack: { id: "s", definition: null } });
  assert.deepEqual(shown, { stack: { id: "s", definition: null } });
  assert.equal(note, undefined);
  assert.deepEqual(applyView(STATUS, { stack: { id: "s" } }), { data: { stack: { id: "s" } } });
});

Deno.test("a field left out in some records only says which", () => {
  const view: ResultView = {
    rare: ["items[].id", {
      path: "items[].payload",
      when: (event) => event.eventType === "claim.created",
      which: "of claim.created events",
    }],
  };
  const items = [
    { id: "1", eventType: "claim.created", payload: { mode: "sticky" } },
    { id: "2", eventType: "lease.acquired", payload: { port: 3000 } },
  ];
  const { data: shown, note } = applyView(view, { items });
  assert.deepEqual(shown, {
    items: [{ eventType: "claim.created" }, {
      eventType: "lease.acquired",
      payload: { port: 3000 },
    }],
  });
  assert.equal(
    note,
    "items[].id, items[].payload of claim.created events (detail: full)",
  );
  assert.deepEqual(readNote(note).shownWithDetail, ["items[].id", "items[].payload"]);
});

Deno.test("a value stated twice is left out where the note says the same result states it", () => {
  const view: ResultView = {
    same: [{ path: "observed.stack.definition", as: "proposal.definition" }],
    merged: [{ path: "proposal.proposed", base: "observed.current", changes: "proposal.updates" }],
  };
  const data = {
    proposal: { definition: { project: "p" }, updates: { b: 3 }, proposed: { a: 1, b: 3 } },
    observed: { stack: { definition: { project: "p" } }, current: { a: 1, b: 2 } },
  };
  const { data: shown, note } = applyView(view, data);
  assert.equal(
    note,
    "observed.stack.definition (= proposal.definition); " +
      "proposal.proposed (observed.current with proposal.updates applied)",
  );
  assert.deepEqual(restoreStated(shown as Json, readNote(note).stated), data);
  // Values that differ stay where they are, and nothing is said.
  const other = structuredClone(data);
  other.observed.stack.definition.project = "q";
  other.proposal.proposed.a = 9;
  assert.deepEqual(applyView(view, other), { data: other });
});

/** Whether the served data schema has a field at `path` (`items[]` steps into a list). */
function declares(tool: string, path: string): boolean {
  const { data, defs } = servedDataSchema(tool);
  let nodesAt: unknown[] = [data];
  for (const key of path.split(".")) {
    const name = key.replace(/\[\]$/, "");
    nodesAt = nodesAt.flatMap((node) => {
      const resolved = nodes.resolve(node, defs);
      const options = Array.isArray(resolved.anyOf)
        ? resolved.anyOf.map((o) => nodes.resolve(o, defs))
        : [resolved];
      return options.flatMap((option) => {
        const field = nodes.isRecord(option) ? option.properties[name] : undefined;
        if (field === undefined) return [];
        if (!key.endsWith("[]")) return [field];
        const list = nodes.resolve(field, defs);
        return nodes.isArray(list) ? [list.items] : [];
      });
    });
  }
  return nodesAt.length > 0;
}

Deno.test("a field another tool shows is left out wherever it has a value, naming that tool", () => {
  const view: ResultView = {
    shownBy: [{ path: "daemon.health.capabilities", tool: "portreeve_health" }],
  };
  const data = { daemon: { health: { pid: 1, capabilities: ["claims-v1"] } } };
  const { data: shown, note } = applyView(view, data);
  assert.deepEqual(shown, { daemon: { health: { pid: 1 } } });
  assert.equal(note, "daemon.health.capabilities (portreeve_health)");
  assert.deepEqual(readNote(note).shownBy, [
    { path: "daemon.health.capabilities", tool: "portreeve_health" },
  ]);
  assert.deepEqual(applyView(view, { daemon: { health: null } }), {
    data: { daemon: { health: null } },
  });
});

Deno.test("every declared view names fields of the tool's served output; rare ones need detail", () => {
  let views = 0;
  for (const tool of ALL_TOOLS) {
    const view = tool.view;
    if (view === undefined) continue;
    views++;
    const paths = [
      ...(view.rare ?? []).map((entry) => typeof entry === "string" ? entry : entry.path),
      ...(view.same ?? []).flatMap(({ path, as }) => [path, as]),
      ...(view.merged ?? []).flatMap(({ path, base, changes }) => [path, base, changes]),
      ...(view.shownBy ?? []).map(({ path }) => path),
    ];
    for (const path of paths) assert.ok(declares(tool.name, path), `${tool.name}: ${path}`);
    if ((view.rare ?? []).length > 0) {
      assert.ok(tool.detail, `${tool.name} leaves fields out but offers no detail: "full"`);
    }
    for (const { tool: other } of view.shownBy ?? []) {
      assert.ok(ALL_TOOLS.some((t) => t.name === other), `${tool.name}: ${other} is a tool`);
    }
  }
  assert.ok(views > 0);
});
