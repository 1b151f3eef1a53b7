/**
 * How a tool declares the daemon routes it calls: method, path template, reply schema and
 * effect (declared in the daemon room, where the client enforces them; re-exported here for
 * the tool families), and how a tool's input fills a route's segments.
 */
export {
  get,
  id,
  type Method,
  type OutcomeCheck,
  type Params,
  pathOf,
  post,
  type Query,
  type Route,
} from "../daemon/routes.ts";
export {
  consequential,
  type ConsequentialEffect,
  coordinates,
  dependsOn,
  type Effect,
  type EffectDeclaration,
  reads,
} from "../daemon/effects.ts";
import type { Params } from "../daemon/routes.ts";

/** The input's string and number fields, for the route's segments of the same names. */
export function segmentsOf(input: Record<string, unknown>): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === "string" || typeof value === "number") out[key] = value;
  }
  return out;
}
