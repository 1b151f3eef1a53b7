/**
 * One real instance of every error the bridge writes itself, each made by the code path that
 * makes it in a running bridge (no hand-built copies): the table walk and the agent-facing
 * text walk read their messages, codes and reasons from here.
 */
import { symlink } from "./symlink.ts";
import { BridgeError, Codes, invalidResponse, resourceLimit } from "../../src/shared/errors.ts";
import { notGranted, unavailable, waitEnded } from "../../src/daemon/errors.ts";
import { DaemonClient } from "../../src/daemon/client.ts";
import { incompatible } from "../../src/daemon/compatibility.ts";
import { outcomeUnknown } from "../../src/daemon/errors.ts";
import { readEnvelope } from "../../src/daemon/envelope.ts";
import { asBridgeError, envelopeOf } from "../../src/results/result.ts";
import { Catalogue } from "../../src/catalogue/catalogue.ts";
import { bindCursor, unbindCursor } from "../../src/results/pagination.ts";
import { heldWithOtherArguments, Memory } from "../../src/catalogue/memory.ts";
import { withOutcomeCheck } from "../../src/catalogue/outcome_checks.ts";
import { type ApprovalContext, obtainApproval } from "../../src/catalogue/approval.ts";
import { type Asking, ReceiptBook } from "../../src/catalogue/receipt_book.ts";
import type { ToolContext } from "../../src/catalogue/context.ts";
import type { HostChannel } from "../../src/shared/host_channel.ts";
import { HostAskError } from "../../src/shared/host_channel.ts";
import { CallLimiter } from "../../src/transport/call_limiter.ts";
import { ALL_TOOLS } from "../../src/catalogue/index.ts";
import { claimDeleteExecute } from "../../src/catalogue/tools/consequential/claims.ts";
import { acquireRefusals, changedMeanwhile } from "../../src/catalogue/tools/acquire_gate.ts";
import { get } from "../../src/daemon/routes.ts";
import { ApprovalGate } from "../../src/daemon/gate.ts";
import { approvalPair } from "./approvals.ts";
import { z } from "zod";
import {
  CredentialUnavailableError,
  Custody,
  CustodyClosedError,
  CustodyLimitError,
  HandleCollisionError,
  InvalidRenewalError,
  RenewalTimeoutError,
} from "../../src/custody/mod.ts";
import { FakeClock } from "./fake_clock.ts";
import { FakeRenewalError, FakeRenewers } from "./fake_renewers.ts";
import { FramedStdioTransport } from "../../src/transport/stdio_transport.ts";
import { SocketIdentity } from "../../src/daemon/socket_identity.ts";

export interface Sample {
  /** Where it comes from, for failure messages. */
  made: string;
  error: BridgeError;
}

const SOCKET = "/run/user/1000/portreeve/portreeve.sock";
const CONFIG = get("/v1/config", z.unknown());
const DELETE_EXECUTE = claimDeleteExecute.routes![0];

/** The error a promise rejects with (a `BridgeError` by way of what the catalogue does). */
async function rejection(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    return asBridgeError(error);
  }
  throw new Error("expected a failure");
}

function thrown(run: () => unknown): BridgeError {
  try {
    run();
  } catch (error) {
    return asBridgeError(error);
  }
  throw new Error("expected a failure");
}

/** The tool error the stdio transport answers a tool call refused unparsed with. */
async function refusedCall(args: string): Promise<BridgeError> {
  const line = new TextEncoder().encode(
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":${args}}}\n`,
  );
  let at = 0;
  const refused: BridgeError[] = [];
  const refuseCall = (error: BridgeError) => {
    refused.push(error);
    return { content: [], isError: true };
  };
  const transport = new FramedStdioTransport({ scrub: (json) => json, refuseCall }, {
    input: {
      read(buffer) {
        if (at >= line.length) return Promise.resolve(null);
        const chunk = line.subarray(at, at + buffer.length);
        at += chunk.length;
        buffer.set(chunk);
        return Promise.resolve(chunk.length);
      },
    },
    output: { write: (bytes) => Promise.resolve(bytes.length) },
  });
  const ended = Promise.withResolvers<void>();
  transport.onEnd = () => ended.resolve();
  await transport.start();
  await ended.promise;
  if (!refused[0]) throw new Error("the call was not refused");
  return refused[0];
}

