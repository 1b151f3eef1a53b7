/**
 * Diagnostics family. `diagnostics` and `compatibility` never fail because the daemon is
 * absent or incompatible — they report it as data, with the next step to take. `health` is
 * the gated read of the daemon's own health.
 */
import { z } from "zod";
import { defineTool } from "../define.ts";
import { get } from "../routes.ts";
import { readTool } from "../read_tool.ts";
import { health } from "../records.ts";
import { BridgeError, Codes } from "../../shared/errors.ts";
import { nextStepFor } from "../../shared/error_codes.ts";
import { type Health, missingCapabilities, type Verdict } from "../../daemon/compatibility.ts";
import type { ToolContext } from "../context.ts";
import { PROTOCOL_VERSION } from "../../daemon/envelope.ts";
import { unstated } from "../../results/result.ts";
import { SOFTWARE_VERSION } from "../../shared/options.ts";
import type { ResultView } from "../../results/view.ts";

const errorShape = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()),
});

const daemonShape = z.object({
  available: z.boolean(),
  compatible: z.boolean(),
  health: health.nullable(),
});

/**
 * The daemon as a probe found it: its health, whose list of capabilities the result leaves to
 * portreeve_health, saying so (the compatibility answer names those missing).
 */
const PROBE_VIEW: ResultView = {
  shownBy: [{ path: "daemon.health.capabilities", tool: "portreeve_health" }],
};

interface Probe {
  available: boolean;
  compatible: boolean;
  health: Health | null;
  missing: string[];
  guidance: string | null;
  error?: ReturnType<BridgeError["toJSON"]>;
}

/** A fresh look at the daemon (not the cached verdict), which also refreshes the cache. */
async function probe(ctx: ToolContext): Promise<Probe> {
  ctx.daemon.invalidate();
  try {
    const verdict = await ctx.daemon.compatibility(ctx.signal);
    const missing = missingCapabilities(verdict.health, ctx.bridge.requiredCapabilities);
    const compatible = verdict.compatible && missing.length === 0;
    return {
      available: true,
      compatible,
      health: verdict.health,
      missing,
      guidance: compatible ? null : incompatibleGuidance(verdict, missing),
    };
  } catch (error) {
    if (!(error instanceof BridgeError)) throw error;
    return {
      available: false,
      compatible: false,
      health: null,
      missing: [],
      // The message is in `error`; the guidance is what to do about it.
      guidance: nextStepFor(error.code, error.details, ctx.hostProfile),
      // As an error result says it: each fact once (a detail the message states is left out).
      error: { ...error.toJSON(), details: unstated(error.details, error.message) },
    };
  }
}

function incompatibleGuidance(verdict: Verdict, missing: string[]): string {
  const h = verdict.health;
  const parts = [];
  if (!verdict.compatible) {
    parts.push(
      `it speaks protocol ${h.protocol.minimum}–${h.protocol.maximum}, we speak ${PROTOCOL_VERSION}`,
    );
  }
  if (missing.length > 0) parts.push(`it lacks ${missing.join(", ")}`);
  return `PortReeve ${h.softwareVersion} cannot serve this bridge: ${parts.join("; ")}. ` +
    nextStepFor(Codes.incompatible, {});
}

export const diagnostics = defineTool({
  name: "portreeve_diagnostics",
  title: "Bridge diagnostics",
  kind: "read",
  description: "Bridge and daemon status; start here on failures.",
  input: z.strictObject({}),
  output: z.object({
    bridge: z.object({
      runId: z.uuid(),
      label: z.string().nullable(),
      transport: z.literal("stdio"),
      socketPath: z.string(),
      socketSource: z.string(),
      version: z.string(),
      toolset: z.string(),
      /** `serve --approval`, and whether this host can put the bridge's question to its user. */
      approval: z.object({ mode: z.string(), hostCanAsk: z.boolean() }),
    }),
    daemon: daemonShape,
    guidance: z.string().nullable(),
    error: errorShape.optional(),
  }),
  view: PROBE_VIEW,
  // The probe is the client's own health check (`compatibility`), not a route request.
  routes: [],
  async call(ctx) {
    const p = await probe(ctx);
    const b = ctx.bridge;
    return {
      bridge: {
        runId: b.runId,
        label: b.label,
        transport: "stdio" as const,
        socketPath: b.socketPath,
        socketSource: b.socketSource,
        version: SOFTWARE_VERSION,
        toolset: b.toolset,
        approval: { mode: b.approval, hostCanAsk: ctx.host.canAsk },
      },
      daemon: { available: p.available, compatible: p.compatible, health: p.health },
      guidance: p.guidance,
      ...(p.error ? { error: p.error } : {}),
    };
  },
});

export const compatibility = defineTool({
  name: "portreeve_compatibility",
  title: "Daemon compatibility",
  kind: "read",
  description: "Protocol and capability fit, daemon up or down.",
  input: z.strictObject({}),
  output: z.object({
    compatible: z.boolean(),
    daemon: daemonShape,
    bridgeProtocol: z.object({ minimum: z.int(), maximum: z.int() }),
    requiredCapabilities: z.array(z.string()),
    missingCapabilities: z.array(z.string()),
    guidance: z.string().nullable(),
    error: errorShape.optional(),
  }),
  view: PROBE_VIEW,
  // The probe is the client's own health check (`compatibility`), not a route request.
  routes: [],
  async call(ctx) {
    const p = await probe(ctx);
    return {
      compatible: p.compatible,
      daemon: { available: p.available, compatible: p.compatible, health: p.health },
      bridgeProtocol: { minimum: PROTOCOL_VERSION, maximum: PROTOCOL_VERSION },
      requiredCapabilities: [...ctx.bridge.requiredCapabilities],
      missingCapabilities: p.missing,
      guidance: p.guidance,
      ...(p.error ? { error: p.error } : {}),
    };
  },
});

export const healthTool = readTool({
  name: "portreeve_health",
  title: "Daemon health",
  description: "Daemon version, capabilities, pid.",
  input: z.strictObject({}),
  route: get("/v1/health", health),
});
