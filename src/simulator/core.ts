// The simulator core (state, clock, evidence, fault mode) and the per-request context.
import type { SimClock } from "./clock.ts";
import { EvidenceSource, type Observation } from "./evidence.ts";
import type { Origin, Settings } from "./schemas.ts";
import { type HistoryEvent, SimState } from "./state.ts";
import { iso, uuid } from "./util.ts";

export type Fault =
  | "none"
  | "hang"
  | "close-mid-response"
  | "non-json"
  | "oversize"
  | "incompatible"
  | "wrong-envelope"
  /** `{"protocolVersion":1,"data":null}` to every route but health (a hostile daemon). */
  | "wrong-shape"
  /** An HTML error page with status 500, as a crashed proxy in front of a daemon sends. */
  | "html-500"
  /** A well-formed error envelope whose code is not in the protocol's closed set. */
  | "unknown-code"
  /** The daemon's own failure, well formed: `internal` with status 500 (e.g. a full disk). */
  | "internal"
  /** A valid envelope over the bridge's 4 MiB body bound. */
  | "oversize-4mib";

interface CoreOptions {
  clock: SimClock;
  settings: Settings;
  capabilities: string[];
  protocol: { minimum: number; maximum: number };
}

export class SimCore {
  readonly state: SimState;
  readonly clock: SimClock;
  readonly evidence = new EvidenceSource();
  readonly capabilities: string[];
  readonly protocol: { minimum: number; maximum: number };
  fault: Fault = "none";
  /** Leaks every credential it sees into answers (see hostile.ts). */
  hostile = false;
  /** When set, a faulty answer comes after the request was really handled (state changed). */
  applyBeforeFault = false;
  /** Set by the server so POST /v1/server/stop can shut the simulator down. */
  onStopRequested: () => void = () => {};

  constructor(opts: CoreOptions) {
    this.clock = opts.clock;
    this.state = new SimState(opts.settings);
    this.capabilities = opts.capabilities;
    this.protocol = opts.protocol;
  }

  #eventCounter = 0;

  /**
   * A valid v4 UUID whose first group counts up, so events written in the same millisecond
   * still page in a stable order (the real daemon's order there is random).
   */
  nextEventId(): string {
    this.#eventCounter = (this.#eventCounter + 1) % 0x1_0000_0000;
    return this.#eventCounter.toString(16).padStart(8, "0") + uuid().slice(8);
  }

  /** Health's protocol range, which the incompatible fault replaces. */
  advertisedProtocol(): { minimum: number; maximum: number } {
    return this.fault === "incompatible" ? { minimum: 2, maximum: 3 } : this.protocol;
  }

  log(level: "debug" | "info" | "warn" | "error", component: string, message: string): void {
    this.state.logs.push({
      timestamp: iso(this.clock.now()),
      level,
      component,
      message,
      details: {},
    });
    if (this.state.logs.length > 1000) this.state.logs.splice(0, this.state.logs.length - 1000);
  }
}

export class Ctx {
  readonly core: SimCore;
  readonly now: number;
  readonly at: string;
  /** The time grants lapse by (`at`, unless the simulator lapses only on advance). */
  readonly lapseAt: string;
  /**
   * When the daemon took the request in, before it waited its turn: the real daemon sets a
   * new lease's expiry from the start of its work, which a busy machine makes slow.
   */
  readonly startedAt: number;
  readonly origin: Origin | null;
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  readonly body: Record<string, unknown>;
  #observation: Observation | null = null;

  constructor(
    core: SimCore,
    init: {
      origin: Origin | null;
      params: Record<string, string>;
      query: URLSearchParams;
      body: Record<string, unknown>;
      startedAt?: number;
    },
  ) {
    this.core = core;
    this.now = core.clock.now();
    this.at = iso(this.now);
    this.lapseAt = iso(core.clock.lapseNow());
    this.startedAt = Math.min(init.startedAt ?? this.now, this.now);
    this.origin = init.origin;
    this.params = init.params;
    this.query = init.query;
    this.body = init.body;
  }

  get state(): SimState {
    return this.core.state;
  }

  get settings(): Settings {
    return this.core.state.settings;
  }

  /** Fresh listener evidence, taken once per request like the daemon's single lsof run. */
  observe(): Observation {
    this.#observation ??= this.core.evidence.observe();
    return this.#observation;
  }

  /** Forget the cached observation (after signalling processes, for example). */
  reobserve(): Observation {
    this.#observation = null;
    return this.observe();
  }

  /** Appends a history event; `background` events (sweeps) carry no origin. */
  event(
    eventType: string,
    entityType: string,
    entityId: string,
    payload: Record<string, unknown>,
    background = false,
  ): void {
    const event: HistoryEvent = {
      id: this.core.nextEventId(),
      eventType,
      entityType,
      entityId,
      payload,
      origin: background ? null : this.origin,
      occurredAt: this.at,
    };
    const history = this.state.history;
    history.push(event);
    const max = this.settings.historyMaximumEvents;
    if (history.length > max) history.splice(0, history.length - max);
  }
}