/** A lease admitted `leftMs` from its expiry (negative: past), as lease_acquire admits it. */
async function admitted(leftMs: number, renewal?: FakeRenewalError): Promise<BridgeError> {
  const clock = new FakeClock();
  const renewers = new FakeRenewers(clock);
  if (renewal) renewers.failNext(renewal);
  const custody = new Custody({ clock, renewers });
  const lease = { leaseId: "L1", token: "t".repeat(43), expiresAt: clock.now() + leftMs };
  const error = await rejection(custody.admitLease(lease, clock.now() - 15_000 + leftMs));
  await custody.close();
  return error;
}

/** The receipt book's clock in these samples, which stands still (no real-time margin). */
const SAMPLED_AT = new FakeClock().now();

/** The approval gate with a receipt this bridge issued, and a host that answers `answer`. */
function approval(
  host: Partial<HostChannel>,
  options: {
    mode?: "auto" | "required";
    expiresInMs?: number;
    issued?: boolean;
    asking?: Asking;
  } = {},
) {
  const receipts = new ReceiptBook(undefined, () => SAMPLED_AT);
  if (options.issued !== false) {
    receipts.remember({
      receiptId: "8c6f1a2b-1111-4222-8333-444455556666",
      action: "claim.delete",
      target: { type: "claim", id: "c1" },
      expiresAt: new Date(SAMPLED_AT + (options.expiresInMs ?? 60_000)).toISOString(),
      asking: options.asking ?? { kind: "question", parts: ["Delete claim c1?"] },
    });
  }
  const ctx: ApprovalContext = {
    approvals: approvalPair().approvals,
    bridge: { approval: options.mode ?? "auto", approvalMs: 5_000 },
    receipts,
    signal: new AbortController().signal,
    host: { canAsk: true, ...host },
  };
  const call = {
    tool: "portreeve_claim_delete_execute",
    action: "claim.delete",
    target: { type: "claim", id: "c1" },
    receiptId: "8c6f1a2b-1111-4222-8333-444455556666",
    request: { route: DELETE_EXECUTE, path: DELETE_EXECUTE.path, body: {} },
  };
  return { ctx, call, ask: () => obtainApproval(ctx, call) };
}

/** A tool result's error, as the catalogue builds it (no daemon needed: it fails first). */
async function catalogueError(tool: string, args: unknown): Promise<BridgeError> {
  const catalogue = new Catalogue("full");
  const result = await catalogue.call(tool, args, {} as Omit<ToolContext, "capabilities">);
  const envelope = envelopeOf(result);
  if (envelope.ok) throw new Error(`${tool} did not fail`);
  const { error } = envelope;
  return new BridgeError(error.code, error.message, error.retryable, error.details ?? {});
}

/**
 * The refusals of what must be sent nothing: a real socket judged by another user, and a link
 * in its place.
 */
async function untrustedSockets(): Promise<BridgeError[]> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/d.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  try {
    const foreign = await rejection(
      new SocketIdentity(path, { user: Deno.lstatSync(path).uid! + 1 }).check(),
    );
    await symlink(path, `${dir}/link.sock`);
    const link = await rejection(new SocketIdentity(`${dir}/link.sock`).check());
    return [foreign, link];
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
}

