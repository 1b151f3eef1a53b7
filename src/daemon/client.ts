/**
 * PortReeve protocol v1 client. One instance per bridge process: it keeps the connection
 * alive, stamps every POST with our `client` block and origin, and caches the compatibility
 * verdict so a call costs one round trip, not a health probe plus the call.
 */
import { BridgeError, Codes, invalidResponse, resourceLimit } from "../shared/errors.ts";
import { notGranted, requestTooLong, timedOut, TOO_LONG_STATUSES, unavailable } from "./errors.ts";
import {
  HttpError,
  type HttpFailure,
  MAX_URL_CHARS,
  type RawResponse,
  UnixHttp,
  URL_PREFIX,
} from "./http.ts";
import { PROTOCOL_VERSION, readEnvelope } from "./envelope.ts";
import { checkReply, HEALTH_ROUTE, type ReplySchema } from "./replies.ts";
import { laneOf } from "./lanes.ts";
import type { Lane } from "./slots.ts";
import type { Timers } from "../shared/signals.ts";
import { SOFTWARE_VERSION } from "../shared/options.ts";
import { isDeclared, type Params, pathOf, type Query, type Route } from "./routes.ts";
import type { ApprovalGate, ApprovalProof } from "./gate.ts";
import { bridgeOrigin } from "./origin.ts";
import { SocketIdentity, type SocketIdentityOptions } from "./socket_identity.ts";
import type { z } from "zod";

export interface Health {
  softwareVersion: string;
  protocol: { minimum: number; maximum: number };
  capabilities: string[];
  pid: number;
  mode: string;
}

export type Verdict =
  | { compatible: true; health: Health }
  | { compatible: false; health: Health; reason: string };

export interface Timeouts {
  /** Health probes: a live daemon answers in milliseconds, so this is also our connect bound. */
  probeMs: number;
  readMs: number;
  writeMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { probeMs: 3_000, readMs: 15_000, writeMs: 30_000 };

export interface DaemonClientOptions {
  socketPath: string;
  runId: string;
  label?: string;
  timeouts?: Partial<Timeouts>;
  /** Bound on daemon response bodies (default `MAX_RESPONSE_BYTES`). */
  maxResponseBytes?: number;
  /** Bound on daemon requests (and so connections) open at once (default `MAX_CONCURRENT`). */
  maxConcurrent?: number;
  /** Returns an error when the process may not use the socket (e.g. outside its grant). */
  preflight?: () => BridgeError | undefined;
  /** Timers of the request deadlines (default the runtime's; tests fire their own). */
  timers?: Timers;
  /**
   * The gate every request passes (gate.ts): the one whose minter this bridge's approvals
   * hold, so a consequential request goes out only with their proof.
   */
  gate: ApprovalGate;
  /** Seams of the socket checks before each request (socket_identity.ts; tests). */
  socket?: SocketIdentityOptions;
}

/** How one request is sent, once `request` or `health` has settled its deadline. */
interface SendOptions<Reply extends z.ZodType = z.ZodType> {
  signal?: AbortSignal;
  /** Capabilities the route needs; checked against the cached health before sending. */
  capabilities?: readonly string[];
  timeoutMs: number;
  /** The route's reply schema; the reply is checked against it where it arrives. */
  reply: ReplySchema<Reply>;
}

/** One request to a declared route. */
export interface RequestCall {
  /** Values for the route's `{name}` segments. */
  params?: Params;
  /** A GET's query. */
  query?: Query;
  /** A POST's body (the client adds its `client` block). */
  body?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Capabilities the route needs; checked against the cached health before sending. */
  capabilities?: readonly string[];
  timeoutMs?: number;
  /** A POST that only reads (status, resolve, validate…): may be re-sent once. */
  safe?: boolean;
  /** Required when this request's effect is consequential (see gate.ts). */
  approval?: ApprovalProof;
  /**
   * For custody traffic (a body carrying a held credential): when that credential expires.
   * Waiting custody requests go soonest-due first; see lanes.ts.
   */
  custodyDueAt?: number;
}

const HEALTH_PATH = pathOf(HEALTH_ROUTE);
/** The protocol range every POST's `client` block states. */
const PROTOCOL_RANGE = { minimum: PROTOCOL_VERSION, maximum: PROTOCOL_VERSION } as const;

/** `retrySafe`: a read, may be re-sent after a broken connection. `gated`: checked against the
 * compatibility verdict before sending. */
interface SendMode {
  retrySafe: boolean;
  gated: boolean;
  /** New work unless the body carries a held credential. */
  lane?: Lane;
}

export class DaemonClient {
  readonly socketPath: string;
  readonly runId: string;
  readonly label?: string;
  #http: UnixHttp;
  #timeouts: Timeouts;
  #verdict?: Promise<Verdict>;
  /** What answers at the socket path, and whether it is the daemon the verdict is about. */
  #socket: SocketIdentity;
  #preflight?: () => BridgeError | undefined;
  readonly #approvalGate: ApprovalGate;
  /** Every POST's `client.origin`: fixed for this bridge, so built once. */
  readonly #origin: Record<string, string>;

