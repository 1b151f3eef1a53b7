/**
 * Tool calls without a process: the real catalogue (its listing, definitions, input and output
 * checks, results), real custody on a fake clock, real memory and receipts, and a daemon that
 * answers from a script and records what each tool sent. Replies are daemon envelopes, read by
 * the client's own envelope reader, so an error reply becomes the `BridgeError` the real client
 * would throw. Recorded exchanges with the real daemon (tests/fixtures/) make good scripts.
 */
import type { AnswerWidget } from "../../src/shared/host_treatment.ts";
import { checkReply, HEALTH_ROUTE, type ReplySchema } from "../../src/daemon/replies.ts";
import { isDeclared, pathOf, type Route } from "../../src/daemon/routes.ts";
import type { ApprovalGate } from "../../src/daemon/gate.ts";
import { approvalPair } from "./approvals.ts";
import type { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { Catalogue } from "../../src/catalogue/catalogue.ts";
import type { AnyTool } from "../../src/catalogue/define.ts";
import type { ToolContext } from "../../src/catalogue/context.ts";
import type { HostChannel } from "../../src/shared/host_channel.ts";
import { NO_HOST_CHANNEL } from "./person.ts";
import { Memory } from "../../src/catalogue/memory.ts";
import { ReceiptBook } from "../../src/catalogue/receipt_book.ts";
import { daemonRenewers } from "../../src/catalogue/renewers.ts";
import { Custody } from "../../src/custody/mod.ts";
import type { DaemonClient, RequestCall } from "../../src/daemon/client.ts";
import type { Health, Verdict } from "../../src/daemon/compatibility.ts";
import { PROTOCOL_VERSION, readEnvelope } from "../../src/daemon/envelope.ts";
import { type ApprovalMode, DEFAULT_APPROVAL_MODE } from "../../src/shared/options.ts";
import { FakeClock } from "./fake_clock.ts";
import { envelopeOf, isErrorResult } from "../../src/results/result.ts";
import type { Json } from "../../src/shared/json.ts";

/** One daemon request as a tool made it: GETs carry a query, POSTs a body (no client block). */
export interface Sent {
  method: "GET" | "POST";
  path: string;
  /** GET: the query as it goes on the wire (strings, unset keys dropped); POST: the body. */
  payload: Json;
  capabilities: readonly string[];
}

/** A daemon HTTP reply: status and envelope. */
export interface Reply {
  status: number;
  body: unknown;
}

/** Answers one request; throwing stands for a transport failure. */
export type Script = (sent: Sent) => Reply;

export function ok(data: unknown): Reply {
  return { status: 200, body: { protocolVersion: PROTOCOL_VERSION, requestId: REQUEST_ID, data } };
}

export function daemonError(
  status: number,
  code: string,
  message: string,
  options: { retryable?: boolean; details?: Json } = {},
): Reply {
  return {
    status,
    body: {
      protocolVersion: PROTOCOL_VERSION,
      requestId: REQUEST_ID,
      error: {
        code,
        message,
        retryable: options.retryable ?? false,
        details: options.details ?? {},
      },
    },
  };
}

const REQUEST_ID = "00000000-0000-4000-8000-000000000001";

/** Replies in order, one per request; a request beyond them fails the test. */
export function inOrder(...replies: Reply[]): Script {
  let next = 0;
  return (sent) => {
    const reply = replies[next++];
    if (!reply) throw new Error(`unscripted daemon request ${sent.method} ${sent.path}`);
    return reply;
  };
}

/**
 * Stands in for `DaemonClient`: the surface tools and renewers use, nothing more. Like the
 * real client it sends only declared routes and passes every request through the same gate
 * (a consequential request without its approval proof is refused, unsent).
 */
class ScriptedDaemon {
  readonly sent: Sent[] = [];
  invalidations = 0;

  constructor(private readonly script: Script, private readonly gate: ApprovalGate) {}

  request<Reply extends z.ZodType>(route: Route<Reply>, call: RequestCall = {}): Promise<unknown> {
    try {
      if (!isDeclared(route)) throw new Error(`${route.route} is not a declared route`);
      const path = pathOf(route, call.params);
      // As it goes on the wire: keys set to undefined are not sent.
      const body = JSON.parse(JSON.stringify(call.body ?? {}));
      this.gate.admit(route, path, call.body ?? {}, call.approval);
      const payload: Json = {};
      if (route.method === "GET") {
        for (const [key, value] of Object.entries(call.query ?? {})) {
          if (value !== undefined) payload[key] = String(value);
        }
      }
      const sent: Sent = {
        method: route.method,
        path,
        payload: route.method === "GET" ? payload : body,
        capabilities: [...(call.capabilities ?? [])],
      };
      return this.#answer(sent, route);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async compatibility(): Promise<Verdict> {
    const health = await this.request(HEALTH_ROUTE) as Health;
    const { minimum, maximum } = health.protocol;
    return minimum <= PROTOCOL_VERSION && maximum >= PROTOCOL_VERSION
      ? { compatible: true, health }
      : { compatible: false, health, reason: `protocol ${minimum}–${maximum}` };
  }

  invalidate(): void {
    this.invalidations++;
  }

  /** Gives back as the real client does: the route's undo, through this daemon's requests. */
  giveBack(route: Route, answer: unknown): void {
    void route.giveBack?.undo(answer, (to, call) => this.request(to, call) as never);
  }

  /** Answers like the real client: the envelope read, then the reply checked by its route. */
  #answer(sent: Sent, schema: ReplySchema): Promise<unknown> {
    this.sent.push(sent);
    try {
      const reply = this.script(sent);
      const data = readEnvelope({ status: reply.status, text: JSON.stringify(reply.body) });
      return Promise.resolve(checkReply(schema, sent.method, sent.path, data));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/** A tool answered `portreeve_internal`: the bug behind it, named (a test fails with this). */
export class ToolBug extends Error {
  override name = "ToolBug";
  constructor(tool: string, bug: unknown) {
    super(
      `${tool} answered portreeve_internal, a bridge bug: ${
        bug instanceof Error ? `${bug.name}: ${bug.message}` : String(bug)
      }`,
      { cause: bug },
    );
  }
}

/** What a call returned, unpacked from the MCP result. */
export interface Called {
  /** Whether it is an error, flagged (`isError`) or not (`ok: false`): see `result` for which. */
  isError: boolean;
  ok: boolean;
  data?: Json;
  error?: { code: string; message: string; retryable: boolean; details: Json };
  /** The first line of the text block: a success's whole JSON, an error's code line. */
  text: string;
  /** The result as the host received it. */
  result: CallToolResult;
}

export interface ToolRigOptions {
  /** When the fake clock starts (defaults to the time of the recorded session). */
  start?: number;
  /** `serve --approval` (default: the bridge's default, `required`). */
  approval?: ApprovalMode;
  host?: HostChannel;
  /** The daemon's delay as custody observes it (0: prompt). */
  daemonDelayMs?: number;
  /** Stand-in definitions to serve instead of the catalogue's (a test's own tool). */
  tools?: AnyTool[];
  /** False: errors go as to a host whose profile says `flagsToolErrors: false` (Gemini CLI). */
  flagsToolErrors?: boolean;
  /** The result limit of the host (unset: the smallest any host shows). */
  resultLimitBytes?: number;
  /** How the host draws the approval question's yes/no field (unset: not known). */
  answerWidget?: AnswerWidget;
}

/** The whole catalogue over a scripted daemon. Close it (or `await using` it) to stop custody's timers. */
export function toolRig(script: Script, options: ToolRigOptions = {}) {
  const { gate, approvals } = approvalPair();
  const daemon = new ScriptedDaemon(script, gate);
  const client = daemon as unknown as DaemonClient; // the surface above is all tools touch
  const clock = new FakeClock(options.start ?? Date.parse("2026-11-30T04:18:12.046Z"));
  const custody = new Custody({
    clock,
    renewers: daemonRenewers(client),
    daemonDelayMs: () => options.daemonDelayMs ?? 0,
  });
  const catalogue = options.tools === undefined ? new Catalogue("full") : new Catalogue(
    "full",
    options.tools.map((tool) => ({
      kind: tool.kind,
      capabilities: [...(tool.capabilities ?? [])],
      tool: { name: tool.name, inputSchema: { type: "object" } },
    })),
    () => Promise.resolve(options.tools!),
  );
  const ctx: Omit<ToolContext, "capabilities"> = {
    daemon: client,
    custody,
    memory: new Memory(),
    receipts: new ReceiptBook(500, () => clock.now()),
    approvals,
    signal: new AbortController().signal,
    host: options.host ?? NO_HOST_CHANNEL,
    flagsToolErrors: options.flagsToolErrors,
    resultLimitBytes: options.resultLimitBytes,
    answerWidget: options.answerWidget,
    bridge: {
      runId: "9fc922e7-eda8-4de2-bbfc-1c21c7f5cc11",
      label: "unit",
      socketPath: "/run/user/1000/portreeve/portreeve.sock",
      socketSource: "flag",
      toolset: "full",
      requiredCapabilities: catalogue.requiredCapabilities(),
      approval: options.approval ?? DEFAULT_APPROVAL_MODE,
      approvalMs: 1_000,
    },
  };
  return {
    daemon,
    clock,
    custody,
    ctx,
    /** One call; `signal` is the host's (never aborted when unset). */
    async call(name: string, args: Json = {}, signal?: AbortSignal): Promise<Called> {
      const bugs: unknown[] = [];
      catalogue.onBug = (_tool, error) => bugs.push(error);
      const answer = await catalogue.call(name, args, signal ? { ...ctx, signal } : ctx);
      // A bug answers the agent `portreeve_internal` and no more; a test says what it was
      // (a gate refusal names the request it kept back, and why).
      if (bugs.length > 0) throw new ToolBug(name, bugs[0]);
      if (answer.resultType === "input_required") throw new Error(`${name} asked for input`);
      const result = answer as CallToolResult;
      const structured = envelopeOf(result) as Omit<Called, "isError" | "text">;
      const first = result.content[0];
      return {
        ...structured,
        isError: isErrorResult(result),
        text: first?.type === "text" ? first.text.split("\n")[0] : "",
        result,
      };
    },
    close: () => custody.close(),
    /** `await using rig = toolRig(…)` closes it when the test ends, passed or failed. */
    [Symbol.asyncDispose]: () => custody.close(),
  };
}

export type ToolRig = ReturnType<typeof toolRig>;

/** What reached the daemon, in the terms of a recorded exchange (GETs record no capabilities). */
export function comparable(sent: Sent): Partial<Sent> {
  const { capabilities, ...rest } = sent;
  return sent.method === "POST" ? { ...rest, capabilities } : rest;
}

/**
 * A daemon error reply to the tool's first request reaches the caller as a tool error with the
 * daemon's code (ours, prefixed), message and `retryable`: once not found, once a retryable
 * conflict. `prepare` runs first on the same rig (e.g. to hold a credential the call needs).
 */
export async function daemonErrorsKept(
  tool: string,
  args: Json | ((rig: ToolRig) => Json),
  prepare: Reply[] = [],
  prepareCall?: (rig: ToolRig) => Promise<unknown>,
  options?: ToolRigOptions,
): Promise<Called[]> {
  const seen: Called[] = [];
  for (
    const reply of [
      daemonError(404, "not_found", "Nothing of that name is known."),
      daemonError(409, "conflict", "It changed meanwhile.", { retryable: true }),
    ]
  ) {
    await using rig = toolRig(inOrder(...prepare, reply), options);
    await prepareCall?.(rig);
    const result = await rig.call(tool, typeof args === "function" ? args(rig) : args);
    seen.push(result);
  }
  return seen;
}
