/**
 * One approval session per host: the fake model previews the delete of an idle claim of the
 * demo seed, then executes that receipt. The printed command runs behind a stdio tap, so the
 * suite reads what the host declared in `initialize` and how it answered `elicitation/create`
 * as frames on the wire; the simulator's request log says whether the daemon got the execute.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type ApprovalMode, DEFAULT_APPROVAL_MODE } from "../../src/shared/options.ts";
import { isRecord, startFakeModel, type Step } from "./fake_model.ts";
import type { HostAdapter } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { sharedRun } from "./shared_run.ts";
import {
  type PrintedConfig,
  printedConfig,
  type RunResult,
  startRig,
  withServerEntry,
} from "./rig.ts";

const TAP = fileURLToPath(new URL("./stdio_tap.ts", import.meta.url));
/** Bounds a question nobody answers well inside the host's run limit. */
const APPROVAL_WAIT_MS = 30_000;

export const APPROVAL_STEP = { diagnostics: 0, preview: 1, execute: 2 } as const;

/** How the host answered one `elicitation/create`: its action, or the JSON-RPC error. */
export type HostAnswer = "accept" | "decline" | "cancel" | `error: ${string}`;

export interface ApprovalSession {
  host: string;
  version: string;
  mode: ApprovalMode;
  /** The client's handshake (`initialize`, or `server/discover` in 2026-07-28) as received. */
  protocolVersion: string | null;
  clientInfo: unknown;
  /** Whether `capabilities.elicitation` was present (form mode, as the bridge reads it). */
  declaredElicitation: boolean;
  elicitationCapability: unknown;
  /** Each question the bridge put and what the host sent back. */
  answers: HostAnswer[];
  /** The form of each question as the bridge sent it (`elicitation/create` params). */
  forms: unknown[];
  /** How long the host took to send each answer, in milliseconds. */
  answerMs: number[];
  /** Tool results the model was shown, indexed like APPROVAL_STEP. */
  results: string[];
  /** The execute's result as the bridge sent it (tools/call reply), or null. */
  executeReply: unknown;
  /** Requests the daemon received for the delete's execute route, and in all. */
  daemonExecutes: number;
  daemonRequests: number;
  claimStillExists: boolean;
  run: RunResult;
}

const sessions = new Map<string, Promise<ApprovalSession>>();

export function approvalSession(
  adapter: HostAdapter,
  mode: ApprovalMode = DEFAULT_APPROVAL_MODE,
): Promise<ApprovalSession> {
  return sharedRun(
    sessions,
    `${adapter.pkg.host}/${mode}`,
    () => runApprovalSession(adapter, mode),
  );
}

function steps(claimId: string): Step[] {
  return [
    { tool: "portreeve_diagnostics", args: {} },
    { tool: "portreeve_claim_delete_preview", args: { claimId } },
    {
      tool: "portreeve_claim_delete_execute",
      // The model copies the receipt id from the preview it was shown.
      args: (results) => ({
        claimId,
        receiptId: results[APPROVAL_STEP.preview]?.match(
          /receiptId\\?":\\?"([0-9a-f-]{36})/,
        )?.[1] ?? "00000000-0000-4000-8000-00000000dead",
      }),
    },
  ];
}

async function runApprovalSession(
  adapter: HostAdapter,
  mode: ApprovalMode,
): Promise<ApprovalSession> {
  const bin = await installedBin(adapter.pkg);
  const rig = await startRig();
  try {
    // The entry exactly as config prints it: the default mode adds no flag.
    const extra = mode === DEFAULT_APPROVAL_MODE ? [] : ["--approval", mode];
    const printed = await printedConfig(adapter.pkg.host, rig.socket, extra);
    const tapLog = join(rig.home, "tap.jsonl");
    await adapter.configure(rig, tapped(printed, tapLog));
    const claim = [...rig.sim.control.state.claims.values()]
      .find((candidate) => candidate.project === "demo-stack");
    if (claim === undefined) throw new Error("the demo seed made no demo-stack claim");
    const before = rig.sim.requests.length;
    const fake = startFakeModel(adapter.dialect, steps(claim.id));
    try {
      const run = await adapter.run(bin, rig, fake.url);
      const last = fake.lastTurn();
      if (last === null) {
        throw new Error(
          `${adapter.pkg.host} never asked the fake model for a turn (exit ${run.code}):\n` +
            `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`,
        );
      }
      const frames = await readTap(tapLog);
      const wire = readWire(frames);
      const requests = rig.sim.requests.slice(before);
      return {
        host: adapter.pkg.host,
        version: adapter.pkg.version,
        mode,
        ...wire,
        results: last.results,
        daemonExecutes: requests.filter((r) => r.path.endsWith("/delete/execute")).length,
        daemonRequests: requests.length,
        claimStillExists: rig.sim.control.state.claims.has(claim.id),
        run,
      };
    } finally {
      await fake.close();
    }
  } finally {
    await rig.close();
  }
}

/**
 * The printed configuration with its command started through the tap: command and args are
 * kept whole behind it, plus a bounded `--approval-ms`; nothing else changes.
 */
function tapped(config: PrintedConfig, tapLog: string): PrintedConfig {
  return throughTap(config, tapLog, ["--approval-ms", String(APPROVAL_WAIT_MS)]);
}

/**
 * The printed configuration with its command started through the tap, which logs every frame
 * to `tapLog`: command and args kept whole behind it, then `extra`; nothing else changes.
 */
export function throughTap(
  config: PrintedConfig,
  tapLog: string,
  extra: readonly string[] = [],
): PrintedConfig {
  return withServerEntry(config, {
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-run",
      `--allow-write=${tapLog}`,
      "--no-prompt",
      "--quiet",
      TAP,
      tapLog,
      config.command,
      ...config.args,
      ...extra,
    ],
  });
}