  constructor(options: DaemonClientOptions) {
    this.socketPath = options.socketPath;
    this.runId = options.runId;
    this.label = options.label;
    this.#http = new UnixHttp(
      options.socketPath,
      options.maxResponseBytes,
      options.maxConcurrent,
      options.timers,
    );
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#preflight = options.preflight;
    this.#approvalGate = options.gate;
    this.#socket = new SocketIdentity(options.socketPath, options.socket);
    this.#origin = bridgeOrigin(this.runId, this.label);
  }

  /**
   * `GET /v1/health` without the gate; used by diagnostics and to build the verdict. A probe
   * answers within `probeMs` unless a call waits on it (`timeoutMs`, see `#gate`).
   */
  async health(signal?: AbortSignal, timeoutMs = this.#timeouts.probeMs): Promise<Health> {
    // Through the gate like every request (a read: it always passes).
    this.#approvalGate.admit(HEALTH_ROUTE, HEALTH_PATH, {});
    return await this.#send("GET", HEALTH_PATH, undefined, {
      signal,
      timeoutMs,
      reply: HEALTH_ROUTE,
    }, { retrySafe: true, gated: false });
  }

  /**
   * The cached verdict, probing the daemon once when there is none. Only a positive verdict is
   * kept: the user is told to upgrade and restart an incompatible daemon, so the next caller
   * (a tool after `diagnostics`, say) must judge the daemon that answers then.
   */
  compatibility(signal?: AbortSignal, timeoutMs?: number): Promise<Verdict> {
    if (!this.#verdict) {
      const pending = this.#socket.vouch(() => this.health(signal, timeoutMs)).then(judge);
      this.#verdict = pending;
      const forget = () => {
        if (this.#verdict === pending) this.#verdict = undefined;
      };
      pending.then((verdict) => verdict.compatible || forget(), forget);
    }
    return this.#verdict;
  }

  /** Forgets the verdict; the next call probes again. */
  invalidate(): void {
    this.#verdict = undefined;
    this.#socket.forget();
  }

  /**
   * Sends one request to a declared route and returns its checked reply. Before anything is
   * sent (even the compatibility probe), the request's effect is computed and a
   * consequential one without its approval proof is refused (gate.ts). GETs and `safe`
   * POSTs may be re-sent once over a fresh connection; other POSTs only when the daemon
   * never had them (see `#attempt`).
   */
  async request<Reply extends z.ZodType>(
    route: Route<Reply>,
    call: RequestCall = {},
  ): Promise<z.output<Reply>> {
    if (!isDeclared(route)) throw new Error(`${route.route} is not a declared route`);
    const path = pathOf(route, call.params);
    const body = call.body ?? {};
    this.#approvalGate.admit(route, path, body, call.approval);
    const target = route.method === "GET" ? path + toQueryString(call.query ?? {}) : path;
    if (URL_PREFIX.length + target.length > MAX_URL_CHARS) {
      throw requestTooLong(
        `This client cannot send a URL over ${MAX_URL_CHARS} characters`,
        target,
      );
    }
    const timeoutMs = call.timeoutMs ??
      (route.method === "GET" || call.safe ? this.#timeouts.readMs : this.#timeouts.writeMs);
    const options: SendOptions<Reply> = {
      signal: call.signal,
      capabilities: call.capabilities,
      reply: route,
      timeoutMs,
    };
    await this.#gate(options);
    if (route.method === "GET") {
      return this.#send("GET", target, undefined, options, { retrySafe: true, gated: true });
    }
    const payload = JSON.stringify({ ...body, client: this.#clientBlock(call.capabilities) });
    const lane = laneOf(body, call.custodyDueAt);
    return this.#send("POST", path, payload, options, {
      retrySafe: call.safe ?? false,
      gated: true,
      lane,
    });
  }

  /** How long the daemon takes to answer lately (ms); see delays.ts. */
  observedDelayMs(): number {
    return this.#http.delays.recentMs();
  }

  close(): void {
    this.#socket.close();
    this.#http.close();
  }

  #clientBlock(capabilities: readonly string[] = []) {
    return {
      softwareVersion: SOFTWARE_VERSION,
      protocol: PROTOCOL_RANGE,
      requiredCapabilities: [...capabilities],
      origin: this.#origin,
    };
  }

  async #gate(options: Pick<SendOptions, "signal" | "capabilities" | "timeoutMs">): Promise<void> {
    // The call would wait as long for its own answer: a daemon that serves one request at a
    // time answers the probe only after the queue ahead of it, which is no fault of its own.
    const verdict = await this.compatibility(options.signal, options.timeoutMs);
    // One health GET per call while incompatible is cheap (negative verdicts are not kept).
    if (!verdict.compatible) throw incompatible(verdict.health, verdict.reason);
    const missing = (options.capabilities ?? []).filter((c) =>
      !verdict.health.capabilities.includes(c)
    );
    if (missing.length > 0) {
      this.invalidate(); // likewise: an upgraded daemon may have gained the capability
      throw new BridgeError(
        Codes.incompatible,
        `The PortReeve daemon (version ${verdict.health.softwareVersion}) lacks ${
          missing.join(", ")
        }, which this tool needs.`,
        false,
        {
          requiredCapabilities: [...(options.capabilities ?? [])],
          missingCapabilities: missing,
          serverCapabilities: verdict.health.capabilities,
        },
      );
    }
  }

  async #send<Reply extends z.ZodType>(
    method: "GET" | "POST",
    path: string,
    body: string | undefined,
    options: SendOptions<Reply>,
    mode: SendMode,
  ): Promise<z.output<Reply>> {
    const blocked = this.#preflight?.();
    if (blocked) throw blocked;
    // The pool may open a new connection for this request, to whatever answers at the path
    // now: nothing goes to a socket that is not the user's, and another daemon than the one
    // judged is judged first (the pool had silently dropped the old one's connections).
    if (!(await this.#socket.check())) {
      this.invalidate();
      this.#http.reset();
      if (mode.gated) await this.#gate(options);
    }
    const mutation = method === "POST" && !mode.retrySafe;
    let raw: RawResponse;
    try {
      raw = await this.#attempt(method, path, body, options, mode);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      // A slow daemon is still the daemon we judged; only a lost connection may mean another.
      if (error.failure.kind !== "aborted" && error.failure.kind !== "timeout") this.invalidate();
      throw this.#mapFailure(error.failure, mutation);
    }
    // Refused for its size before any route saw it: nothing was done, whatever the method.
    if (TOO_LONG_STATUSES.has(raw.status)) {
      throw requestTooLong(
        `The daemon refused the request as too long (HTTP ${raw.status})`,
        path,
        body,
      );
    }
    try {
      return checkReply(options.reply, method, path, readEnvelope(raw));
    } catch (error) {
      if (!(error instanceof BridgeError)) throw error;
      if (error.code === Codes.incompatible) this.invalidate();
      // The daemon had the whole request but its answer cannot be read: a mutation may have
      // been applied. A well-formed daemon error says it was not, and stays as it is.
      if (mutation && unreadableAnswer(error)) throw outcomeUnknown(error);
      throw error;
    }
  }

  async #attempt(
    method: "GET" | "POST",
    path: string,
    body: string | undefined,
    options: SendOptions,
    { retrySafe, gated, lane }: SendMode,
  ): Promise<RawResponse> {
    const request = () =>
      this.#http.request({
        method,
        path,
        body,
        requestId: crypto.randomUUID(),
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        lane,
      });
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const { kind } = error.failure;
      // The daemon closed the pooled connection (it restarted) and never had the request, so
      // even a mutation may go again once, over a fresh connection. A restarted daemon may be
      // another version: gated calls re-check compatibility first.
      if (kind === "unsent") {
        if (gated) {
          this.invalidate();
          await this.#gate(options);
        }
        return await request();
      }
      // Whether the daemon saw a broken request is unknown: only reads may go again.
      if (kind === "broken" && retrySafe) return await request();
      throw error;
    }
  }

  #mapFailure(failure: HttpFailure, mutation: boolean): BridgeError {
    const error = this.#describeFailure(failure);
    // Without an answer, a request the daemon received may have been applied.
    const received = failure.kind === "broken" || failure.kind === "timeout" ||
      failure.kind === "aborted" || failure.kind === "oversize";
    return mutation && received ? outcomeUnknown(error) : error;
  }

  #describeFailure(failure: HttpFailure): BridgeError {
    switch (failure.kind) {
      case "connect":
      case "unsent": // the daemon never had the request: nothing to be unsure about
      case "broken":
        return unavailable(this.socketPath, failure.cause);
      case "resources":
        return resourceLimit(failure.cause);
      case "timeout":
        return timedOut(this.socketPath, failure.afterMs);
      case "aborted":
        return new BridgeError(
          Codes.cancelled,
          "The request was cancelled before the daemon answered.",
          false,
          {},
        );
      case "permission":
        return notGranted(this.socketPath);
      case "oversize":
        return invalidResponse(`a body over ${failure.limit} bytes`, { limit: failure.limit });
    }
  }
}

