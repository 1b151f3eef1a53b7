/**
 * Steps the receipt suites (consequential, approval, acquire gate) share over one bridge and
 * simulator, and the scripted person who answers the bridge's approval questions.
 */
import assert from "node:assert/strict";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import { type Bridge, call, type Envelope, type withSimulator } from "./harness.ts";
import { childEnv } from "../../src/shared/permissions.ts";
import { Watched } from "../support/watched.ts";
import { seeder } from "./seed.ts";

type Data = Record<string, unknown>;
export type Env = Awaited<ReturnType<typeof withSimulator>>;
type Question = ElicitRequest["params"];

export const ACCEPT: ElicitResult = { action: "accept", content: { approve: true } };
export const DECLINE: ElicitResult = { action: "decline" };

/**
 * A scripted person: each question takes the next answer; every question is kept, and
 * `asked(n)` resolves once `n` questions have come.
 */
export function person(...answers: (ElicitResult | (() => Promise<ElicitResult>))[]) {
  const questions: Question[] = [];
  const watched = new Watched();
  return {
    questions,
    asked: (count: number) => watched.when(() => questions.length >= count),
    answer: (question: Question): Promise<ElicitResult> => {
      questions.push(question);
      watched.changed();
      const next = answers.shift();
      if (next === undefined) return Promise.reject(new Error("no answer scripted"));
      return typeof next === "function" ? next() : Promise.resolve(next);
    },
  };
}

/** A call that must succeed: its data and its whole text. */
export async function succeeds(
  bridge: Bridge,
  name: string,
  args: Data,
): Promise<{ data: Data; text: string }> {
  const r = await call(bridge, name, args);
  assert.equal(r.isError, false, `${name}: ${r.text}`);
  assert.equal(r.envelope.ok, true);
  return { data: r.envelope.data!, text: r.text };
}

/** A call that must fail with `code`: its error. */
export async function failsWith(
  bridge: Bridge,
  name: string,
  args: Data,
  code: string,
): Promise<Envelope["error"] & object> {
  const r = await call(bridge, name, args);
  assert.equal(r.isError, true, `${name} should fail: ${r.text}`);
  assert.equal(r.envelope.ok, false);
  assert.equal(r.envelope.error?.code, code, r.text);
  return r.envelope.error!;
}

/** A confirmed lease whose port has a listener (pid 4242, node): something to reclaim. */
export async function listenedPort(bridge: Bridge, env: Env): Promise<number> {
  const { data: lease } = await succeeds(bridge, "portreeve_lease_acquire", {
    claim: { project: "web", workspaceRoot: env.dir, component: "vite" },
  });
  const port = lease.port as number;
  env.sim.control.addListener(port, 4242, { command: "node" });
  await succeeds(bridge, "portreeve_lease_confirm", {
    credentialHandle: lease.credentialHandle,
    rootPid: 4242,
  });
  return port;
}

/** A real process listening on `port` until it is signalled. */
export async function listener(port: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const l = Deno.listen({ hostname: "127.0.0.1", port: ${port} });
       console.log("listening");
       for await (const c of l) c.close();`,
    ],
    env: childEnv({}),
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  assert.match(value ?? "", /listening/);
  reader.releaseLock();
  let ended: Deno.CommandStatus | undefined;
  const status = child.status.then((s) => ended = s);
  return {
    pid: child.pid,
    status,
    alive: () => ended === undefined,
    async stop() {
      if (ended === undefined) child.kill("SIGKILL");
      await status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

export type Listener = Awaited<ReturnType<typeof listener>>;

/**
 * A confirmed run of claim `web vite.default` whose root is a real listening process, set up
 * straight on the daemon, as any client could: the bridges under test start after it, each
 * with the flags it tests, and no bridge is started only to set it up.
 */
export async function runningClaim(env: Env) {
  const claim = { project: "web", workspaceRoot: env.dir, component: "vite" };
  const seed = seeder(env.socketPath);
  try {
    const lease = await seed.post("/v1/leases/acquire", {
      claim: { ...claim, endpoint: "default", transport: "tcp" },
      allocation: { mode: "sticky", replacementPolicy: "never" },
    }) as { leaseId: string; leaseToken: string; port: number };
    const process = await listener(lease.port);
    try {
      await seed.post(`/v1/leases/${lease.leaseId}/confirm`, {
        leaseToken: lease.leaseToken,
        rootPid: process.pid,
      });
    } catch (error) {
      await process.stop();
      throw error;
    }
    return { claim, port: lease.port, process };
  } finally {
    seed.close();
  }
}
