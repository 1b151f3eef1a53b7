/**
 * The effects promise, walked: every tool of the catalogue, with every value of every enum
 * field of its advertised input, under every approval situation, against the simulator on a
 * real Unix socket through the real daemon client. For each call it checks what reached the
 * daemon:
 *
 * - every request matches a declared route, one the calling tool declares (or the
 *   compatibility probe's): no undeclared path;
 * - a request whose declared effect is consequential came from an approved call: the person
 *   said yes, or `--approval off`, or an execute under `auto` on a host that cannot ask (the
 *   receipt flow, where the preview told the agent to ask) — never otherwise;
 * - the declarations are true: when the simulator's history shows a consequential event
 *   (a signal, a deletion, a moved claim, a written stack file, changed settings) during the
 *   call, one of the call's requests was declared consequential.
 *
 * And, so the walk cannot pass by missing its target: every consequential route was reached
 * by an approved call, and every value a declared effect depends on was sent.
 */
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";
import { Memory } from "../../../src/catalogue/memory.ts";
import { ReceiptBook } from "../../../src/catalogue/receipt_book.ts";
import { daemonRenewers, RENEWAL_ROUTES } from "../../../src/catalogue/renewers.ts";
import { effectsMap } from "../../../src/catalogue/effects_map.ts";
import { Custody } from "../../../src/custody/mod.ts";
import { DaemonClient } from "../../../src/daemon/client.ts";
import { HEALTH_ROUTE } from "../../../src/daemon/replies.ts";
import { declaredRoutes, matches, type Route } from "../../../src/daemon/routes.ts";
import { canBeConsequential, effectOf, isValueRule } from "../../../src/daemon/effects.ts";
import type { HostChannel } from "../../../src/host_channel.ts";
import type { ApprovalMode } from "../../../src/approval_modes.ts";
import { startSimulator } from "../../../src/simulator/mod.ts";
import { seeder } from "../../e2e/seed.ts";
import { FakeClock } from "../../support/fake_clock.ts";

type Json = Record<string, unknown>;

/** History events that only a consequential request produces (protocol §4.11). */
const CONSEQUENTIAL_EVENTS = new Set([
  "reclamation.signal-sent",
  "claim.deleted",
  "claim.pruned",
  "claim.reassigned",
  "stack.pruned",
  "stack.created",
  "stack.definition.applied",
  "config.updated",
]);

interface Situation {
  name: string;
  approval: ApprovalMode;
  host: HostChannel;
  /** The person (or the mode) lets every consequential request through. */
  approves: boolean;
}

const ANSWER = (approve: boolean) => () =>
  Promise.resolve(
    approve ? { action: "accept", content: { approve: true } } : { action: "decline" },
  );

const SITUATIONS: readonly Situation[] = [
  { name: "auto, host cannot ask", approval: "auto", host: { canAsk: false }, approves: false },
  {
    name: "auto, the person declines",
    approval: "auto",
    host: { canAsk: true, ask: ANSWER(false) },
    approves: false,
  },
  {
    name: "required, host cannot ask",
    approval: "required",
    host: { canAsk: false },
    approves: false,
  },
  {
    name: "auto, the person approves",
    approval: "auto",
    host: { canAsk: true, ask: ANSWER(true) },
    approves: true,
  },
  { name: "off", approval: "off", host: { canAsk: false }, approves: true },
];

/** Whether an approved call may have sent a consequential request in this situation. */
function approved(kind: string, situation: Situation): boolean {
  if (situation.approves) return true;
  // The receipt flow: the preview told the agent to get the person's yes first.
  return kind === "execute" && situation.approval === "auto" && !situation.host.canAsk;
}

const STACK = {
  version: 1,
  project: "walk",
  components: {
    api: { endpoints: { http: {} } },
    web: { endpoints: { http: { required: false } } },
  },
};

/** One fresh simulator and bridge services; state is built on demand, once. */
class World {
  readonly dir: string;
  readonly sim: Awaited<ReturnType<typeof startSimulator>>;
  readonly seed: ReturnType<typeof seeder>;
  readonly services: Omit<ToolContext, "capabilities" | "signal" | "host" | "bridge">;
  readonly catalogue = new Catalogue("full");
  #made = new Map<string, Promise<Json>>();

