/**
 * Nothing a cancel leaves behind is kept, walked over every route that creates something to give
 * back. A route whose answer hands over a credential (a lease token, a launcher credential)
 * creates something only its holder can give back, so it must declare how (`giveBack`, with the
 * route: src/daemon/routes.ts), and every tool that calls it must declare the give-back's routes.
 * Each such route is then driven through its tool, the real catalogue and daemon client, against
 * the simulator holding the change until the host has cancelled the call: the answer that comes
 * after is given back at once (leases abandoned as client-cancelled, an operation completed as
 * cancelled), custody never holds or renews its credential, the change went to the daemon once,
 * and the daemon is left holding nothing. The same when the cancel comes just as the answer
 * arrives, while the bridge takes it in.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ALL_TOOLS } from "../../../src/catalogue/index.ts";
import { Catalogue } from "../../../src/catalogue/catalogue.ts";
import { Memory } from "../../../src/catalogue/memory.ts";
import { ReceiptBook } from "../../../src/catalogue/receipt_book.ts";
import { daemonRenewers, type LauncherRenewalResult } from "../../../src/catalogue/renewers.ts";
import type { ToolContext } from "../../../src/catalogue/context.ts";
import { Custody } from "../../../src/custody/mod.ts";
import { DaemonClient } from "../../../src/daemon/client.ts";
import type { LateEvent } from "../../../src/daemon/late.ts";
import { declaredRoutes, type Route } from "../../../src/daemon/routes.ts";
import { withoutCredentialFields } from "../../../src/results/credential_fields.ts";
import { startSimulator } from "../../../src/simulator/mod.ts";
import type { Json } from "../../../src/shared/json.ts";
import { seeder } from "../../e2e/seed.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { envelopeOf, type ToolResult } from "../../support/raw_peer.ts";
import { Watched } from "../../support/watched.ts";
import { approvalPair } from "../../support/approvals.ts";
import type { Approvals } from "../../../src/catalogue/approval.ts";

/** The property names anywhere in `schema`'s JSON Schema. */
function propertyNames(schema: z.ZodType): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && typeof value === "object" && value !== null) {
        Object.keys(value).forEach((name) => names.add(name));
      }
      walk(value);
    }
  };
  walk(z.toJSONSchema(schema, { unrepresentable: "any", io: "output" }));
  return names;
}

/** Whether `route`'s answer can hand over a credential: a field the results never pass on. */
function handsOverCredential(route: Route): boolean {
  return [...propertyNames(route.schema)].some((name) =>
    Object.keys(withoutCredentialFields({ [name]: 1 })).length === 0
  );
}

const STACK = {
  version: 1,
  project: "give-back",
  components: {
    api: { endpoints: { http: {} } },
    web: { endpoints: { http: { required: false } } },
  },
};

/** One simulator that holds every change while `holding`, and bridge services on it. */
class World {
  holding = false;
  readonly waits: (() => void)[] = [];
  readonly events: LateEvent[] = [];
  readonly changed = new Watched();
  readonly catalogue = new Catalogue("full");
  private constructor(
    readonly dir: string,
    readonly sim: Awaited<ReturnType<typeof startSimulator>>,
    readonly daemon: DaemonClient,
    readonly custody: Custody<LauncherRenewalResult>,
    readonly approvals: Approvals,
  ) {}

  static async open(): Promise<World> {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "prmcp-give-back-" }));
    // The simulator and client call back into the world made from them.
    const made: { world?: World } = {};
    const sim = await startSimulator({
      socketPath: `${dir}/s.sock`,
      observeHost: false,
      latencyMs: 1,
      sleep: () =>
        made.world?.holding
          ? new Promise<void>((release) => {
            made.world!.waits.push(release);
            made.world!.changed.changed();
          })
          : Promise.resolve(),
    });
    const { gate, approvals } = approvalPair();
    const daemon = new DaemonClient({
      socketPath: sim.socketPath,
      runId: crypto.randomUUID(),
      gate,
      onLateAnswer: (event) => {
        made.world!.events.push(event);
        made.world!.changed.changed();
      },
    });
    const custody = new Custody({
      clock: new FakeClock(Date.now()),
      renewers: daemonRenewers(daemon),
    });
    made.world = new World(dir, sim, daemon, custody, approvals);
    return made.world;
  }

  context(signal: AbortSignal): Omit<ToolContext, "capabilities"> {
    return {
      daemon: this.daemon,
      custody: this.custody,
      approvals: this.approvals,
      memory: new Memory(),
      receipts: new ReceiptBook(),
      signal,
      host: { canAsk: false },
      bridge: {
        runId: crypto.randomUUID(),
        label: "give-back",
        socketPath: this.sim.socketPath,
        socketSource: "flag",
        toolset: "full",
        requiredCapabilities: this.catalogue.requiredCapabilities(),
        approval: "auto",
        approvalMs: 5_000,
      },
    };
  }

  /** A stack applied through the daemon's own route, prepared: its ids. */
  async stack(): Promise<{ stackId: string; generationId: string }> {
    const seed = seeder(this.sim.socketPath);
    try {
      const stackRoot = `${this.dir}/stack`;
      await Deno.mkdir(stackRoot);
      const applied = await seed.post("/v1/stacks/apply", { stackRoot, definition: STACK });
      const stackId = (applied.stack as Json).id as string;
      const prepared = await seed.post(`/v1/stacks/${stackId}/prepare`, { stackId });
      return { stackId, generationId: (prepared.generation as Json).id as string };
    } finally {
      seed.close();
    }
  }

  /** What the daemon still holds for anyone: pending leases, active launcher operations. */
  held(): string[] {
    const state = this.sim.control.state;
    return [
      ...[...state.leases.values()].filter((l) => l.state === "pending").map((l) => l.id),
      ...[...state.launcher.values()].filter((e) => e.record.state === "active")
        .map((e) => e.record.id),
    ];
  }

  async close(): Promise<void> {
    await this.custody.close();
    this.daemon.close();
    await this.sim.close();
    await Deno.remove(this.dir, { recursive: true });
  }
}