const tapLine = z.object({
  from: z.enum(["host", "server"]),
  at: z.number(),
  frame: z.string(),
});
export interface Frame {
  from: "host" | "server";
  at: number;
  message: Record<string, unknown>;
}

/** The frames the tap logged so far, in order (none when it has logged nothing yet). */
export async function readTap(path: string): Promise<Frame[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  const frames: Frame[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const { from, at, frame } = tapLine.parse(JSON.parse(line));
    try {
      const message: unknown = JSON.parse(frame);
      if (isRecord(message)) frames.push({ from, at, message });
    } catch {
      // Not a JSON-RPC frame; the bridge writes nothing else, so nothing to learn.
    }
  }
  return frames;
}

const elicitResult = z.object({ action: z.enum(["accept", "decline", "cancel"]) });

type Wire = Pick<
  ApprovalSession,
  | "protocolVersion"
  | "clientInfo"
  | "declaredElicitation"
  | "elicitationCapability"
  | "answers"
  | "forms"
  | "answerMs"
  | "executeReply"
>;

/**
 * The client's handshake: the 2025 era's `initialize`, or the 2026-07-28 `server/discover`,
 * whose version, client and capabilities ride in `_meta`.
 */
function handshake(frames: readonly Frame[]): Record<string, unknown> {
  const init = frames.find((f) =>
    f.from === "host" &&
    (f.message.method === "initialize" || f.message.method === "server/discover")
  );
  const params = isRecord(init?.message.params) ? init.message.params : {};
  if (init?.message.method === "initialize") return params;
  const meta = isRecord(params._meta) ? params._meta : {};
  return {
    protocolVersion: meta["io.modelcontextprotocol/protocolVersion"],
    clientInfo: meta["io.modelcontextprotocol/clientInfo"],
    capabilities: meta["io.modelcontextprotocol/clientCapabilities"],
  };
}

/**
 * The 2026-07-28 rounds: an execute answered `input_required`, and the host's retry of that
 * call carrying `inputResponses.approval` (the person's answer) and the echoed state.
 */
function modernRounds(frames: readonly Frame[]): { answers: HostAnswer[]; answerMs: number[] } {
  const answers: HostAnswer[] = [];
  const answerMs: number[] = [];
  for (const ask of frames) {
    const result = ask.message.result;
    if (ask.from !== "server" || !isRecord(result) || result.resultType !== "input_required") {
      continue;
    }
    const retry = frames.find((f) => {
      const p = f.message.params;
      // The state is one UUID per question; the tap may log a quick retry a moment early.
      return f.from === "host" && f.message.method === "tools/call" && isRecord(p) &&
        p.requestState === result.requestState;
    });
    const params = isRecord(retry?.message.params) ? retry.message.params : {};
    const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
    if (retry !== undefined) answerMs.push(Math.max(0, retry.at - ask.at));
    const parsed = elicitResult.safeParse(responses.approval);
    answers.push(
      retry === undefined
        ? "error: no retry"
        : parsed.success
        ? parsed.data.action
        : `error: ${JSON.stringify(responses)}`,
    );
  }
  return { answers, answerMs };
}

/** What the frames say: the client's handshake, each question and answer, the execute reply. */
function readWire(frames: readonly Frame[]): Wire {
  const params = handshake(frames);
  const capabilities = isRecord(params.capabilities) ? params.capabilities : {};
  const elicitation = capabilities.elicitation;
  const declared = isRecord(elicitation) &&
    (!("url" in elicitation) || "form" in elicitation);
  const answers: HostAnswer[] = [];
  const answerMs: number[] = [];
  const forms: unknown[] = [];
  for (const ask of frames) {
    const result = ask.message.result;
    // The 2026-07-28 era carries each form in an input_required result.
    if (ask.from === "server" && isRecord(result) && isRecord(result.inputRequests)) {
      for (const request of Object.values(result.inputRequests)) {
        if (isRecord(request)) forms.push(request.params);
      }
    }
    if (ask.from !== "server" || ask.message.method !== "elicitation/create") continue;
    forms.push(ask.message.params);
    const reply = frames.find((f) =>
      f.from === "host" && f.message.id === ask.message.id && f.message.method === undefined
    );
    if (reply !== undefined) answerMs.push(reply.at - ask.at);
    if (reply === undefined) answers.push("error: no reply");
    else if (reply.message.error !== undefined) {
      answers.push(`error: ${JSON.stringify(reply.message.error)}`);
    } else {
      const parsed = elicitResult.safeParse(reply.message.result);
      answers.push(
        parsed.success ? parsed.data.action : `error: ${JSON.stringify(reply.message.result)}`,
      );
    }
  }
  const modern = modernRounds(frames);
  answers.push(...modern.answers);
  answerMs.push(...modern.answerMs);
  // The execute's final reply: a retried call's, not the input_required that asked.
  const calls = frames.filter((f) => {
    const p = f.message.params;
    return f.from === "host" && f.message.method === "tools/call" && isRecord(p) &&
      p.name === "portreeve_claim_delete_execute";
  });
  const reply = calls.map((call) =>
    frames.find((f) =>
      f.from === "server" && f.message.id === call.message.id && f.message.method === undefined
    )
  ).findLast((f) =>
    !(isRecord(f?.message.result) && f.message.result.resultType === "input_required")
  );
  return {
    protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : null,
    clientInfo: params.clientInfo ?? null,
    declaredElicitation: declared,
    elicitationCapability: elicitation ?? null,
    answers,
    forms,
    answerMs,
    executeReply: reply?.message.result ?? reply?.message.error ?? null,
  };
}
