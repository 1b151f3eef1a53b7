// Route table matching. IDs match lowercase hex-and-dash only (uppercase falls through to
// 404) and are then validated as UUIDs; ports match digits and are then range-checked.
import type { z } from "zod";
import type { Ctx } from "./core.ts";
import { ProtocolError, SCHEMA_MESSAGE } from "./errors.ts";
import { uuidSchema } from "./schemas.ts";

type Handler = (ctx: Ctx) => unknown | Promise<unknown>;

export interface Route {
  method: "GET" | "POST";
  path: string;
  handler: Handler;
  /**
   * The route's body schema(s). Like the daemon, the server checks these right after the
   * client block and BEFORE protocol negotiation, so a malformed body answers 400 even when
   * the protocol range would not overlap. Handlers still parse the body themselves.
   */
  body?: z.ZodType | z.ZodType[];
  /**
   * A POST that only reads (status, validate, resolve, snapshot: "safe" or "pure" in the
   * protocol's route index). Every other POST changes state, so `--latency` slows it.
   */
  readOnly?: true;
}

/** A GET route: the protocol's GETs read (some sweep expired leases first). */
export function get(path: string, handler: Handler): Route {
  return { method: "GET", path, handler };
}

/** A POST route, with the body schema(s) checked before negotiation; `readOnly` if it only reads. */
export function post(
  path: string,
  handler: Handler,
  body?: z.ZodType | z.ZodType[],
  options: { readOnly?: true } = {},
): Route {
  return { method: "POST", path, handler, ...(body ? { body } : {}), ...options };
}

interface RouteMatch {
  handler: Handler;
  params: Record<string, string>;
  body: z.ZodType[];
}

interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
}

/** Each route's pattern, compiled once however many simulators a process starts. */
const COMPILED = new WeakMap<Route, CompiledRoute>();

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path.split("/").map((segment) => {
    if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const name = segment.slice(1);
    names.push(name);
    return name === "port" ? "(\\d+)" : "([0-9a-f-]+)";
  }).join("/");
  return { ...route, regex: new RegExp(`^${source}$`), names };
}

export class Router {
  #routes: CompiledRoute[] = [];

  add(routes: Route[]): void {
    for (const route of routes) {
      let compiled = COMPILED.get(route);
      if (compiled === undefined) COMPILED.set(route, compiled = compile(route));
      this.#routes.push(compiled);
    }
  }

  /** Whether a request to `pathname` changes state: a POST to a route not marked read-only. */
  changesState(method: string, pathname: string): boolean {
    if (method !== "POST") return false;
    const route = this.#routes.find((r) => r.method === method && r.regex.test(pathname));
    return route !== undefined && route.readOnly !== true;
  }

  /** Returns the handler and validated params, null for no match, or throws a 400. */
  match(method: string, pathname: string): RouteMatch | null {
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const m = route.regex.exec(pathname);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = m[i + 1];
      });
      validateParams(params);
      const body = route.body === undefined ? [] : [route.body].flat();
      return { handler: route.handler, params, body };
    }
    return null;
  }
}

function validateParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (name === "port") {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        throw new ProtocolError("invalid_input", SCHEMA_MESSAGE, {
          issues: [{ code: "too_big", path: ["port"], message: "Port out of range" }],
        });
      }
    } else if (!uuidSchema.safeParse(value).success) {
      throw new ProtocolError("invalid_input", SCHEMA_MESSAGE, {
        issues: [{ code: "invalid_format", format: "uuid", path: [name], message: "Invalid UUID" }],
      });
    }
  }
}