/** How each route that gives back is reached: its tool, and arguments in a fresh world. */
const CASES: Record<string, { tool: string; args(world: World): Promise<Json> }> = {
  "POST /v1/leases/acquire": {
    tool: "portreeve_lease_acquire",
    args: (world) =>
      Promise.resolve({
        claim: { project: "give-back", workspaceRoot: world.dir, component: "api" },
      }),
  },
  "POST /v1/stack-activations/begin": {
    tool: "portreeve_activation_begin",
    args: async (world) => ({ generationId: (await world.stack()).generationId }),
  },
  "POST /v1/launcher-operations/begin": {
    tool: "portreeve_launcher_operation_begin",
    args: async (world) => ({
      stackId: (await world.stack()).stackId,
      operation: "start",
      launcherRevision: "b".repeat(64),
      callerOperationId: crypto.randomUUID(),
    }),
  },
};

/** The credentials a request body carries (top level, or in a list of leases). */
function secretsIn(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [];
  return Object.entries(body).flatMap(([key, value]) =>
    (key === "leaseToken" || key === "credential") && typeof value === "string"
      ? [value]
      : secretsIn(value)
  );
}

/** Every route of the catalogue (loaded with the definitions), and the tools that call each. */
function callers(route: Route) {
  return ALL_TOOLS.filter((tool) => tool.routes.includes(route));
}

Deno.test("every route whose answer hands over a credential declares how to give it back", () => {
  assert.ok(ALL_TOOLS.length > 0);
  const handing = declaredRoutes().filter(handsOverCredential);
  assert.ok(handing.length >= 3, "the walk finds the acquiring routes");
  for (const route of handing) {
    assert.ok(route.giveBack, `${route.route} hands over a credential: declare its giveBack`);
  }
  for (const route of declaredRoutes().filter((r) => r.giveBack)) {
    for (const tool of callers(route)) {
      for (const undo of route.giveBack!.routes) {
        assert.ok(
          tool.routes.includes(undo),
          `${tool.name} calls ${route.route}, so it declares ${undo.route} (its give-back)`,
        );
      }
    }
    assert.ok(Object.hasOwn(CASES, route.route), `${route.route} gives back: walk it (CASES)`);
    assert.ok(
      callers(route).some((tool) => tool.name === CASES[route.route].tool),
      `${CASES[route.route].tool} calls ${route.route}`,
    );
  }
});

/** When the host cancels: while the daemon has the change, or just as its answer arrives. */
const MOMENTS = ["while the daemon has it", "as its answer arrives"] as const;

Deno.test("every give-back, walked: a change answered after the host cancelled leaves nothing held", async (t) => {
  for (const route of declaredRoutes().filter((r) => r.giveBack)) {
    for (const moment of MOMENTS) {
      await t.step(`${route.route}, cancelled ${moment}`, async () => {
        const world = await World.open();
        try {
          const { tool, args } = CASES[route.route];
          const input = await args(world);
          const sent = () => world.sim.requests.filter((r) => r.path === route.path).length;
          const cancel = new AbortController();
          const ctx = world.context(cancel.signal);
          if (moment === "as its answer arrives") {
            // The answer reaches the tool, and the host's cancel with it.
            ctx.daemon = {
              ...ctx.daemon,
              request: async (to, call) => {
                const answer = await world.daemon.request(to, call);
                if (to === route) cancel.abort();
                return answer;
              },
              giveBack: (to, answer) => world.daemon.giveBack(to, answer),
              compatibility: (signal) => world.daemon.compatibility(signal),
              invalidate: () => world.daemon.invalidate(),
            };
          } else {
            world.holding = true;
          }
          const call = world.catalogue.call(tool, input, ctx);
          if (moment === "while the daemon has it") {
            await world.changed.when(() => world.waits.length > 0 && sent() === 1);
            cancel.abort(); // the host gives up while the daemon has the change
          }
          const result = envelopeOf(await call as CallToolResult as ToolResult);
          assert.equal(result.ok, false);
          assert.equal(result.error?.code, "portreeve_cancelled", JSON.stringify(result.error));
          assert.equal(result.error?.details?.lateAnswer, "given back");
          assert.match(result.error!.message, new RegExp(route.giveBack!.what));

          world.holding = false;
          world.waits.splice(0).forEach((release) => release()); // the daemon grants it now
          const given = () => world.events.find((e) => e.outcome !== "taken");
          await world.changed.when(() => given() !== undefined);
          assert.equal(given()!.outcome, "given-back", JSON.stringify(given()));
          assert.deepEqual(world.held(), [], "the daemon holds nothing the cancel left behind");
          assert.equal(world.custody.size, 0, "custody holds no credential of it");
          assert.equal(sent(), 1, "the change went to the daemon once");
          assert.equal(
            world.sim.requests.filter((r) => r.path.endsWith("/renew")).length,
            0,
            "never renewed",
          );
          const secrets = world.sim.requests.flatMap((r) => secretsIn(r.body));
          assert.ok(secrets.length > 0, "the give-back sent the credential back to the daemon");
          const logged = JSON.stringify(world.events);
          assert.ok(secrets.every((secret) => !logged.includes(secret)), "no credential logged");
        } finally {
          await world.close();
        }
      });
    }
  }
});