  private constructor(dir: string, sim: World["sim"], client: DaemonClient) {
    this.dir = dir;
    this.sim = sim;
    this.seed = seeder(sim.socketPath);
    this.services = {
      daemon: client,
      custody: new Custody({ clock: new FakeClock(Date.now()), renewers: daemonRenewers(client) }),
      memory: new Memory(),
      receipts: new ReceiptBook(),
    };
  }

  static async open(): Promise<World> {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-walk-" }));
    const sim = await startSimulator({ socketPath: `${dir}/s.sock`, observeHost: false });
    const client = new DaemonClient({ socketPath: sim.socketPath, runId: crypto.randomUUID() });
    return new World(dir, sim, client);
  }

  context(situation: Situation): Omit<ToolContext, "capabilities"> {
    return {
      ...this.services,
      signal: new AbortController().signal,
      host: situation.host,
      bridge: {
        runId: crypto.randomUUID(),
        label: "walk",
        socketPath: this.sim.socketPath,
        socketSource: "flag",
        toolset: "full",
        requiredCapabilities: this.catalogue.requiredCapabilities(),
        approval: situation.approval,
        approvalMs: 5_000,
      },
    };
  }

  async call(tool: string, args: Json, situation: Situation): Promise<CallToolResult> {
    const answer = await this.catalogue.call(tool, args, this.context(situation));
    return answer as CallToolResult;
  }

  /** A set-up call that must succeed (no consequential effect is ever needed to set up). */
  async setup(tool: string, args: Json): Promise<Json> {
    const result = await this.call(`portreeve_${tool}`, args, SITUATIONS[0]);
    const envelope = result.structuredContent as { ok: boolean; data?: Json };
    assert.ok(envelope.ok, `set-up ${tool}: ${JSON.stringify(result.structuredContent)}`);
    return envelope.data!;
  }

