/**
 * How a tool declares the daemon route it calls: method, path template and the schema of the
 * reply (checked by the daemon client where the reply arrives, which also types it).
 */
import type { z } from "zod";

export type Method = "GET" | "POST";

export interface Route<Reply extends z.ZodType = z.ZodType> {
  method: Method;
  /** The protocol's path; `{name}` stands for one segment, filled from the call's params. */
  path: string;
  /** `METHOD path`, as errors name the route. */
  route: string;
  schema: Reply;
}

export function get<Reply extends z.ZodType>(path: string, schema: Reply): Route<Reply> {
  return { method: "GET", path, route: `GET ${path}`, schema };
}

export function post<Reply extends z.ZodType>(path: string, schema: Reply): Route<Reply> {
  return { method: "POST", path, route: `POST ${path}`, schema };
}

/** Values for a route's `{name}` segments. */
export type Params = Record<string, string | number>;

/** A path segment for an id: the daemon routes only lowercase UUIDs. */
export function id(value: string): string {
  return encodeURIComponent(value.toLowerCase());
}

/** The concrete path of `route` with its segments filled from `params`. */
export function pathOf(route: Route, params: Params): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.route} needs a value for {${name}}`);
    return typeof value === "number" ? String(value) : id(value);
  });
}

/** The input's string and number fields, for the route's segments of the same names. */
export function segmentsOf(input: Record<string, unknown>): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === "string" || typeof value === "number") out[key] = value;
  }
  return out;
}
