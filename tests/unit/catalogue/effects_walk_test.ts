/**
 * The effects promise, walked: every tool of the catalogue, with every value of every enum
 * field of its advertised input, under every approval situation, against the simulator on a
 * real Unix socket through the real daemon client, each case in a world of its own (after a
 * call that only read, the next situation keeps that daemon and what was set up on it, with new
 * bridge services: the same world, not built again). For each call it checks what reached the
 * daemon:
 *
 * - every request matches a declared route, one the calling tool declares (or the
 *   compatibility probe's): no undeclared path;
 * - a request whose declared effect is consequential came from an approved call: the person
 *   said yes, or `--approval off`, or an execute under `auto` (a person's opt-in) on a host
 *   that cannot ask — never otherwise, and never under the default on a host that cannot ask;
 * - the declarations are true: when the simulator's history shows a consequential event
 *   (a signal, a deletion, a moved claim, a written stack file, changed settings) during the
 *   call, one of the call's requests was declared consequential.
 *
 * And, so the walk cannot pass by missing its target: every consequential route was reached
 * by an approved call, every value a declared effect depends on was sent, and every route —
 * every one that can change state above all — answered 2xx at least once (a call the daemon
 * refuses every time, say for a wrong body or a template its tool fills wrong, changes nothing,
 * so it shows nothing of what the declaration claims), unless it is listed in
 * NEVER_SUCCEED_HERE with the reason. Custody's own renewals, which no tool sends, are fired on
 * a world's fake clock for this.
 */
import assert from "node:assert/strict";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import { effectsMap } from "../../../src/catalogue/effects_map.ts";
import { HEALTH_ROUTE } from "../../../src/daemon/replies.ts";
import { declaredRoutes, matches, type Route } from "../../../src/daemon/routes.ts";
import {
  canBeConsequential,
  effectOf,
  isValueRule,
  possibleEffects,
} from "../../../src/daemon/effects.ts";
import { type Situation, STACK, World } from "../../support/walk_world.ts";
import type { Json } from "../../../src/shared/json.ts";
import { DEFAULT_APPROVAL_MODE } from "../../../src/shared/options.ts";
import type { Schema } from "../../../src/results/compact/schema_nodes.ts";

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

/**
 * Routes no case here makes the daemon accept, each with why (none, today). A route listed here
 * that does succeed fails the walk too: the list says only what is true.
 */
const NEVER_SUCCEED_HERE: Readonly<Record<string, string>> = {};

const ANSWER = (approve: boolean) => () =>
  Promise.resolve(
    approve ? { action: "accept", content: { approve: true } } : { action: "decline" },
  );

const SITUATIONS: readonly Situation[] = [
  {
    name: "default (required), host cannot ask",
    approval: DEFAULT_APPROVAL_MODE,
    host: { canAsk: false },
    approves: false,
  },
  {
    name: "default (required), the person declines",
    approval: DEFAULT_APPROVAL_MODE,
    host: { canAsk: true, ask: ANSWER(false) },
    approves: false,
  },
  {
    name: "default (required), the person approves",
    approval: DEFAULT_APPROVAL_MODE,
    host: { canAsk: true, ask: ANSWER(true) },
    approves: true,
  },
  { name: "auto, host cannot ask", approval: "auto", host: { canAsk: false }, approves: false },
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
  // `auto`, a person's opt-in: the host's own tool prompt stands in for the question.
  return kind === "execute" && situation.approval === "auto" && !situation.host.canAsk;
}

const pick = (data: Json, ...keys: string[]) =>
  Object.fromEntries(keys.map((key) => [key, data[key]]));

