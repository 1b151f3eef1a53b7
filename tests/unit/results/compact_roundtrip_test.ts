/**
 * Compact results lose nothing and need no outside rule: for every tool, the compact data
 * expands — by the result itself and the advertised output schema alone
 * (tests/support/expand.ts) — back to exactly the records the tool got from the daemon (the
 * simulator's over a whole session, and a real daemon's recorded answers), but for the fields
 * the result's own `notShown` names as shown by `detail: "full"`; each of those is left out
 * somewhere, the tool offers `detail`, and `detail: "full"` returns it.
 */
import { APPROVING_HOST } from "../../support/person.ts";
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { runTool } from "../../../src/catalogue/catalogue.ts";
import { compactData } from "../../../src/results/compact/mod.ts";
import { createBridge } from "../../../src/bridge/mod.ts";
import { startSimulator } from "../../../src/simulator/mod.ts";
import { expandWhole, servedDataSchema } from "../../support/expand.ts";
import { differences } from "../../support/not_shown.ts";
import type { ToolDefinition } from "../../../src/catalogue/define.ts";
import { isObject } from "../../../src/shared/json.ts";
import { runResultScenario } from "../../support/result_scenario.ts";
import recorded from "../../fixtures/reference_daemon_answers.json" with { type: "json" };
import type { Json } from "../../../src/shared/json.ts";

const bytes = (value: unknown) => JSON.stringify(value).length;

Deno.test("every tool's compact data expands back to the simulator's records", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-compact-" }));
  const socketPath = `${dir}/portreeve.sock`;
  const sim = await startSimulator({ socketPath, observeHost: false });
  const workspace = `${dir}/ws`;
  const stackRoot = `${dir}/stack`;
  await Deno.mkdir(workspace);
  await Deno.mkdir(stackRoot);
  const bridge = createBridge({ socket: { path: socketPath, source: "flag" }, toolset: "full" });
  const services = await bridge.services();
  // The default mode with a person who approves: executes go through as they would.
  const ctx = { ...services, signal: new AbortController().signal, host: APPROVING_HOST };
  const byName = new Map(ALL_TOOLS.map((tool) => [tool.name, tool]));
  const covered = new Set<string>();
  const run = async (tool: string, args: Json) => {
    const definition = byName.get(tool)!;
    try {
      const ran = await runTool(definition, args, ctx);
      const full = ran.full as Json;
      const compact = ran.shown as Json;
      const named = explained(tool, full, compact);
      if (named.length > 0) {
        assert.ok(definition.detail, `${tool} leaves fields out but offers no detail: "full"`);
        const whole = await runTool(definition, { ...args, detail: "full" }, ctx);
        for (const path of named) {
          assert.ok(
            hasValueAt(whole.shown, path.split(".")),
            `${tool}: detail "full" gives ${path}`,
          );
        }
      }
      assert.ok(bytes(compact) <= bytes(full), `${tool} grew`);
      covered.add(tool);
      return { ok: true, data: compact };
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      return { ok: false };
    }
  };
  try {
    await runResultScenario((_seq, tool, args) => run(tool, args), { sim, workspace, stackRoot });
    // Tools the reference session never called: a second stack whose web endpoint is
    // optional, so one endpoint can be skipped and the other abandoned.
    const optionalRoot = `${dir}/optional`;
    await Deno.mkdir(optionalRoot);
    const definition = {
      version: 1,
      project: "optional",
      components: {
        api: { endpoints: { http: {} } },
        web: { endpoints: { http: { required: false } } },
      },
    };
    const apply = await run("portreeve_stack_apply_preview", {
      stackRoot: optionalRoot,
      definition,
    });
    const applied = await run("portreeve_stack_apply_execute", {
      receiptId: apply.data?.receiptId,
      stackRoot: optionalRoot,
    });
    const stackId = ((applied.data?.result as Json).stack as Json).id as string;
    const prepared = await run("portreeve_stack_prepare", { stackId });
    const generationId = (prepared.data?.generation as Json).id as string;
    const claimId = ((prepared.data?.generation as Json).endpoints as Json[])[0].claimId;
    await run("portreeve_claim_reassign_preview", { claimId });
    const begun = await run("portreeve_activation_begin", {
      generationId,
      bindings: { api: "process", web: "process" },
    });
    const activationId = (begun.data?.activation as Json).id as string;
    const leases = begun.data?.leases as Json[];
    const handleOf = (component: string) =>
      leases.find((l) => l.component === component)!.credentialHandle;
    await run("portreeve_activation_skip_endpoint", {
      activationId,
      credentialHandle: handleOf("web"),
    });
    await run("portreeve_activation_abandon_endpoint", {
      activationId,
      credentialHandle: handleOf("api"),
      reason: "startup-error",
    });
    // The executes the reference session never reached, each right after its preview.
    const executed = async (stem: string, args: Json) => {
      const preview = await run(`portreeve_${stem}_preview`, args);
      const { port: _port, policy: _policy, updates: _u, olderThanMilliseconds: _o, ...target } =
        args;
      await run(`portreeve_${stem}_execute`, { receiptId: preview.data?.receiptId, ...target });
    };
    await executed("claim_reassign", { claimId });
    // Something to prune (a preview that finds nothing is never executed): a claim whose
    // workspace is gone, and a stack whose root is gone.
    const goneWorkspace = `${dir}/gone-ws`;
    await Deno.mkdir(goneWorkspace);
    const gone = await run("portreeve_lease_acquire", {
      claim: { project: "gone", workspaceRoot: goneWorkspace, component: "api" },
    });
    await run("portreeve_lease_abandon", {
      credentialHandle: gone.data?.credentialHandle,
      reason: "client-cancelled",
    });
    await Deno.remove(goneWorkspace);
    await executed("claims_prune", { olderThanMilliseconds: 0 });
    const goneRoot = `${dir}/gone-stack`;
    await Deno.mkdir(goneRoot);
    const goneApply = await run("portreeve_stack_apply_preview", {
      stackRoot: goneRoot,
      definition: { ...definition, project: "gone" },
    });
    await run("portreeve_stack_apply_execute", {
      receiptId: goneApply.data?.receiptId,
      stackRoot: goneRoot,
    });
    await Deno.remove(goneRoot, { recursive: true });
    await executed("stacks_prune", { olderThanMilliseconds: 0 });
    await executed("settings_update", { updates: { excludedPorts: [18098] } });
    // Something to reclaim: a confirmed run with a listener.
    const held = await run("portreeve_lease_acquire", {
      claim: { project: "held", workspaceRoot: workspace, component: "api" },
    });
    const heldPort = held.data?.port as number;
    sim.control.addListener(heldPort, 4646, { command: "node" });
    await run("portreeve_lease_confirm", {
      credentialHandle: held.data?.credentialHandle,
      rootPid: 4646,
    });
    const reclaim = await run("portreeve_port_reclaim_preview", {
      port: heldPort,
      policy: "graceful",
    });
    await run("portreeve_port_reclaim_execute", {
      receiptId: reclaim.data?.receiptId,
      port: heldPort,
    });
  } finally {
    await bridge.close();
    await sim.close();
    await Deno.remove(dir, { recursive: true });
  }
  const missed = ALL_TOOLS.map((t) => t.name).filter((name) => !covered.has(name));
  assert.deepEqual(missed, NEVER_SUCCEED_HERE);
  for (const { name } of ALL_TOOLS.filter((tool) => tool.detail)) assert.ok(byName.has(name), name);
});