  once(key: string, make: () => Promise<Json>): Promise<Json> {
    if (!this.#made.has(key)) this.#made.set(key, make());
    return this.#made.get(key)!;
  }

  async folder(name: string): Promise<string> {
    const path = `${this.dir}/${name}`;
    await Deno.mkdir(path, { recursive: true });
    return path;
  }

  /** A claim whose confirmed run listens (fake pid 4242): what a reclaim would signal. */
  running(): Promise<Json> {
    return this.once("running", async () => {
      const claim = { project: "walk", workspaceRoot: await this.folder("ws"), component: "api" };
      const lease = await this.setup("lease_acquire", { claim });
      this.sim.control.addListener(lease.port as number, 4242, { command: "node" });
      const run = await this.setup("lease_confirm", {
        credentialHandle: lease.credentialHandle,
        rootPid: 4242,
      });
      return { claim, port: lease.port, runId: run.runId, claimId: lease.claimId };
    });
  }

  /** A pending lease whose port already has its listener (fake pid 4343). */
  pending(): Promise<Json> {
    return this.once("pending", async () => {
      const claim = { project: "walk", workspaceRoot: await this.folder("ws"), component: "db" };
      const lease = await this.setup("lease_acquire", { claim });
      this.sim.control.addListener(lease.port as number, 4343, { command: "db" });
      return lease;
    });
  }

  /** An idle claim (acquired, then abandoned) in a workspace named `name`. */
  idle(name = "ws"): Promise<Json> {
    return this.once(`idle:${name}`, async () => {
      const claim = { project: "walk", workspaceRoot: await this.folder(name), component: "idle" };
      const lease = await this.setup("lease_acquire", { claim });
      await this.setup("lease_abandon", {
        credentialHandle: lease.credentialHandle,
        reason: "client-cancelled",
      });
      return { claimId: lease.claimId };
    });
  }

  /** An idle claim whose workspace is gone: what a claims prune deletes. */
  goneClaim(): Promise<Json> {
    return this.once("gone-claim", async () => {
      const claim = await this.idle("gone-ws");
      await Deno.remove(`${this.dir}/gone-ws`);
      return claim;
    });
  }

  /** A stack applied directly (the bridge never applies without a receipt). */
  stack(name = "stack"): Promise<Json> {
    return this.once(`stack:${name}`, async () => {
      const stackRoot = await this.folder(name);
      const applied = await this.seed.post("/v1/stacks/apply", {
        stackRoot,
        definition: { ...STACK, project: name },
      }) as { stack: { id: string } };
      return { stackId: applied.stack.id, stackRoot };
    });
  }

  goneStack(): Promise<Json> {
    return this.once("gone-stack", async () => {
      const stack = await this.stack("gone-stack");
      await Deno.remove(stack.stackRoot as string, { recursive: true });
      return stack;
    });
  }

  generation(): Promise<Json> {
    return this.once("generation", async () => {
      const { stackId } = await this.stack();
      const prepared = await this.setup("stack_prepare", { stackId });
      return { stackId, generationId: (prepared.generation as Json).id };
    });
  }

  /** A begun activation: api (required) and web (optional) leased, credentials held. */
  activation(): Promise<Json> {
    return this.once("activation", async () => {
      const { generationId } = await this.generation();
      const begun = await this.setup("activation_begin", { generationId });
      const leases = begun.leases as Json[];
      const of = (component: string) => leases.find((l) => l.component === component)!;
      this.sim.control.addListener(of("api").port as number, 4444, { command: "api" });
      return {
        activationId: (begun.activation as Json).id,
        api: of("api").credentialHandle,
        web: of("web").credentialHandle,
      };
    });
  }

  operation(): Promise<Json> {
    return this.once("operation", async () => {
      const { stackId } = await this.stack();
      const held = await this.setup("launcher_operation_begin", {
        stackId,
        operation: "status",
        launcherRevision: "a".repeat(64),
        callerOperationId: crypto.randomUUID(),
      });
      return { stackId, operationId: held.operationId, credentialHandle: held.credentialHandle };
    });
  }

  /** A receipt from `stem`'s preview, with the execute's other arguments. */
  async receipt(stem: string, previewArgs: Json, executeArgs: Json = {}): Promise<Json> {
    const preview = await this.setup(`${stem}_preview`, previewArgs);
    return { receiptId: preview.receiptId, ...executeArgs };
  }

  async close(): Promise<void> {
    await this.services.custody.close();
    this.services.daemon.close();
    this.seed.close();
    await this.sim.close();
    await Deno.remove(this.dir, { recursive: true });
  }
}

const pick = (data: Json, ...keys: string[]) =>
  Object.fromEntries(keys.map((key) => [key, data[key]]));

/** A valid call of every tool (without `portreeve_`), in a world that gives it something to do. */
const CASES: Record<string, (w: World) => Promise<Json>> = {
  diagnostics: () => Promise.resolve({}),
  compatibility: () => Promise.resolve({}),
  health: () => Promise.resolve({}),
  settings_get: () => Promise.resolve({}),
  ports_list: () => Promise.resolve({}),
  port_inspect: async (w) => pick(await w.running(), "port"),
  claims_list: () => Promise.resolve({}),
  claim_get: async (w) => ({ id: (await w.idle()).claimId }),
  stacks_list: () => Promise.resolve({}),
  stack_get: async (w) => ({ id: (await w.stack()).stackId }),
  generations_list: () => Promise.resolve({}),
  generation_get: async (w) => ({ id: (await w.generation()).generationId }),
  activations_list: () => Promise.resolve({}),
  activation_get: async (w) => ({ id: (await w.activation()).activationId }),
  history_list: () => Promise.resolve({}),
  lease_acquire: async (w) => ({ claim: (await w.running()).claim, allocation: {} }),
  lease_confirm: async (w) => ({
    credentialHandle: (await w.pending()).credentialHandle,
    rootPid: 4343,
  }),
  lease_abandon: async (w) => ({
    credentialHandle: (await w.pending()).credentialHandle,
    reason: "startup-error",
  }),
  run_release: async (w) => pick(await w.running(), "runId"),
  stack_status: async (w) => pick(await w.stack(), "stackId"),
  stack_prepare: async (w) => pick(await w.stack(), "stackId"),
  activation_begin: async (w) => pick(await w.generation(), "generationId"),
  activation_custody_extend: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    custodyMinutes: 20,
  }),
  activation_resolve: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    component: "api",
  }),
  activation_confirm_endpoint: async (w) => {
    const a = await w.activation();
    return {
      activationId: a.activationId,
      credentialHandle: a.api,
      bindingKind: "process",
      rootPid: 4444,
    };
  },
  activation_skip_endpoint: async (w) => {
    const a = await w.activation();
    return { activationId: a.activationId, credentialHandle: a.web };
  },
  activation_abandon_endpoint: async (w) => {
    const a = await w.activation();
    return { activationId: a.activationId, credentialHandle: a.api, reason: "startup-error" };
  },
  activation_reconcile: async (w) => pick(await w.activation(), "activationId"),
  activation_end: async (w) => pick(await w.activation(), "activationId"),
  port_reclaim_preview: async (w) => ({ ...pick(await w.running(), "port"), policy: "graceful" }),
  port_reclaim_execute: async (w) => {
    const { port } = await w.running();
    return await w.receipt("port_reclaim", { port, policy: "graceful" }, { port });
  },
  claim_reassign_preview: async (w) => pick(await w.idle(), "claimId"),
  claim_reassign_execute: async (w) => {
    const { claimId } = await w.idle();
    return await w.receipt("claim_reassign", { claimId }, { claimId });
  },
  claim_delete_preview: async (w) => pick(await w.idle(), "claimId"),
  claim_delete_execute: async (w) => {
    const { claimId } = await w.idle();
    return await w.receipt("claim_delete", { claimId }, { claimId });
  },
  claims_prune_preview: () => Promise.resolve({ olderThanMilliseconds: 0 }),
  claims_prune_execute: async (w) => {
    await w.goneClaim();
    return await w.receipt("claims_prune", { olderThanMilliseconds: 0 });
  },
  stack_document_get: async (w) => pick(await w.stack(), "stackRoot"),
  stack_definition_validate: () => Promise.resolve({ definition: STACK }),
  stack_apply_preview: async (w) => ({ stackRoot: await w.folder("new"), definition: STACK }),
  stack_apply_execute: async (w) => {
    const stackRoot = await w.folder("new");
    return await w.receipt("stack_apply", { stackRoot, definition: STACK }, { stackRoot });
  },
  stacks_prune_preview: () => Promise.resolve({ olderThanMilliseconds: 0 }),
  stacks_prune_execute: async (w) => {
    await w.goneStack();
    return await w.receipt("stacks_prune", { olderThanMilliseconds: 0 });
  },
  settings_update_preview: () => Promise.resolve({ updates: { leaseTtlMilliseconds: 20_000 } }),
  settings_update_execute: (w) =>
    w.receipt("settings_update", { updates: { leaseTtlMilliseconds: 20_000 } }),
  stack_snapshot: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    component: "api",
    gatewayHost: "host.docker.internal",
  }),
  launcher_operation_begin: async (w) => ({
    ...pick(await w.stack(), "stackId"),
    operation: "status",
    launcherRevision: "a".repeat(64),
    callerOperationId: crypto.randomUUID(),
  }),
  launcher_operation_renew: async (w) =>
    pick(await w.operation(), "operationId", "credentialHandle"),
  launcher_operation_complete: async (w) => ({
    ...pick(await w.operation(), "operationId", "credentialHandle"),
    completion: { outcome: "succeeded" },
  }),
  launcher_operation_get: async (w) => pick(await w.operation(), "operationId"),
  launcher_operations_list: async (w) => pick(await w.stack(), "stackId"),
};

