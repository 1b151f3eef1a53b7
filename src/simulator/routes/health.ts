// Health, settings, diagnostic logs and server stop.
import { z } from "zod";
import type { Ctx } from "../core.ts";
import { parseWith } from "../errors.ts";
import { get, post, type Route } from "../router.ts";
import { type Settings, settingsBodySchema, settingsSchema } from "../schemas.ts";
import { clone } from "../util.ts";

const SOFTWARE_VERSION = "0.1.0";

function health(ctx: Ctx): unknown {
  return {
    softwareVersion: SOFTWARE_VERSION,
    protocol: ctx.core.advertisedProtocol(),
    capabilities: [...ctx.core.capabilities],
    pid: Deno.pid,
    mode: "manual",
  };
}

/** Validates updates and returns the merged settings (shared with the receipt route). */
export function mergeSettings(current: Settings, updates: unknown): {
  updates: Record<string, unknown>;
  merged: Settings;
} {
  // Unknown keys fail the strict schema with a zod "Unrecognized key" issue, as upstream.
  const parsed = parseWith(settingsBodySchema, { updates }).updates;
  const merged = parseWith(settingsSchema, { ...clone(current), ...parsed });
  return { updates: parsed as Record<string, unknown>, merged };
}

export function applySettings(ctx: Ctx, updates: Record<string, unknown>, merged: Settings): void {
  ctx.state.settings = merged;
  ctx.event("config.updated", "setting", "server", { updates: clone(updates) });
}

function setConfig(ctx: Ctx): unknown {
  const { updates, merged } = mergeSettings(ctx.settings, ctx.body.updates);
  applySettings(ctx, updates, merged);
  return clone(merged);
}

const logsQuery = z.object({
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(10_000))
    .optional(),
});

function logs(ctx: Ctx): unknown {
  const q = parseWith(logsQuery, Object.fromEntries(ctx.query));
  const limit = q.limit ?? 100;
  return clone(ctx.state.logs.slice(-limit));
}

function stop(ctx: Ctx): unknown {
  // Answer first, then stop: the response must reach the caller before the socket goes.
  setTimeout(() => ctx.core.onStopRequested(), 20);
  return { changed: true, at: ctx.at };
}

export const healthRoutes: Route[] = [
  get("/v1/health", health),
  get("/v1/config", (ctx) => clone(ctx.settings)),
  post("/v1/config", setConfig, settingsBodySchema),
  get("/v1/logs", logs),
  post("/v1/server/stop", stop),
];