/**
 * Expands a compact result by itself and holds it to the records: every field missing is one its
 * note names as shown by `detail: "full"`, every name is of a field missing, nothing else
 * differs. Returns the names.
 */
function explained(tool: string, full: Json, compact: Json): string[] {
  const { data, shownWithDetail } = expandWhole(tool, structuredClone(compact));
  const diff = differences(full, data);
  assert.deepEqual(diff.other, [], tool);
  for (const path of diff.missing) {
    assert.ok(shownWithDetail.includes(path), `${tool}: ${path} left out, and the result says not`);
  }
  for (const path of shownWithDetail) {
    assert.ok(diff.missing.has(path), `${tool}: the note names ${path}, which is shown`);
  }
  return shownWithDetail;
}

/** Whether a non-empty value stands at `keys` (`items[]` steps into each item) anywhere. */
function hasValueAt(value: unknown, keys: readonly string[]): boolean {
  if (keys.length === 0) {
    return value !== undefined && value !== null && JSON.stringify(value) !== "{}" &&
      JSON.stringify(value) !== "[]";
  }
  if (!isObject(value)) return false;
  const [key, ...rest] = keys;
  if (!key.endsWith("[]")) return hasValueAt(value[key], rest);
  const list = value[key.slice(0, -2)];
  return Array.isArray(list) && list.some((item) => hasValueAt(item, rest));
}

/** The tools every call of which reaches a real daemon's refusal or a person here. */
const NEVER_SUCCEED_HERE: string[] = [];

/** The tool's data for a daemon answer: lists are paged, previews gain the bridge's fields. */
function toolData(tool: string, answer: unknown): Json {
  if (Array.isArray(answer)) return { items: answer, page: { itemCount: answer.length } };
  if (tool.endsWith("_preview")) {
    return {
      ...(answer as Json),
      summary: "…",
      blockers: [],
      nextStep: "…",
      approval: "host_asks_user",
    };
  }
  return answer as Json;
}

Deno.test("a real daemon's recorded answers survive compact → expand, each field left out named", () => {
  const seen = new Set<string>();
  const views = new Map(ALL_TOOLS.map((tool: ToolDefinition) => [tool.name, tool.view]));
  for (const answer of recorded.answers) {
    const data = toolData(answer.tool, answer.data);
    const compact = compactData(
      servedDataSchema(answer.tool),
      structuredClone(data),
      views.get(answer.tool),
    ) as Json;
    explained(answer.tool, data, compact);
    assert.ok(bytes(compact) <= bytes(data), answer.route);
    seen.add(answer.tool);
  }
  assert.ok(seen.size >= 25, `${seen.size} tools`);
});

Deno.test("process fingerprints appear once per result, referenced by pid", () => {
  const port = recorded.answers.find((a) => a.route === "GET /v1/ports?listening=true")!;
  const items = port.data as unknown[];
  const page = compactData(
    servedDataSchema("portreeve_ports_list"),
    { items, page: { itemCount: items.length } },
  ) as Json;
  const text = JSON.stringify(page);
  const pids = Object.keys(page.processes as Json);
  assert.ok(pids.length > 0);
  assert.equal(text.split(`"workingDirectory"`).length - 1, pids.length);
  // Elsewhere a fingerprint is its pid alone, which the table holds.
  for (
    const [, pid] of text.matchAll(/"(?:process|rootFingerprint|fingerprint)":\{"pid":(\d+)\}/g)
  ) {
    assert.ok(pids.includes(pid), pid);
  }
  assert.match(text, /"rootFingerprint":\{"pid":\d+\}/);
});