type Schema = Record<string, unknown>;

/** Every enum field of an advertised input schema (nested objects and maps included). */
function enumFields(schema: Schema, path: string[] = []): { path: string[]; values: unknown[] }[] {
  if (Array.isArray(schema.enum)) return [{ path, values: schema.enum }];
  const found: { path: string[]; values: unknown[] }[] = [];
  for (const branch of (schema.anyOf ?? []) as Schema[]) found.push(...enumFields(branch, path));
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [key, value] of Object.entries(properties)) {
    found.push(...enumFields(value, [...path, key]));
  }
  const extra = schema.additionalProperties;
  if (typeof extra === "object" && extra !== null) {
    // A map keyed by component name: the walk's stack has "api".
    found.push(...enumFields(extra as Schema, [...path, "api"]));
  }
  return found;
}

function withValue(args: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(args);
  let at: Json = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof at[key] !== "object" || at[key] === null) at[key] = {};
    at = at[key] as Json;
  }
  at[path.at(-1)!] = value;
  return copy;
}

interface Variant {
  label: string;
  apply(args: Json): Json;
}

function variantsOf(tool: (typeof ALL_TOOLS)[number]): Variant[] {
  const listed = new Catalogue("full").listing().find((t) => t.name === tool.name)!;
  const variants: Variant[] = [{ label: "as set up", apply: (args) => args }];
  for (const field of enumFields(listed.inputSchema as Schema)) {
    for (const value of field.values) {
      variants.push({
        label: `${field.path.join(".")}=${String(value)}`,
        apply: (args) => withValue(args, field.path, value),
      });
    }
  }
  return variants;
}

