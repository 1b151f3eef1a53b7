/**
 * Context budgets: what the model pays for the catalogue, in bytes of name + description +
 * compact-JSON input schema, and the whole tools/list entries; and for the largest results.
 */
import assert from "node:assert/strict";
import listing from "../../src/catalogue/tools_list.json" with { type: "json" };

type Entry = { kind: string; tool: { name: string; description: string; inputSchema: unknown } };
const tools = listing.tools as unknown as Entry[];
const FIRST = [
  "portreeve_diagnostics",
  "portreeve_compatibility",
  "portreeve_health",
  "portreeve_settings_get",
];
const visible = (entries: Entry[]) =>
  entries.reduce(
    (n, e) =>
      n + e.tool.name.length + e.tool.description.length +
      JSON.stringify(e.tool.inputSchema).length,
    0,
  );

Deno.test("18 inspection tools stay under 7 KB model-visible", () => {
  const read = tools.filter((e) => e.kind === "read" && !FIRST.includes(e.tool.name));
  assert.equal(read.length, 18);
  assert.ok(visible(read) < 7000, `${visible(read)} bytes`);
});

Deno.test("15 coordination tools stay under 9 KB model-visible", () => {
  const mutations = tools.filter((e) => e.kind === "mutation");
  assert.equal(mutations.length, 15);
  assert.ok(visible(mutations) < 9000, `${visible(mutations)} bytes`);
});

Deno.test("14 preview/execute tools stay under 6 KB model-visible", () => {
  const receipts = tools.filter((e) => e.kind === "preview" || e.kind === "execute");
  assert.equal(receipts.length, 14);
  assert.ok(visible(receipts) < 6000, `${visible(receipts)} bytes`);
});

Deno.test("the full tools/list stays under 60 KB, 22 KB model-visible", () => {
  assert.equal(tools.length, 51);
  const total = JSON.stringify(tools.map((e) => e.tool)).length;
  assert.ok(total < 60 * 1024, `${total} bytes`);
  assert.ok(visible(tools) < 22 * 1024, `${visible(tools)} bytes`);
});

/**
 * Result budgets: model-visible bytes (structuredContent as compact JSON) of the largest
 * results over the reference session's calls, replayed in process against the simulator.
 * The figures the bench compares with the reference bridge come from the same sequence.
 */
Deno.test("the largest results stay within their compact budgets", async () => {
  const { createBridge } = await import("../../src/transport/services.ts");
  const { startSimulator } = await import("../../src/simulator/mod.ts");
  const { runResultScenario } = await import("../shared/result_scenario.ts");
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-budget-" }));
  const socketPath = `${dir}/portreeve.sock`;
  const sim = await startSimulator({ socketPath, observeHost: false });
  await Deno.mkdir(`${dir}/ws`);
  await Deno.mkdir(`${dir}/stack`);
  const bridge = createBridge({ socket: { path: socketPath, source: "flag" }, toolset: "full" });
  const ctx = { ...await bridge.services(), signal: new AbortController().signal };
  const largest = new Map<string, number>();
  try {
    await runResultScenario(async (_seq, tool, args) => {
      const result = await bridge.catalogue.call(tool, args, ctx);
      const content = result.structuredContent as { ok: boolean; data?: Record<string, unknown> };
      const bytes = JSON.stringify(content).length;
      largest.set(tool, Math.max(largest.get(tool) ?? 0, bytes));
      return content;
    }, { sim, workspace: `${dir}/ws`, stackRoot: `${dir}/stack` });
  } finally {
    await bridge.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
  const BUDGETS: Record<string, number> = {
    portreeve_history_list: 3950,
    portreeve_stack_status: 1850,
    portreeve_port_reclaim_preview: 1400,
    portreeve_stack_apply_preview: 1150,
    portreeve_activation_begin: 1180,
    portreeve_ports_list: 920,
    portreeve_activation_confirm_endpoint: 920,
    portreeve_activation_end: 920,
    portreeve_activation_get: 900,
    portreeve_stack_apply_execute: 950,
    portreeve_port_inspect: 830,
  };

  for (const [tool, budget] of Object.entries(BUDGETS)) {
    const bytes = largest.get(tool) ?? Infinity;
    assert.ok(bytes <= budget, `${tool}: ${bytes} bytes > ${budget}`);
  }
});
