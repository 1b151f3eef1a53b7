// Public API of the PortReeve protocol v1 simulator: an in-memory, protocol-faithful daemon
// serving HTTP/JSON on a real Unix socket. It shares no code with the bridge's own client.
import { type Clock, type Lapses, SimClock } from "./clock.ts";
import { type Fault, SimCore } from "./core.ts";
import type { FakeListenerOptions } from "./evidence.ts";
import { allRoutes } from "./routes/mod.ts";
import { Router } from "./router.ts";
import { DEFAULT_SETTINGS, type Settings, settingsSchema, STATIC_CAPABILITIES } from "./schemas.ts";
import { type RecordedRequest, type RunningServer, startServer } from "./server.ts";
import { Pacing, type PacingOptions, type QueueStats } from "./pacing.ts";
import type { SimState } from "./state.ts";
import { iso } from "./util.ts";

export type {
  Clock,
  FakeListenerOptions,
  Fault,
  Lapses,
  PacingOptions,
  QueueStats,
  RecordedRequest,
  Settings,
  SimState,
};

export interface SimulatorOptions extends PacingOptions {
  socketPath: string;
  /** Base clock; the simulator adds an offset that `control.advance` increases. */
  clock?: Clock;
  /**
   * When grants run out: only on `control.advance` (the default: a test's daemon, which a busy
   * machine cannot make lapse between two steps), or by the clock as the daemon does ("clock":
   * the simulator program, the demo, the bench, scenarios about real renewals).
   */
  lapses?: Lapses;
  /** Initial daemon settings, merged over the defaults and validated. */
  settings?: Partial<Settings>;
  /** Replaces the advertised capability list (and the negotiation list). */
  capabilities?: string[];
  /** Replaces the advertised protocol range, e.g. to simulate an incompatible daemon. */
  protocol?: { minimum: number; maximum: number };
  /** Read real listeners from /proc (default true); false = injected listeners only. */
  observeHost?: boolean;
  /**
   * Leak every lease token and launcher credential it is sent or issues: quoted whole and
   * split in error messages and `details`, echoed inside every returned record.
   */
  hostile?: boolean;
}

export interface SimulatorControl {
  /**
   * Applies to every following request until set back to "none". With `apply`, the answer
   * is spoilt only after the request was handled, so a mutation really takes effect.
   */
  setFault(fault: Fault, options?: { apply?: boolean }): void;
  readonly fault: Fault;
  /**
   * Moves the simulator clock forward; lease, receipt and launcher deadlines follow it (under
   * `lapses: "advance"`, only it makes them run out).
   */
  advance(ms: number): void;
  now(): number;
  /** Injects a fake listener owned by fake process `pid` (its parent is `opts.ppid`, default 1). */
  addListener(port: number, pid: number, opts?: FakeListenerOptions): void;
  /** Removes injected listeners on `port` (only those of `pid` when given). */
  removeListener(port: number, pid?: number): void;
  /** Makes a pending lease's TTL run out now, as if its holder had stopped renewing. */
  expireLease(leaseId: string): void;
  /** Turns hostile mode (credential leaks) on or off for the following requests. */
  setHostile(on: boolean): void;
  /** Live state for assertions; treat it as read-only. */
  readonly state: SimState;
  /** Requests admitted and not yet answered (the daemon's queue), its peak, and the total. */
  readonly queue: Readonly<QueueStats>;
}

export interface Simulator {
  socketPath: string;
  control: SimulatorControl;
  requests: RecordedRequest[];
  /**
   * The first request from index `from` of `requests` on that `match` accepts, as soon as it
   * arrives (recorded before it is answered, so a hung one counts): for tests that wait for a
   * request rather than for time.
   */
  arrived(
    match?: (request: RecordedRequest) => boolean,
    from?: number,
  ): Promise<RecordedRequest>;
  close(): Promise<void>;
  restart(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const clock = new SimClock(opts.clock, opts.lapses ?? "advance");
  const settings = settingsSchema.parse({ ...DEFAULT_SETTINGS, ...(opts.settings ?? {}) });
  const core = new SimCore({
    clock,
    settings,
    capabilities: opts.capabilities ?? [...STATIC_CAPABILITIES],
    protocol: opts.protocol ?? { minimum: 1, maximum: 1 },
  });
  core.evidence.useProc = opts.observeHost ?? true;
  core.hostile = opts.hostile ?? false;
  // Say at start-up (once, on stderr) if host evidence cannot be read at all.
  if (core.evidence.useProc) core.evidence.probeHost();
  const router = new Router();
  router.add(allRoutes);
  const requests: RecordedRequest[] = [];
  const watchers = new Set<() => void>();
  const recorded = () => watchers.forEach((watch) => watch());
  const pacing = () =>
    new Pacing({ latencyMs: opts.latencyMs, serial: opts.serial, sleep: opts.sleep });
  let queue = pacing();
  let server: RunningServer | null = await startServer(
    core,
    router,
    opts.socketPath,
    requests,
    queue,
    recorded,
  );
  core.log("info", "server", "Simulated PortReeve daemon listening.");

  const close = async (): Promise<void> => {
    const current = server;
    server = null;
    if (current) await current.close();
  };
  core.onStopRequested = () => {
    void close();
  };

  const control: SimulatorControl = {
    setFault: (fault, options) => {
      core.fault = fault;
      core.applyBeforeFault = options?.apply ?? false;
    },
    get fault() {
      return core.fault;
    },
    advance: (ms) => clock.advance(ms),
    now: () => clock.now(),
    addListener: (port, pid, listenerOpts) =>
      core.evidence.addListener(
        port,
        pid,
        listenerOpts,
        iso(Math.floor(clock.now() / 1000) * 1000),
      ),
    removeListener: (port, pid) => core.evidence.removeListener(port, pid),
    expireLease: (leaseId) => {
      const lease = core.state.leases.get(leaseId);
      if (!lease) throw new Error(`simulator: no lease ${leaseId}`);
      lease.expiresAt = iso(clock.lapseNow() - 1);
    },
    setHostile: (on) => {
      core.hostile = on;
    },
    get state() {
      return core.state;
    },
    get queue() {
      return queue.stats;
    },
  };

  return {
    socketPath: opts.socketPath,
    control,
    requests,
    arrived: (match = () => true, from = 0) =>
      new Promise((resolve) => {
        const watch = () => {
          const found = requests.slice(from).find(match);
          if (found === undefined) return;
          watchers.delete(watch);
          resolve(found);
        };
        watchers.add(watch);
        watch();
      }),
    close,
    restart: async () => {
      await close();
      queue = pacing();
      server = await startServer(core, router, opts.socketPath, requests, queue, recorded);
    },
  };
}