/**
 * The same error, marked `details.outcome: "unknown"`: the mutation may have reached the
 * daemon, but no readable answer came back. Callers add which read shows the actual state.
 */
export function outcomeUnknown(error: BridgeError): BridgeError {
  return new BridgeError(
    error.code,
    `${error.message} No readable answer came back, so this change may or may not have been applied.`,
    error.retryable,
    { ...error.details, outcome: "unknown" },
  );
}

/** An answer the daemon sent that says nothing about whether the change was applied. */
function unreadableAnswer(error: BridgeError): boolean {
  if (error.code === Codes.invalidResponse || error.code === Codes.incompatible) return true;
  // An HTTP 5xx without an envelope; the daemon's own `internal` error (daemonCode) is an answer.
  return error.code === Codes.daemonError && !("daemonCode" in error.details);
}

function judge(health: Health): Verdict {
  const { minimum, maximum } = health.protocol;
  if (minimum <= PROTOCOL_VERSION && maximum >= PROTOCOL_VERSION) {
    return { compatible: true, health };
  }
  return {
    compatible: false,
    health,
    reason:
      `the daemon speaks protocol ${minimum}–${maximum}, this bridge speaks ${PROTOCOL_VERSION}`,
  };
}

export function incompatible(health: Health, reason: string): BridgeError {
  return new BridgeError(
    Codes.incompatible,
    `PortReeve ${health.softwareVersion} is not compatible with this bridge: ${reason}.`,
    false,
    { health, mismatch: reason },
  );
}

function toQueryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}
