/**
 * One run per host that probes where the host starts cutting tool results: the fake model asks
 * for claims pages of growing size (the adapter's `cutProbe` limits), and the results the
 * model was shown say which reached it whole and how big the cut ones were.
 */
import { findHost } from "../../src/profiles/mod.ts";
import { startFakeModel } from "./fake_model.ts";
import type { HostAdapter } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { printedConfig, startRig } from "./rig.ts";
import { sharedRun } from "./shared_run.ts";

export interface CutSession {
  host: string;
  version: string;
  /** The profile's declared limit. */
  limit: number;
  /** Page sizes asked for, and what the model was shown for each. */
  limits: readonly number[];
  shown: string[];
}

const sessions = new Map<string, Promise<CutSession>>();

export function cutSession(adapter: HostAdapter, limits: readonly number[]): Promise<CutSession> {
  return sharedRun(sessions, adapter.pkg.host, () => runCutSession(adapter, limits));
}

async function runCutSession(adapter: HostAdapter, limits: readonly number[]): Promise<CutSession> {
  const host = adapter.pkg.host;
  const limit = findHost(host)?.resultLimitBytes;
  if (limit === undefined || limit === null) throw new Error(`${host}'s profile declares no cut`);
  const bin = await installedBin(adapter.pkg);
  const rig = await startRig();
  try {
    await adapter.configure(rig, await printedConfig(host, rig.socket));
    const steps = limits.map((size) => ({ tool: "portreeve_claims_list", args: { limit: size } }));
    const fake = startFakeModel(adapter.dialect, steps);
    try {
      const run = await adapter.run(bin, rig, fake.url);
      const shown = fake.lastTurn()?.results ?? [];
      if (shown.length !== limits.length) {
        throw new Error(
          `${host} showed ${shown.length} of ${limits.length} probe results (exit ${run.code}):\n` +
            run.stderr.slice(-1500),
        );
      }
      return { host, version: adapter.pkg.version, limit, limits, shown };
    } finally {
      await fake.close();
    }
  } finally {
    await rig.close();
  }
}
