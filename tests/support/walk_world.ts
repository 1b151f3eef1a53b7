/**
 * The effects walk's world (tests/unit/catalogue/effects_walk_test.ts): one fresh simulator on
 * a real Unix socket, the real daemon client and catalogue, custody on a fake clock, and the
 * state a tool needs to have something to do — a claim whose confirmed run listens, a pending
 * lease, idle and orphaned claims, stacks (one whose root is gone), a generation, a begun
 * activation, a launcher operation, receipts — each built on first use, through the bridge
 * where it can be (set-up calls are never consequential) or the daemon's own routes.
 */
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Catalogue } from "../../src/catalogue/catalogue.ts";
import type { Services, ToolContext } from "../../src/catalogue/context.ts";
import { Memory } from "../../src/catalogue/memory.ts";
import { ReceiptBook } from "../../src/catalogue/receipt_book.ts";
import { daemonRenewers } from "../../src/catalogue/renewers.ts";
import { Custody } from "../../src/custody/mod.ts";
import { DaemonClient } from "../../src/daemon/client.ts";
import type { HostChannel } from "../../src/shared/host_channel.ts";
import type { ApprovalMode } from "../../src/shared/options.ts";
import { startSimulator } from "../../src/simulator/mod.ts";
import { seeder } from "../e2e/seed.ts";
import { FakeClock } from "./fake_clock.ts";
import type { Json } from "../../src/shared/json.ts";

/** How a call can reach the person, and what the bridge's approval mode is. */
export interface Situation {
  name: string;
  approval: ApprovalMode;
  host: HostChannel;
  /** The person (or the mode) lets every consequential request through. */
  approves: boolean;
}

/** Set-up calls: `auto` on a host that cannot ask. */
const SET_UP: Situation = {
  name: "set-up",
  approval: "auto",
  host: { canAsk: false },
  approves: false,
};

export const STACK = {
  version: 1,
  project: "walk",
  components: {
    api: { endpoints: { http: {} } },
    web: { endpoints: { http: { required: false } } },
  },
};

/** One fresh simulator and bridge services; state is built on demand, once. */
export class World {
  readonly dir: string;
  readonly sim: Awaited<ReturnType<typeof startSimulator>>;
  readonly services: Omit<Services, "bridge">;
  readonly catalogue = new Catalogue("full");
  #made: Map<string, Promise<Json>>;

  private constructor(dir: string, sim: World["sim"], made = new Map<string, Promise<Json>>()) {
    this.dir = dir;
    this.sim = sim;
    this.#made = made;
    const client = new DaemonClient({ socketPath: sim.socketPath, runId: crypto.randomUUID() });
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
    return new World(dir, sim);
  }

  /**
   * This world's daemon and the state set up on it, with new bridge services (daemon client,
   * custody, memory, receipts) in place of this one's, which it closes: the world `open` would
   * build for the same case, for use after a call that left the daemon as it found it.
   */
  async reused(): Promise<World> {
    await this.#closeServices();
    return new World(this.dir, this.sim, this.#made);
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
    const result = await this.call(`portreeve_${tool}`, args, SET_UP);
    const envelope = result.structuredContent as { ok: boolean; data?: Json };
    assert.ok(envelope.ok, `set-up ${tool}: ${JSON.stringify(result.structuredContent)}`);
    return envelope.data!;
  }

  #seed: ReturnType<typeof seeder> | undefined;

  /** A client of the daemon's own routes, for what the bridge never does without a receipt. */
  get seed(): ReturnType<typeof seeder> {
    return this.#seed ??= seeder(this.sim.socketPath);
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

  async #closeServices(): Promise<void> {
    await this.services.custody.close();
    this.services.daemon.close();
    this.#seed?.close();
  }

  async close(): Promise<void> {
    await this.#closeServices();
    await this.sim.close();
    await Deno.remove(this.dir, { recursive: true });
  }
}
