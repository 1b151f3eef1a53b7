// Provider evidence for confirmed activation endpoints (process bindings; Docker is never
// observable in the simulator, so Docker providers report `unknown`).
import type { Ctx } from "./core.ts";
import { ownershipChain } from "./inventory.ts";
import type { Activation, ActivationEndpoint } from "./state.ts";

interface ProviderEvidence {
  component: string;
  endpoint: string;
  port: number;
  bindingKind: "process" | "docker";
  status: "active" | "gone" | "unknown";
  reason: string;
  listeners: number;
  runId: string | null;
  containerId: string | null;
}

export function providerFor(ctx: Ctx, e: ActivationEndpoint): ProviderEvidence {
  const obs = ctx.observe();
  const listeners = obs.onPort(e.port);
  const base = {
    component: e.component,
    endpoint: e.endpoint,
    port: e.port,
    bindingKind: e.bindingKind,
    listeners: listeners.length,
    runId: e.runId,
    containerId: null,
  };
  if (e.bindingKind === "docker") {
    return { ...base, status: "unknown", reason: "docker-unavailable" };
  }
  const run = e.runId ? ctx.state.runs.get(e.runId) : undefined;
  if (!run) return { ...base, status: "gone", reason: "run-evidence-missing" };
  if (run.state === "released") return { ...base, status: "gone", reason: "run-released" };
  if (listeners.length === 0) return { ...base, status: "gone", reason: "listener-missing" };
  const owned =
    listeners.filter((l) =>
      run.rootPid !== null && ownershipChain(obs, l.pid, run.rootPid) !== null
    ).length;
  if (owned === listeners.length) {
    return { ...base, status: "active", reason: "process-ownership-verified" };
  }
  if (owned === 0) return { ...base, status: "gone", reason: "provider-replaced" };
  return { ...base, status: "active", reason: "process-ownership-unverified" };
}

export function providersFor(ctx: Ctx, activation: Activation | null): ProviderEvidence[] {
  if (!activation) return [];
  return activation.endpoints.filter((e) => e.state === "confirmed").map((e) =>
    providerFor(ctx, e)
  );
}
