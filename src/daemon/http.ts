/**
 * HTTP/1.1 over the daemon's Unix socket: `fetch` through a Unix-socket client (keep-alive,
 * abortable), changes kept to their answer, and response bodies bounded before anything parses
 * them.
 */
import { concatBytes } from "../shared/bytes.ts";
import { DAEMON_URL_HOST } from "../shared/socket_location.ts";
import { deadlineOf, linkedSignal } from "../shared/signals.ts";
import { type Lane, Slots, WORK_LANE } from "./slots.ts";
import { DaemonDelays } from "./delays.ts";

/** Largest daemon body we read. A busy machine's port inventory can pass 1 MiB, so 4 MiB. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * Daemon requests open at once, and so connections: a request holds its slot until its body
 * is read, and the pool keeps at most this many idle. Tool calls are bounded too (32 in
 * flight), so this only queues daemon requests briefly under a burst.
 */
const MAX_CONCURRENT = 12;

/** What every daemon URL starts with; the path and query follow. */
export const URL_PREFIX = `http://${DAEMON_URL_HOST}`;

/** The longest URL Deno's fetch builds (measured: one more character is "Invalid URL"). */
export const MAX_URL_CHARS = 65_534;

/**
 * Slots new work leaves free for custody traffic, so a renewal never waits for a slot behind
 * a burst of tool calls (custody may still use all of them).
 */
const CUSTODY_RESERVED = 2;

/** One decoder for every response body (a whole-buffer decode keeps no state between calls). */
const utf8 = new TextDecoder();

export interface RawResponse {
  status: number;
  text: string;
}

export type HttpFailure =
  | { kind: "connect"; cause: string }
  /**
   * The caller's deadline passed (a `DeadlineError` aborted its signal). `kept`: the request had
   * been sent and runs on; its answer went to `keep`.
   */
  | { kind: "timeout"; afterMs: number; kept: boolean }
  /** The caller's signal aborted otherwise (the host cancelled); `kept` as for a timeout. */
  | { kind: "aborted"; kept: boolean }
  | { kind: "permission"; cause: string }
  | { kind: "oversize"; limit: number }
  /** This process ran out of file descriptors (EMFILE/ENFILE): the bridge's limit, not the daemon. */
  | { kind: "resources"; cause: string }
  /** The write failed on a connection the daemon had closed: it never got the whole request. */
  | { kind: "unsent"; cause: string }
  | { kind: "broken"; cause: string };

export class HttpError extends Error {
  constructor(readonly failure: HttpFailure) {
    super(failure.kind);
  }
}

interface HttpRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
  requestId: string;
  /**
   * Ends the caller's wait: for a slot, then for the answer. A deadline (signals.ts) that aborts
   * it is a timeout; the client sets none of its own.
   */
  signal?: AbortSignal;
  /** Which queue it waits in for a slot (new work when unset). */
  lane?: Lane;
  /**
   * Set for a change: once sent, it is not abandoned when the caller stops waiting (the daemon
   * acts on it anyway), and its answer to come is handed here instead, so that what it leaves
   * behind can be given back. Only the client's `close` ends it before it is answered.
   */
  keep?: (answer: Promise<RawResponse>) => void;
}

export class UnixHttp {
  #client?: Deno.HttpClient;
  #slots: Slots;
  /** Ends every request still open, kept ones included: the bridge is closing. */
  #closing = new AbortController();
  /** Round trips to the daemon, slot waits excluded: what the daemon itself takes. */
  readonly delays = new DaemonDelays();

  constructor(
    readonly socketPath: string,
    readonly maxBytes = MAX_RESPONSE_BYTES,
    readonly maxConcurrent = MAX_CONCURRENT,
  ) {
    this.#slots = new Slots(maxConcurrent, Math.min(CUSTODY_RESERVED, maxConcurrent - 1));
  }

  async request(req: HttpRequest): Promise<RawResponse> {
    let release: () => void;
    try {
      // The caller's signal covers the wait for a slot: a caller is answered in time either way.
      release = await this.#slots.acquire(req.signal, req.lane ?? WORK_LANE);
    } catch (error) {
      throw this.#classify(error, req.signal);
    }
    if (req.signal?.aborted) {
      // Given up on between the slot and the send: nothing was sent.
      release();
      throw this.#classify(req.signal.reason, req.signal);
    }
    const answered = this.delays.start();
    const done = () => {
      answered();
      release();
    };
    if (!req.keep) {
      const signal = linkedSignal([req.signal, this.#closing.signal]);
      return await this.#exchange(req, signal.signal).finally(() => {
        signal.release();
        done();
      });
    }
    const answer = this.#exchange(req, this.#closing.signal).finally(done);
    return await untilAborted(answer, req.signal, () => {
      req.keep!(answer);
      return this.#classify(req.signal!.reason, req.signal, true);
    });
  }