export async function bridgeErrorSamples(): Promise<Sample[]> {
  const samples: Sample[] = [];
  const add = (made: string, error: BridgeError) => samples.push({ made, error });

  // Reaching the daemon.
  add(
    "connect: no socket",
    unavailable(SOCKET, "client error (Connect): No such file (os error 2)"),
  );
  add("connect: refused", unavailable(SOCKET, "Connection refused (os error 111)"));
  add("connect bound", unavailable(SOCKET, "no connection within 3000 ms"));
  const bound = { kind: "timeout", afterMs: 600_000 } as const;
  add("call's bound: a read", waitEnded(SOCKET, bound));
  add("call's bound: a change given back", waitEnded(SOCKET, bound, { givesBack: "abandoned" }));
  add("call's bound: a change logged", waitEnded(SOCKET, bound, {}));
  add("cancelled: a change given back", waitEnded(SOCKET, { kind: "aborted" }, { givesBack: "x" }));
  add("permission grant", notGranted(SOCKET));
  const [foreign, link] = await untrustedSockets();
  add("another user's socket at the path", foreign);
  add("a link at the socket's path", link);
  add("resource limit", resourceLimit("Too many open files (os error 24)"));
  const health = {
    softwareVersion: "9.0.0",
    protocol: { minimum: 2, maximum: 3 },
    capabilities: [],
    pid: 1,
    mode: "foreground",
  };
  add("incompatible verdict", incompatible(health, "the daemon speaks protocol 2–3"));
  add(
    "cancelled request",
    await rejection(
      new DaemonClient({ socketPath: SOCKET, runId: crypto.randomUUID(), gate: new ApprovalGate() })
        .request(CONFIG, {
          signal: AbortSignal.abort(),
        }),
    ),
  );

  // Reading its answers.
  const answer = (status: number, text: string) => thrown(() => readEnvelope({ status, text }));
  add("non-JSON answer", answer(200, "<html>"));
  add("another protocol version", answer(200, '{"protocolVersion":2,"data":{}}'));
  add("unknown daemon code", answer(400, '{"protocolVersion":1,"error":{"code":"boom"}}'));
  add("HTTP 500 page", answer(500, "<html>Internal Server Error</html>"));
  add("malformed reply", invalidResponse("GET /v1/config answered data of the wrong shape"));
  const acquire = ALL_TOOLS.flatMap((t) => t.routes ?? []).find((r) =>
    r.path === "/v1/leases/acquire"
  )!;
  add(
    "lost answer to a mutation",
    withOutcomeCheck(outcomeUnknown(invalidResponse("a cut-off body")), acquire) as BridgeError,
  );

  // Arguments.
  add("unknown key", await catalogueError("portreeve_claims_list", { bogus: 1 }));
  let deep: unknown = 1;
  for (let i = 0; i < 5_000; i++) deep = { x: deep };
  add(
    "too deep",
    await catalogueError("portreeve_stack_definition_validate", { definition: deep }),
  );
  add("foreign cursor", thrown(() => unbindCursor("not-ours", "history:a")));
  add("cursor of other filters", thrown(() => unbindCursor(bindCursor("history:a", "c"), "b")));
  add("custody window", asBridgeError(new CustodyLimitError(90, 10, 60)));
  add("tool call nested too deep to parse", await refusedCall("[".repeat(200) + "]".repeat(200)));
  add("tool call of too many values to parse", await refusedCall(`[${"0,".repeat(100_000)}0]`));

  // Memory of this bridge's own calls.
  const memory = new Memory();
  await memory.once("k", { reason: "client-cancelled" }, () => Promise.resolve({}));
  add(
    "settled with other arguments",
    await rejection(memory.once("k", { reason: "startup-error" }, () => Promise.resolve({}))),
  );
  add("lease held", heldWithOtherArguments("lease", "the pending lease L for this claim", {}));
  add("activation held", heldWithOtherArguments("activation", "activation A", {}));
  add("operation held", heldWithOtherArguments("operation", "launcher operation O", {}));

  // The person's approval.
  add(
    "declined",
    await rejection(approval({ ask: () => Promise.resolve({ action: "decline" }) }).ask()),
  );
  add(
    "dismissed",
    await rejection(approval({ ask: () => Promise.resolve({ action: "cancel" }) }).ask()),
  );
  const once = approval({ ask: () => Promise.resolve({ action: "decline" }) });
  await once.ask().catch(() => {});
  add("declined earlier", await rejection(once.ask()));
  add(
    "no answer",
    await rejection(
      approval({ ask: () => Promise.reject(new HostAskError(true, "timeout")) }).ask(),
    ),
  );
  add(
    "host failed",
    await rejection(
      approval({ ask: () => Promise.reject(new HostAskError(false, "broken")) }).ask(),
    ),
  );
  let release = () => {};
  const open = approval({
    ask: () => new Promise((resolve) => release = () => resolve({ action: "cancel" })),
  });
  const first = open.ask().catch(() => {});
  add("question already open", await rejection(open.ask()));
  release();
  await first;
  add("host cannot ask", await rejection(approval({ canAsk: false }, { mode: "required" }).ask()));
  // The acquire gate's refusals, as the gate builds them for a reclaiming policy.
  const reclaim = acquireRefusals("force-after-grace");
  add("acquire: host cannot ask (auto)", reclaim.hostCannotAsk("auto"));
  add("acquire: host cannot ask (required)", reclaim.hostCannotAsk("required"));
  add("acquire: too long to ask", reclaim.tooLongToAsk(2_975));
  add(
    "preview found nothing to do",
    await rejection(approval({}, { asking: { kind: "nothing_to_do" } }).ask()),
  );
  add(
    "preview said refused",
    await rejection(approval({}, { asking: { kind: "preview_refused" } }).ask()),
  );
  add(
    "too long to ask",
    await rejection(approval({}, { asking: { kind: "too_long_to_ask", length: 2_975 } }).ask()),
  );
  add("acquire: declined", reclaim.declined("decline"));
  add("acquire: declined earlier", reclaim.declined());
  add("acquire: question open", reclaim.busy());
  add("acquire: cancelled", reclaim.cancelled());
  add("acquire: no answer", reclaim.noAnswer(30_000, new HostAskError(true, "timed out")));
  add("acquire: host failed", reclaim.noAnswer(5, new HostAskError(false, "broken pipe")));
  add("acquire: run changed meanwhile", changedMeanwhile("graceful"));
  add("receipt not issued here", await rejection(approval({}, { issued: false }).ask()));
  add("receipt expired", await rejection(approval({}, { expiresInMs: -1_000 }).ask()));
  const other = approval({});
  add(
    "receipt for another target",
    await rejection(
      obtainApproval(other.ctx, { ...other.call, target: { type: "claim", id: "c2" } }),
    ),
  );

  // The bridge's own limits and custody.
  const limiter = new CallLimiter({ maxInFlight: 1, maxWaiting: 0 });
  let finish = () => {};
  const running = limiter.run(() => new Promise<void>((resolve) => finish = resolve));
  add("busy", await rejection(limiter.run(() => Promise.resolve())));
  finish();
  await running;
  add("credential unavailable", asBridgeError(new CredentialUnavailableError()));
  add(
    "credential lapsed",
    asBridgeError(
      new CredentialUnavailableError({
        kind: "lease",
        failure: { code: "portreeve_lease_expired", message: "expired", at: 0 },
      }),
    ),
  );
  add(
    "launcher operation lapsed",
    asBridgeError(
      new CredentialUnavailableError({
        kind: "launcher",
        failure: { code: Codes.operationDeadlinePassed, message: "deadline passed", at: 0 },
      }),
    ),
  );
  add("lease dead on arrival", await admitted(-8_100));
  add(
    "lease about to expire, its renewal refused",
    await admitted(2_000, new FakeRenewalError("portreeve_lease_not_pending", false)),
  );
  add("custody closed", asBridgeError(new CustodyClosedError()));
  add("handle collision", asBridgeError(new HandleCollisionError()));
  add("renewal deadline", asBridgeError(new RenewalTimeoutError(10_000)));
  add("renewal answer malformed", asBridgeError(new InvalidRenewalError("no expiresAt")));
  add("bug", asBridgeError(new TypeError("undefined is not a function")));
  return samples;
}
