/**
 * How a tool declares the daemon routes it calls: method, path template, reply schema and
 * effect (declared in the daemon room, where the client enforces them; re-exported here for
 * the tool families), and how a tool's input fills a route's segments.
 */
export {
  get,
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
  reads,
} from "../daemon/effects.ts";
import type { z } from "zod";
import type { Params, Route } from "../daemon/routes.ts";

/**
 * For a tool whose input fields fill its route's `{name}` segments (same names): checks, when
 * the tool is defined, that the input has a field for every segment, so a template and an input
 * that disagree fail where they are written; returns what fills them from an input.
 */
export function segmentsFromInput(
  tool: string,
  route: Route,
  input: z.ZodObject,
): (values: Record<string, unknown>) => Params {
  const missing = route.segments.filter((name) => !Object.hasOwn(input.shape, name));
  if (missing.length > 0) {
    throw new Error(
      `${tool}: ${route.route} is filled from its input, which has no ${missing.join(", ")}`,
    );
  }
  return (values) => {
    const params: Params = {};
    for (const name of route.segments) {
      const value = values[name];
      if (typeof value === "string" || typeof value === "number") params[name] = value;
    }
    return params;
  };
}
