/**
 * What each real host does while a call waits on a busy daemon (issue 34): the simulator holds
 * the model's acquire until the bridge has sent the host two progress notes (a host that sent
 * no progress token gets none, so its acquire goes on at once), then grants it. The printed
 * command runs behind the stdio tap, so the suite reads the token the host sent and the notes
 * the bridge sent on the wire. No timer of the test's: the hold ends on the tap's frames; the
 * notes' pace is the bridge's own. Every host must still show its model the granted lease, and
 * nothing may be given back (OpenCode cancels a call just after its answer arrived: that
 * cancel must not abandon the lease the model was given).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ALL_HOSTS } from "./all_hosts.ts";
import { type Frame, readTap, throughTap } from "./approval_session.ts";
import { isRecord, startFakeModel } from "./fake_model.ts";
import type { HostAdapter } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { printedConfig, type RunResult, startRig } from "./rig.ts";
import { sharedRun } from "./shared_run.ts";

/** The progress notes a host that asked for them hears before the daemon answers. */
const NOTES = 2;

/** Whether each pinned host sends a progress token with a call, as measured; docs/hosts.md. */
const SENDS_TOKEN: Record<string, boolean> = {
  claude: true,
  codex: true,
  gemini: true,
  opencode: true,
  copilot: true,
  qwen: true,
  cline: false,
};

const ACQUIRE = "portreeve_lease_acquire";

interface ProgressSession {
  /** The progress token of the model's acquire as the host sent it, or null. */
  token: unknown;
  /** Progress notes the bridge sent for that call. */
  notes: number;
  /** The acquire's answer as the bridge sent it, or null. */
  reply: unknown;
  /** What the model read of it, or null. */
  shown: string | null;
  /** Requests the daemon got, as `METHOD path`. */
  daemon: string[];
  run: RunResult;
}

const sessions = new Map<string, Promise<ProgressSession>>();

function progressSession(adapter: HostAdapter): Promise<ProgressSession> {
  return sharedRun(sessions, adapter.pkg.host, () => runProgressSession(adapter));
}

function acquireCall(frames: readonly Frame[]): Frame | undefined {
  return frames.find((f) =>
    f.from === "host" && f.message.method === "tools/call" && isRecord(f.message.params) &&
    f.message.params.name === ACQUIRE
  );
}

function tokenOf(call: Frame | undefined): unknown {
  const params = call?.message.params;
  const meta = isRecord(params) && isRecord(params._meta) ? params._meta : {};
  return meta.progressToken ?? null;
}

function notesFor(frames: readonly Frame[], token: unknown): number {
  return frames.filter((f) =>
    f.from === "server" && f.message.method === "notifications/progress" &&
    isRecord(f.message.params) && f.message.params.progressToken === token
  ).length;
}

/** Resolves once `done` holds for the frames the tap logged, or `signal` ends the wait. */
async function tapUntil(
  tapLog: string,
  done: (frames: readonly Frame[]) => boolean,
  signal: AbortSignal,
): Promise<void> {
  const watcher = Deno.watchFs(tapLog);
  const stop = () => watcher.close();
  signal.addEventListener("abort", stop, { once: true });
  try {
    if (done(await readTap(tapLog))) return;
    for await (const _ of watcher) if (done(await readTap(tapLog))) return;
  } finally {
    signal.removeEventListener("abort", stop);
    if (!signal.aborted) stop();
  }
}

async function runProgressSession(adapter: HostAdapter): Promise<ProgressSession> {
  const bin = await installedBin(adapter.pkg);
  const ended = new AbortController();
  let tapLog = "";
  let holding = false;
  // The acquire is the first state-changing request (the rig is unseeded); renewals go at once.
  const hold = async () => {
    const call = acquireCall(await readTap(tapLog));
    if (holding || call === undefined) return;
    holding = true;
    const token = tokenOf(call);
    if (token === null) return;
    await tapUntil(tapLog, (frames) => notesFor(frames, token) >= NOTES, ended.signal);
  };
  const rig = await startRig({ seed: false, hold });
  try {
    tapLog = join(rig.home, "tap.jsonl");
    const printed = await printedConfig(adapter.pkg.host, rig.socket);
    await adapter.configure(rig, throughTap(printed, tapLog));
    const workspaceRoot = join(rig.demoRoot, "busy");
    const fake = startFakeModel(adapter.dialect, [
      { tool: ACQUIRE, args: { claim: { project: "hosts", workspaceRoot, component: "api" } } },
    ]);
    try {
      const run = await adapter.run(bin, rig, fake.url);
      const frames = await readTap(tapLog);
      const call = acquireCall(frames);
      const token = tokenOf(call);
      const reply = frames.find((f) =>
        f.from === "server" && call !== undefined && f.message.id === call.message.id &&
        f.message.method === undefined
      );
      return {
        token,
        notes: token === null ? 0 : notesFor(frames, token),
        reply: reply?.message.result ?? reply?.message.error ?? null,
        shown: fake.lastTurn()?.results[0] ?? null,
        daemon: rig.sim.requests.map((request) => `${request.method} ${request.path}`),
        run,
      };
    } finally {
      await fake.close();
    }
  } finally {
    ended.abort();
    await rig.close();
  }
}

/** The lease id of the acquire's answer (its structuredContent). */
function leaseIdOf(reply: unknown): string | null {
  const data = isRecord(reply) && isRecord(reply.structuredContent)
    ? reply.structuredContent.data
    : undefined;
  return isRecord(data) && typeof data.leaseId === "string" ? data.leaseId : null;
}

for (const adapter of ALL_HOSTS) {
  const host = adapter.pkg.host;
  const sends = SENDS_TOKEN[host];

  Deno.test(`${host}: ${sends ? `hears ${NOTES} progress notes while` : "sends no progress token and hears nothing while"} the daemon holds a call`, async () => {
    const s = await progressSession(adapter);
    const tail = `${s.run.stdout.slice(-1500)}\n${s.run.stderr.slice(-1500)}`;
    assert.equal(s.token !== null, sends, `${host}'s progress token: ${JSON.stringify(s.token)}`);
    if (sends) assert.ok(s.notes >= NOTES, `${host} heard ${s.notes} notes:\n${tail}`);
    else assert.equal(s.notes, 0, `${host} sent no token, yet heard ${s.notes} notes`);
  });

  Deno.test(`${host}: the held call's answer reaches the model, and nothing is given back`, async () => {
    const s = await progressSession(adapter);
    const tail = `${s.run.stdout.slice(-1500)}\n${s.run.stderr.slice(-1500)}`;
    const leaseId = leaseIdOf(s.reply);
    assert.ok(
      leaseId !== null,
      `${host}: no granted lease in ${JSON.stringify(s.reply)}:\n${tail}`,
    );
    assert.ok(s.shown?.includes(leaseId), `${host}: the model read ${s.shown}`);
    assert.ok(s.daemon.includes("POST /v1/leases/acquire"), s.daemon.join("\n"));
    assert.deepEqual(s.daemon.filter((request) => request.endsWith("/abandon")), []);
  });
}