/** A valid call of every tool (without `portreeve_`), in a world that gives it something to do. */
const CASES: Record<string, (w: World) => Promise<Json>> = {
  portreeve_diagnostics: () => Promise.resolve({}),
  portreeve_compatibility: () => Promise.resolve({}),
  portreeve_health: () => Promise.resolve({}),
  portreeve_settings_get: () => Promise.resolve({}),
  portreeve_ports_list: () => Promise.resolve({}),
  portreeve_port_inspect: async (w) => pick(await w.running(), "port"),
  portreeve_claims_list: () => Promise.resolve({}),
  portreeve_claim_get: async (w) => ({ id: (await w.idle()).claimId }),
  portreeve_stacks_list: () => Promise.resolve({}),
  portreeve_stack_get: async (w) => ({ id: (await w.stack()).stackId }),
  portreeve_generations_list: () => Promise.resolve({}),
  portreeve_generation_get: async (w) => ({ id: (await w.generation()).generationId }),
  portreeve_activations_list: () => Promise.resolve({}),
  portreeve_activation_get: async (w) => ({ id: (await w.activation()).activationId }),
  portreeve_history_list: () => Promise.resolve({}),
  portreeve_lease_acquire: async (w) => ({ claim: (await w.running()).claim, allocation: {} }),
  portreeve_lease_confirm: async (w) => ({
    credentialHandle: (await w.pending()).credentialHandle,
    rootPid: 4343,
  }),
  portreeve_lease_abandon: async (w) => ({
    credentialHandle: (await w.pending()).credentialHandle,
    reason: "startup-error",
  }),
  portreeve_run_release: async (w) => pick(await w.running(), "runId"),
  portreeve_stack_status: async (w) => pick(await w.stack(), "stackId"),
  portreeve_stack_prepare: async (w) => pick(await w.stack(), "stackId"),
  portreeve_activation_begin: async (w) => pick(await w.generation(), "generationId"),
  portreeve_activation_custody_extend: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    custodyMinutes: 20,
  }),
  portreeve_activation_resolve: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    component: "api",
  }),
  portreeve_activation_confirm_endpoint: async (w) => {
    const a = await w.activation();
    return {
      activationId: a.activationId,
      credentialHandle: a.api,
      bindingKind: "process",
      rootPid: 4444,
    };
  },
  portreeve_activation_skip_endpoint: async (w) => {
    const a = await w.activation();
    return { activationId: a.activationId, credentialHandle: a.web };
  },
  portreeve_activation_abandon_endpoint: async (w) => {
    const a = await w.activation();
    return { activationId: a.activationId, credentialHandle: a.api, reason: "startup-error" };
  },
  portreeve_activation_reconcile: async (w) => pick(await w.activation(), "activationId"),
  portreeve_activation_end: async (w) => pick(await w.settledActivation(), "activationId"),
  portreeve_port_reclaim_preview: async (w) => ({
    ...pick(await w.running(), "port"),
    policy: "graceful",
  }),
  portreeve_port_reclaim_execute: async (w) => {
    const { port } = await w.running();
    return await w.receipt("port_reclaim", { port, policy: "graceful" }, { port });
  },
  portreeve_claim_reassign_preview: async (w) => pick(await w.idle(), "claimId"),
  portreeve_claim_reassign_execute: async (w) => {
    const { claimId } = await w.idle();
    return await w.receipt("claim_reassign", { claimId }, { claimId });
  },
  portreeve_claim_delete_preview: async (w) => pick(await w.idle(), "claimId"),
  portreeve_claim_delete_execute: async (w) => {
    const { claimId } = await w.idle();
    return await w.receipt("claim_delete", { claimId }, { claimId });
  },
  portreeve_claims_prune_preview: () => Promise.resolve({ olderThanMilliseconds: 0 }),
  portreeve_claims_prune_execute: async (w) => {
    await w.goneClaim();
    return await w.receipt("claims_prune", { olderThanMilliseconds: 0 });
  },
  portreeve_stack_document_get: async (w) => pick(await w.stack(), "stackRoot"),
  portreeve_stack_definition_validate: () => Promise.resolve({ definition: STACK }),
  portreeve_stack_apply_preview: async (w) => ({
    stackRoot: await w.folder("new"),
    definition: STACK,
  }),
  portreeve_stack_apply_execute: async (w) => {
    const stackRoot = await w.folder("new");
    return await w.receipt("stack_apply", { stackRoot, definition: STACK }, { stackRoot });
  },
  portreeve_stacks_prune_preview: () => Promise.resolve({ olderThanMilliseconds: 0 }),
  portreeve_stacks_prune_execute: async (w) => {
    await w.goneStack();
    return await w.receipt("stacks_prune", { olderThanMilliseconds: 0 });
  },
  portreeve_settings_update_preview: () =>
    Promise.resolve({ updates: { leaseTtlMilliseconds: 20_000 } }),
  portreeve_settings_update_execute: (w) =>
    w.receipt("settings_update", { updates: { leaseTtlMilliseconds: 20_000 } }),
  portreeve_stack_snapshot: async (w) => ({
    ...pick(await w.activation(), "activationId"),
    component: "api",
    gatewayHost: "host.docker.internal",
  }),
  portreeve_launcher_operation_begin: async (w) => ({
    ...pick(await w.stack(), "stackId"),
    operation: "status",
    launcherRevision: "a".repeat(64),
    callerOperationId: crypto.randomUUID(),
  }),
  portreeve_launcher_operation_renew: async (w) =>
    pick(await w.operation(), "operationId", "credentialHandle"),
  portreeve_launcher_operation_complete: async (w) => ({
    ...pick(await w.operation(), "operationId", "credentialHandle"),
    completion: { outcome: "succeeded" },
  }),
  portreeve_launcher_operation_get: async (w) => pick(await w.operation(), "operationId"),
  portreeve_launcher_operations_list: async (w) => pick(await w.stack(), "stackId"),
};

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