/** Routes a request by `tool` may go to: its own, and the compatibility probe's. */
function allowedRoutes(tool: (typeof ALL_TOOLS)[number]): Route[] {
  return [...(tool.routes ?? []), HEALTH_ROUTE, ...Object.values(RENEWAL_ROUTES)];
}

Deno.test("effects walk: every tool, every enum value, every approval situation", async () => {
  const stems = ALL_TOOLS.map((tool) => tool.name.replace(/^portreeve_/, "")).sort();
  assert.deepEqual(Object.keys(CASES).sort(), stems, "every tool has a walk case, and only tools");
  const declared = declaredRoutes();
  /** Consequential routes an approved call reached, and the values sent to value rules. */
  const reached = new Set<string>();
  const sentValues = new Set<string>();
  let calls = 0;

  for (const tool of ALL_TOOLS) {
    const stem = tool.name.replace(/^portreeve_/, "");
    for (const variant of variantsOf(tool)) {
      for (const situation of SITUATIONS) {
        const where = `${tool.name} (${variant.label}; ${situation.name})`;
        const world = await World.open();
        try {
          const args = variant.apply(await CASES[stem](world));
          const before = world.sim.requests.length;
          const events = world.sim.control.state.history.length;
          await world.call(tool.name, args, situation);
          calls++;
          const requests = world.sim.requests.slice(before);
          let declaredConsequential = false;
          for (const request of requests) {
            const said = `${where}: ${request.method} ${request.path}`;
            const routes = declared.filter((r) => matches(r, request.method, request.path));
            assert.ok(routes.length > 0, `${said} matches no declared route`);
            const own = allowedRoutes(tool).filter((r) => matches(r, request.method, request.path));
            assert.ok(own.length > 0, `${said} is not among the routes ${tool.name} declares`);
            const { client: _client, ...body } = (request.body ?? {}) as Json;
            for (const route of own) {
              if (isValueRule(route.effect)) {
                const value = body[route.effect.field.split(".")[0]];
                sentValues.add(`${route.route} ${JSON.stringify(value)}`);
              }
              if (effectOf(route.effect, body).level !== "consequential") continue;
              declaredConsequential = true;
              assert.ok(
                approved(tool.kind, situation),
                `${said} is consequential and reached the daemon unapproved`,
              );
              reached.add(route.route);
            }
          }
          const happened = world.sim.control.state.history.slice(events)
            .filter((event) => CONSEQUENTIAL_EVENTS.has(event.eventType));
          assert.ok(
            happened.length === 0 || declaredConsequential,
            `${where}: the daemon recorded ${
              happened.map((e) => e.eventType).join(", ")
            } but no request was declared consequential`,
          );
        } finally {
          await world.close();
        }
      }
    }
  }

  const consequential = effectsMap().filter((row) => canBeConsequential(row.effect));
  for (const row of consequential) {
    assert.ok(reached.has(row.route), `no approved call reached ${row.route}`);
    if (isValueRule(row.effect)) {
      for (const value of Object.keys(row.effect.cases)) {
        const field = row.effect.field.split(".");
        const sent = [...sentValues].some((entry) =>
          entry.startsWith(`${row.route} `) &&
          valueAt(JSON.parse(entry.slice(row.route.length + 1)), field.slice(1)) === value
        );
        assert.ok(sent, `${row.route}: ${row.effect.field} = ${value} was never sent`);
      }
    }
  }
  assert.ok(calls > 4 * ALL_TOOLS.length, `${calls} calls`);
});

function valueAt(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>(
    (at, key) => typeof at === "object" && at !== null ? (at as Json)[key] : undefined,
    value,
  );
}