  /** Sends `req` and reads its bounded answer; `signal` ends it. */
  async #exchange(req: HttpRequest, signal: AbortSignal): Promise<RawResponse> {
    const headers: Record<string, string> = {
      accept: "application/json",
      "content-type": "application/json",
      "x-portreeve-request-id": req.requestId,
    };
    let response: Response;
    try {
      response = await fetch(`${URL_PREFIX}${req.path}`, {
        method: req.method,
        headers,
        body: req.body,
        signal,
        client: this.#httpClient(),
      });
    } catch (error) {
      throw this.#classify(error, signal);
    }
    try {
      return { status: response.status, text: await this.#readBounded(response) };
    } catch (error) {
      if (error instanceof HttpError) throw error;
      throw this.#classify(error, signal, false, true);
    }
  }

  /**
   * Opens a connection to the socket and closes it again: whether anyone is there at all (the
   * client bounds it short, see its DEFAULT_CONNECT_MS). `signal` ends the attempt.
   */
  async connects(signal: AbortSignal): Promise<void> {
    const attempt = Deno.connect({ transport: "unix", path: this.socketPath });
    try {
      (await untilAborted(attempt, signal, () => new Error("stopped connecting"))).close();
    } catch (error) {
      attempt.then((conn) => conn.close(), () => {});
      throw this.#classify(error, signal);
    }
  }

  /** Drops pooled connections, e.g. after the daemon restarted under us. */
  reset(): void {
    this.#client?.close();
    this.#client = undefined;
  }

  close(): void {
    this.#closing.abort();
    this.reset();
  }

  #httpClient(): Deno.HttpClient {
    this.#client ??= Deno.createHttpClient({
      proxy: { transport: "unix", path: this.socketPath },
      poolMaxIdlePerHost: this.maxConcurrent,
    });
    return this.#client;
  }

  async #readBounded(response: Response): Promise<string> {
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (declared > this.maxBytes) {
      await response.body?.cancel();
      throw new HttpError({ kind: "oversize", limit: this.maxBytes });
    }
    if (!response.body) return "";
    const reader = response.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > this.maxBytes) {
        await reader.cancel();
        throw new HttpError({ kind: "oversize", limit: this.maxBytes });
      }
      parts.push(value);
    }
    return utf8.decode(concatBytes(parts, size));
  }

  #classify(
    error: unknown,
    /** The signal that ended the wait, if one did. */
    signal: AbortSignal | undefined,
    /** The request was sent and runs on (its answer was handed to `keep`). */
    kept = false,
    /** The failure came while reading the answer: the daemon has seen the request. */
    answering = false,
  ): HttpError {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return new HttpError({ kind: "permission", cause: error.message });
    }
    if (signal?.aborted) {
      const deadline = deadlineOf(signal);
      return new HttpError(
        deadline ? { kind: "timeout", afterMs: deadline.ms, kept } : { kind: "aborted", kept },
      );
    }
    const cause = describe(error);
    // Out of descriptors, the socket could not even be opened: the pool is fine, keep it.
    if (/Too many open files|os error 2[34]\b|EMFILE|ENFILE/i.test(cause)) {
      return new HttpError({ kind: "resources", cause });
    }
    // Any other failure may have left a broken pooled connection behind.
    this.reset();
    if (answering) return new HttpError({ kind: "broken", cause });
    // A failed connect, or EPIPE while writing (the peer had closed, typically a pooled
    // connection to a daemon that has since restarted), prove the daemon never had the whole
    // request. Anything else (e.g. "connection closed before message completed") leaves a
    // mutation's outcome unknown.
    if (/\(Connect\)|No such file|Connection refused/i.test(cause)) {
      return new HttpError({ kind: "connect", cause });
    }
    if (/Broken pipe|os error 32\b/i.test(cause)) return new HttpError({ kind: "unsent", cause });
    return new HttpError({ kind: "broken", cause });
  }
}

/**
 * `promise`, or the error `stopped()` makes once `signal` aborts first; `promise` itself runs on
 * (the caller of `stopped` takes it over).
 */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  stopped: () => Error,
): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message;
  const cause = error.cause;
  if (cause instanceof Error && !message.includes(cause.message)) message += `: ${cause.message}`;
  // The runtime names the request's URL, whose host is only a placeholder over the socket.
  return message.replace(/\s+/g, " ").replace(/ ?(for url )?\(?https?:\/\/[^\s)]*\)?/g, "")
    .slice(0, 300);
}
