/**
 * PortReeve protocol v1 client. One instance per bridge process: it keeps the connection
 * alive, stamps every POST with our `client` block and origin, and caches the compatibility
 * verdict so a call costs one round trip, not a health probe plus the call.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import {
  failureError,
  outcomeUnknown,
  requestTooLong,
  TOO_LONG_STATUSES,
  unavailable,
  unreadableAnswer,
} from "./errors.ts";
import { type Health, incompatible, judge, lacking, type Verdict } from "./compatibility.ts";
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
import { deadlineOf, linkedSignal, REAL_TIMERS, type Timers } from "../shared/signals.ts";
import { canonicalJson } from "../shared/json.ts";
import { LateAnswers, type LateEvent } from "./late.ts";
import { SOFTWARE_VERSION } from "../shared/options.ts";
import { isDeclared, type Params, pathOf, type Query, queryString, type Route } from "./routes.ts";
import type { ApprovalGate, ApprovalProof } from "./gate.ts";
import { bridgeOrigin } from "./origin.ts";
import { SocketIdentity, type SocketIdentityOptions } from "./socket_identity.ts";
import type { z } from "zod";

/**
 * "Is anyone there" is asked apart from "is it done yet", with a bound of its own. Connecting to
 * a Unix socket never waits for the daemon's work: the kernel takes the connection into the
 * listen queue, or refuses it (no file, nobody listening, queue full), at once. So a short bound
 * on connecting tells a missing daemon from a present one, and a missing or refused socket is
 * `portreeve_unavailable` at once. The answer is another matter: PortReeve serves one request at
 * a time, so a health probe queued behind other agents' changes (about a second each) is slow,
 * not absent. Once connected, nothing in the client gives up on an answer: a request waits until
 * it comes, or until its caller's signal ends the wait (the host's cancel, or the call's bound,
 * `serve --daemon-wait-ms`, set where the call comes in: transport/server.ts).
 */
export const DEFAULT_CONNECT_MS = 3_000;

export interface DaemonClientOptions {
  socketPath: string;
  runId: string;
  label?: string;
  /** Bound on connecting to the socket (default `DEFAULT_CONNECT_MS`); never on an answer. */
  connectMs?: number;
  /** Bound on daemon response bodies (default `MAX_RESPONSE_BYTES`). */
  maxResponseBytes?: number;
  /** Bound on daemon requests (and so connections) open at once (default `MAX_CONCURRENT`). */
  maxConcurrent?: number;
  /** Returns an error when the process may not use the socket (e.g. outside its grant). */
  preflight?: () => BridgeError | undefined;
  /** Timers of the connect bound and of `RequestCall.timeoutMs` (tests fire their own). */
  timers?: Timers;
  /**
   * The gate every request passes (gate.ts): the one whose minter this bridge's approvals
   * hold, so a consequential request goes out only with their proof.
   */
  gate: ApprovalGate;
  /** Seams of the socket checks before each request (socket_identity.ts; tests). */
  socket?: SocketIdentityOptions;
  /** Told what became of each change answered after its caller stopped waiting (late.ts). */
  onLateAnswer?: (event: LateEvent) => void;
}

/** How one request is sent, once `request` or `health` has settled its signal. */
interface SendOptions<Reply extends z.ZodType = z.ZodType> {
  signal?: AbortSignal;
  /** Capabilities the route needs; checked against the cached health before sending. */
  capabilities?: readonly string[];
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
  /**
   * Ends the caller's wait (the host's cancel, the call's bound). A change the daemon already
   * has is not abandoned with it: see late.ts.
   */
  signal?: AbortSignal;
  /** Capabilities the route needs; checked against the cached health before sending. */
  capabilities?: readonly string[];
  /** A bound of this request's own (custody's backstop on renewals); none by default. */
  timeoutMs?: number;
  /** A POST that only reads (status, resolve, validate…): may be re-sent once. */
  safe?: boolean;
  /**
   * For a change: told of its answer when it comes after the caller stopped waiting and no
   * repeat took it over (custody settles a credential the answer used up, say).
   */
  whenLate?: (reply: unknown) => void;
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
  /** A change: kept to its answer once sent, which goes here if the caller stops waiting. */
  keep?: (answer: Promise<unknown>) => void;
  /** A change's give-back, as its error words it when the caller stops waiting. */
  givesBack?: string;
}