/** Routes a request by `tool` may go to: its own, and the compatibility probe's. Custody's
 * background renewals never fire here (its clock is fake), so a renewal is a tool's own. */
function allowedRoutes(tool: (typeof ALL_TOOLS)[number]): Route[] {
  return [...(tool.routes ?? []), HEALTH_ROUTE];
}

Deno.test("effects walk: every tool, every enum value, every approval situation", async () => {
  const names = ALL_TOOLS.map((tool) => tool.name).sort();
  assert.deepEqual(Object.keys(CASES).sort(), names, "every tool has a walk case, and only tools");
  const declared = declaredRoutes();
  /** Consequential routes an approved call reached, and the values sent to value rules. */
  const reached = new Set<string>();
  const sentValues = new Set<string>();
  /** Routes the daemon answered 2xx, in any case. */
  const succeeded = new Set<string>();
  let calls = 0;

  for (const tool of ALL_TOOLS) {
    for (const variant of variantsOf(tool)) {
      /** The last situation's world, when its call left the daemon as it found it. */
      let untouched: World | undefined;
      for (const situation of SITUATIONS) {
        const where = `${tool.name} (${variant.label}; ${situation.name})`;
        const world = untouched ? await untouched.reused() : await World.open();
        untouched = undefined;
        try {
          const args = variant.apply(await CASES[tool.name](world));
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
              if (request.status !== undefined && request.status >= 200 && request.status < 300) {
                succeeded.add(route.route);
              }
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
          // Only reads reached the daemon and it recorded nothing: the next situation may use
          // this daemon and what was set up on it (with new bridge services), as a fresh world
          // would have them, instead of building them again.
          const recorded = world.sim.control.state.history.length > events;
          if (requests.every((r) => r.method === "GET") && !recorded) {
            untouched = world;
          }
        } finally {
          if (untouched !== world) await world.close();
        }
      }
      await untouched?.close();
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
  // Custody's own renewals, which no tool call sends: fired on a world's fake clock.
  const renewing = await World.open();
  try {
    await renewing.pending();
    await renewing.activation();
    const from = renewing.sim.requests.length;
    await renewing.renewal("lease");
    await renewing.renewal("activation");
    for (const request of renewing.sim.requests.slice(from)) {
      if (request.status === undefined || request.status < 200 || request.status >= 300) continue;
      for (const route of declared.filter((r) => matches(r, request.method, request.path))) {
        succeeded.add(route.route);
      }
    }
  } finally {
    await renewing.close();
  }

  // Every route, those that change state above all: a route whose every request is refused
  // (a wrong body, a template its tool cannot fill) shows the walk nothing of what it does.
  const routes = effectsMap();
  assert.ok(
    routes.some((row) => possibleEffects(row.effect).some((effect) => effect.level !== "read")),
  );
  const judged = routes.map((row) => {
    const listed = Object.hasOwn(NEVER_SUCCEED_HERE, row.route);
    if (succeeded.has(row.route) === !listed) return undefined;
    return listed
      ? `${row.route} is listed as never succeeding here, yet it answered 2xx`
      : `${row.route} never answered 2xx: every case was refused, so the walk saw nothing of ` +
        "what it does (fix the case, or list it in NEVER_SUCCEED_HERE with the reason)";
  }).filter((problem) => problem !== undefined);
  assert.deepEqual(judged, []);
  for (const route of Object.keys(NEVER_SUCCEED_HERE)) {
    assert.ok(routes.some((row) => row.route === route), `listed, but not a route: ${route}`);
  }
  assert.ok(calls > 4 * ALL_TOOLS.length, `${calls} calls`);
});

function valueAt(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>(
    (at, key) => typeof at === "object" && at !== null ? (at as Json)[key] : undefined,
    value,
  );
}
