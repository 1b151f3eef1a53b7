/**
 * Builds what a served catalogue needs, once per process: the daemon client, custody with its
 * renewers, the memory of settled calls and the facts diagnostics report. Used by `serve` and
 * `doctor`, so both run exactly the same server.
 */
import { Catalogue } from "../catalogue/catalogue.ts";
import type { Services } from "../catalogue/context.ts";
import { Memory } from "../catalogue/memory.ts";
import { daemonRenewers } from "../catalogue/renewers.ts";
import { Custody } from "../custody/mod.ts";
import { DaemonClient, type Timeouts } from "../daemon/client.ts";
import type { SocketLocation } from "../daemon/discovery.ts";
import { BridgeError, Codes } from "../daemon/errors.ts";
import type { Toolset } from "../toolsets.ts";
import { grantProblem } from "./grant.ts";
import { logger } from "./logging.ts";

export interface BridgeSetup {
  socket: SocketLocation;
  label?: string;
  toolset: Toolset;
  timeouts?: Partial<Timeouts>;
  /** Default custody window (10 minutes when unset). */
  custodyMs?: number;
}

export interface Bridge {
  catalogue: Catalogue;
  services: Services;
  /** Stops renewals, erases every credential and drops daemon connections. */
  close(): Promise<void>;
}

export function createBridge(setup: BridgeSetup): Bridge {
  const log = logger("bridge");
  const runId = crypto.randomUUID();
  const misconfiguration = grantProblem(setup.socket.path);
  if (misconfiguration) log.error(misconfiguration);
  const daemon = new DaemonClient({
    socketPath: setup.socket.path,
    runId,
    label: setup.label,
    timeouts: setup.timeouts,
    preflight: () =>
      misconfiguration
        ? new BridgeError(Codes.misconfigured, misconfiguration, false, {
          socketPath: setup.socket.path,
        })
        : undefined,
  });
  const custody = new Custody({
    renewers: daemonRenewers(daemon),
    defaultCustodyMs: setup.custodyMs,
    // Ids and codes only: custody events never carry secrets or handles.
    onEvent: (event) => log.debug("custody {type}", { ...event }),
  });
  const catalogue = new Catalogue(setup.toolset);
  const services: Services = {
    daemon,
    custody,
    memory: new Memory(),
    bridge: {
      runId,
      label: setup.label ?? null,
      socketPath: setup.socket.path,
      socketSource: setup.socket.source,
      toolset: setup.toolset,
      requiredCapabilities: catalogue.requiredCapabilities(),
      misconfiguration,
    },
  };
  return {
    catalogue,
    services,
    async close() {
      await custody.close();
      daemon.close();
    },
  };
}
