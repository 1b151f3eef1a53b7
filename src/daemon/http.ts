/**
 * HTTP/1.1 over the daemon's Unix socket: `fetch` through a Unix-socket client (keep-alive,
 * abortable), a deadline per call, and response bodies bounded before anything parses them.
 */
import { concatBytes } from "../shared/bytes.ts";
import { DAEMON_URL_HOST } from "../shared/socket_location.ts";
import { type Linked, linkedSignal, REAL_TIMERS, type Timers } from "../shared/signals.ts";
import { type Lane, Slots, WORK_LANE } from "./slots.ts";
import { DaemonDelays } from "./delays.ts";

/** Largest daemon body we read. A busy machine's port inventory can pass 1 MiB, so 4 MiB. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * Daemon requests open at once, and so connections: a request holds its slot until its body
 * is read, and the pool keeps at most this many idle. Tool calls are bounded too (32 in
 * flight), so this only queues daemon requests briefly under a burst.
 */
export const MAX_CONCURRENT = 12;

/** What every daemon URL starts with; the path and query follow. */
export const URL_PREFIX = `http://${DAEMON_URL_HOST}`;

/** The longest URL Deno's fetch builds (measured: one more character is "Invalid URL"). */
export const MAX_URL_CHARS = 65_534;

/**
 * Slots new work leaves free for custody traffic, so a renewal never waits for a slot behind
 * a burst of tool calls (custody may still use all of them).
 */
export const CUSTODY_RESERVED = 2;

/** One decoder for every response body (a whole-buffer decode keeps no state between calls). */
const utf8 = new TextDecoder();

export interface RawResponse {
  status: number;
  text: string;
}

export type HttpFailure =
  | { kind: "connect"; cause: string }
  | { kind: "timeout"; afterMs: number }
  | { kind: "aborted" }
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

export interface HttpRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
  requestId: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Which queue it waits in for a slot (new work when unset). */
  lane?: Lane;
}

export class UnixHttp {
  #client?: Deno.HttpClient;
  #slots: Slots;
  /** Round trips to the daemon, slot waits excluded: what the daemon itself takes. */
  readonly delays = new DaemonDelays();

  constructor(
    readonly socketPath: string,
    readonly maxBytes = MAX_RESPONSE_BYTES,
    readonly maxConcurrent = MAX_CONCURRENT,
    /** The deadlines' timers (a test's own fires them when it chooses). */
    readonly timers: Timers = REAL_TIMERS,
  ) {
    this.#slots = new Slots(maxConcurrent, Math.min(CUSTODY_RESERVED, maxConcurrent - 1));
  }

  async request(req: HttpRequest): Promise<RawResponse> {
    // The deadline covers the wait for a slot: a caller is answered in time either way.
    const linked = linkedSignal([req.signal], req.timeoutMs, this.timers);
    let release: () => void;
    try {
      release = await this.#slots.acquire(linked.signal, req.lane ?? WORK_LANE);
    } catch (error) {
      linked.release();
      throw this.#classify(error, req, linked);
    }
    const answered = this.delays.start();
    try {
      return await this.#requestIn(req, linked);
    } finally {
      answered();
      release();
    }
  }

  async #requestIn(req: HttpRequest, linked: Linked): Promise<RawResponse> {
    const headers: Record<string, string> = {
      accept: "application/json",
      "content-type": "application/json",
      "x-portreeve-request-id": req.requestId,
    };
    try {
      let response: Response;
      try {
        response = await fetch(`${URL_PREFIX}${req.path}`, {
          method: req.method,
          headers,
          body: req.body,
          signal: linked.signal,
          client: this.#httpClient(),
        });
      } catch (error) {
        throw this.#classify(error, req, linked);
      }
      try {
        return { status: response.status, text: await this.#readBounded(response) };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw this.#classify(error, req, linked, true);
      }
    } finally {
      linked.release();
    }
  }

  /** Drops pooled connections, e.g. after the daemon restarted under us. */
  reset(): void {
    this.#client?.close();
    this.#client = undefined;
  }

  close(): void {
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
    req: HttpRequest,
    linked: Linked,
    /** The failure came while reading the answer: the daemon has seen the request. */
    answering = false,
  ): HttpError {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return new HttpError({ kind: "permission", cause: error.message });
    }
    if (linked.timedOut()) return new HttpError({ kind: "timeout", afterMs: req.timeoutMs });
    if (req.signal?.aborted) return new HttpError({ kind: "aborted" });
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

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let message = error.message;
  const cause = error.cause;
  if (cause instanceof Error && !message.includes(cause.message)) message += `: ${cause.message}`;
  // The runtime names the request's URL, whose host is only a placeholder over the socket.
  return message.replace(/\s+/g, " ").replace(/ ?(for url )?\(?https?:\/\/[^\s)]*\)?/g, "")
    .slice(0, 300);
}