export class DaemonClient {
  readonly socketPath: string;
  readonly runId: string;
  readonly label?: string;
  #http: UnixHttp;
  #connectMs: number;
  #timers: Timers;
  #late: LateAnswers;
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
    this.#http = new UnixHttp(options.socketPath, options.maxResponseBytes, options.maxConcurrent);
    this.#connectMs = options.connectMs ?? DEFAULT_CONNECT_MS;
    this.#timers = options.timers ?? REAL_TIMERS;
    // A give-back is a request like any other, with nobody waiting on it.
    this.#late = new LateAnswers((route, call) => this.request(route, call), options.onLateAnswer);
    this.#preflight = options.preflight;
    this.#approvalGate = options.gate;
    this.#socket = new SocketIdentity(options.socketPath, options.socket);
    this.#origin = bridgeOrigin(this.runId, this.label);
  }

  /**
   * `GET /v1/health` without the gate; used by diagnostics and to build the verdict. Whether
   * anyone is there is known within `connectMs`; the answer is waited for as long as `signal`
   * lets it (see `DEFAULT_CONNECT_MS`).
   */
  async health(signal?: AbortSignal): Promise<Health> {
    // Through the gate like every request (a read: it always passes).
    this.#approvalGate.admit(HEALTH_ROUTE, HEALTH_PATH, {});
    const blocked = this.#preflight?.();
    if (blocked) throw blocked;
    const connecting = linkedSignal([signal], this.#connectMs, this.#timers);
    try {
      await this.#http.connects(connecting.signal);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      if (connecting.timedOut()) {
        throw unavailable(this.socketPath, `no connection within ${this.#connectMs} ms`);
      }
      throw failureError(this.socketPath, error.failure);
    } finally {
      connecting.release();
    }
    return await this.#send("GET", HEALTH_PATH, undefined, {
      signal,
      reply: HEALTH_ROUTE,
    }, { retrySafe: true, gated: false });
  }

  /**
   * The cached verdict, probing the daemon once when there is none. Only a positive verdict is
   * kept: the user is told to upgrade and restart an incompatible daemon, so the next caller
   * (a tool after `diagnostics`, say) must judge the daemon that answers then.
   */
  compatibility(signal?: AbortSignal): Promise<Verdict> {
    if (!this.#verdict) {
      const pending = this.#socket.vouch(() => this.health(signal)).then(judge);
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
   * never had them (see `#attempt`). A change, once sent, runs to its answer whatever the
   * caller does (late.ts).
   */
  async request<Reply extends z.ZodType>(
    route: Route<Reply>,
    call: RequestCall = {},
  ): Promise<z.output<Reply>> {
    if (!isDeclared(route)) throw new Error(`${route.route} is not a declared route`);
    const path = pathOf(route, call.params);
    const body = call.body ?? {};
    this.#approvalGate.admit(route, path, body, call.approval);
    const target = route.method === "GET" ? path + queryString(call.query ?? {}) : path;
    if (URL_PREFIX.length + target.length > MAX_URL_CHARS) {
      throw requestTooLong(
        `This client cannot send a URL over ${MAX_URL_CHARS} characters`,
        target,
      );
    }
    const bounded = call.timeoutMs === undefined
      ? undefined
      : linkedSignal([call.signal], call.timeoutMs, this.#timers);
    const options: SendOptions<Reply> = {
      signal: bounded?.signal ?? call.signal,
      capabilities: call.capabilities,
      reply: route,
    };
    try {
      if (route.method === "GET") {
        await this.#gate(options);
        return await this.#send("GET", target, undefined, options, {
          retrySafe: true,
          gated: true,
        });
      }
      const payload = JSON.stringify({ ...body, client: this.#clientBlock(call.capabilities) });
      const lane = laneOf(body, call.custodyDueAt);
      if (call.safe) {
        await this.#gate(options);
        return await this.#send("POST", path, payload, options, {
          retrySafe: true,
          gated: true,
          lane,
        });
      }
      const givesBack = route.giveBack?.what;
      return await this.#late.run<z.output<Reply>>({
        key: `${route.route} ${path} ${canonicalJson(body)}`,
        route,
        signal: options.signal,
        gaveUp: (signal) => failureError(this.socketPath, waitEnd(signal), { givesBack }),
        whenLate: call.whenLate,
        send: async (keep) => {
          await this.#gate(options);
          return await this.#send("POST", path, payload, options, {
            retrySafe: false,
            gated: true,
            lane,
            keep: keep as (answer: Promise<unknown>) => void,
            givesBack,
          });
        },
      });
    } finally {
      bounded?.release();
    }
  }

  /**
   * Gives back what a change's answer created when the answer came but its caller will not read
   * the result (the host cancelled as it arrived); done and reported as for a late answer.
   */
  giveBack<Reply extends z.ZodType>(route: Route<Reply>, answer: z.output<Reply>): void {
    void this.#late.giveBack(route, answer);
  }

  /** Changes answered after their caller stopped waiting whose answer has not come yet. */
  get lateAnswersPending(): number {
    return this.#late.pending;
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

  async #gate(options: Pick<SendOptions, "signal" | "capabilities">): Promise<void> {
    // The probe waits as long as the call would wait for its own answer (see
    // DEFAULT_CONNECT_MS): a daemon that serves one request at a time answers it only after the
    // queue ahead of it, which is no fault of its own.
    const verdict = await this.compatibility(options.signal);
    // One health GET per call while incompatible is cheap (negative verdicts are not kept).
    if (!verdict.compatible) throw incompatible(verdict.health, verdict.reason);
    const lacks = lacking(verdict.health, options.capabilities ?? []);
    if (lacks) {
      this.invalidate(); // likewise: an upgraded daemon may have gained the capability
      throw lacks;
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
    const read = (raw: RawResponse) => this.#read(raw, method, path, body, options.reply, mutation);
    const keep = mode.keep;
    let raw: RawResponse;
    try {
      // The answer to a change its caller left is read like any other, when it comes.
      const keepRaw = keep &&
        ((answer: Promise<RawResponse>) =>
          keep(answer.then(read, (error) => this.#failed(error, true))));
      raw = await this.#attempt(method, path, body, options, mode, keepRaw);
    } catch (error) {
      this.#failed(error, mutation, mode.givesBack);
    }
    return read(raw);
  }

  /** A request's failure as the caller gets it (`HttpError`s mapped); always throws. */
  #failed(error: unknown, mutation: boolean, givesBack?: string): never {
    if (!(error instanceof HttpError)) throw error;
    // A slow daemon is still the daemon we judged; only a lost connection may mean another.
    if (error.failure.kind !== "aborted" && error.failure.kind !== "timeout") this.invalidate();
    throw failureError(this.socketPath, error.failure, mutation ? { givesBack } : undefined);
  }

  /** The checked reply of a raw answer (an error the daemon sent is thrown as such). */
  #read<Reply extends z.ZodType>(
    raw: RawResponse,
    method: "GET" | "POST",
    path: string,
    body: string | undefined,
    reply: ReplySchema<Reply>,
    mutation: boolean,
  ): z.output<Reply> {
    // Refused for its size before any route saw it: nothing was done, whatever the method.
    if (TOO_LONG_STATUSES.has(raw.status)) {
      throw requestTooLong(
        `The daemon refused the request as too long (HTTP ${raw.status})`,
        path,
        body,
      );
    }
    try {
      return checkReply(reply, method, path, readEnvelope(raw));
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
    keep?: (answer: Promise<RawResponse>) => void,
  ): Promise<RawResponse> {
    const request = () =>
      this.#http.request({
        method,
        path,
        body,
        requestId: crypto.randomUUID(),
        signal: options.signal,
        lane,
        keep,
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
}

/** How `signal` ended a wait: its deadline, or a cancel. */
function waitEnd(signal: AbortSignal): HttpFailure {
  const deadline = deadlineOf(signal);
  return deadline
    ? { kind: "timeout", afterMs: deadline.ms, kept: true }
    : { kind: "aborted", kept: true };
}
