/**
 * How a daemon route is declared: method, path template, the schema of its reply (checked by
 * the client where the reply arrives, which also types it) and its effect on the world
 * (effects.ts). The client sends only routes declared here, so every request it can make is
 * in the effects map.
 */
import type { z } from "zod";
import { type EffectDeclaration, reads } from "./effects.ts";

type Method = "GET" | "POST";

export interface Route<Reply extends z.ZodType = z.ZodType> {
  method: Method;
  /** The protocol's path; `{name}` stands for one segment, filled from the call's params. */
  path: string;
  /** The names of its `{name}` segments, in order. */
  segments: readonly string[];
  /** `METHOD path`, as errors name the route. */
  route: string;
  schema: Reply;
  /** What a request to this route does, possibly depending on its body. */
  effect: EffectDeclaration;
  /**
   * For a route that changes state: the read that shows whether a request took effect when its
   * answer was lost, named in the error's details (`checkWith`, `checkHow`).
   */
  check?: OutcomeCheck;
  /** For a route whose answer hands over a credential: how what it created is given back. */
  giveBack?: GiveBack<Reply>;
}

/**
 * How to undo what a change's answer created when nobody waits for that answer any more (the
 * host cancelled the call, or the call's bound ran out, after the daemon had the change: the
 * daemon acts on it all the same). Declared on each route whose answer hands over a credential,
 * since only the holder of that credential can give back what it holds (late.ts runs it).
 */
interface GiveBack<Reply extends z.ZodType = z.ZodType> {
  /** What is undone, in a few words; the error of a call that gave up waiting says it. */
  what: string;
  /** The routes `undo` sends; every tool that calls the route declares them too. */
  routes: readonly Route[];
  /** Sends the protocol's undo for `reply`; resolves to what it gave back, by id (for the log). */
  undo(reply: z.output<Reply>, send: GiveBackSend): Promise<string>;
}

/** How a give-back reaches the daemon: a request to a declared route, with nothing to wait on. */
export type GiveBackSend = <R extends z.ZodType>(
  route: Route<R>,
  call: { params?: Params; body?: Record<string, unknown> },
) => Promise<z.output<R>>;

/** The read that settles an unknown outcome: a tool to call and how (with what, to see what). */
export interface OutcomeCheck {
  tool: string;
  how: string;
}

/** Every route declared so far, in declaration order (for the effects map). */
const DECLARED: Route[] = [];
const DECLARED_SET = new WeakSet<Route>();

/** A literal segment of a protocol path, and a `{name}` one. */
const LITERAL = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NAMED = /^\{([a-z][A-Za-z0-9]*)\}$/;

/**
 * The `{name}` segments of a protocol path, checked as it is declared: `/v1/` and then literal
 * lowercase segments or `{name}` ones, each name once. A template that could not be filled or
 * matched (`{claimId`, `//`, a query) fails where it is written, not at its first call.
 */
function segmentNames(path: string): string[] {
  const refuse = (why: string): never => {
    throw new Error(`route template ${JSON.stringify(path)}: ${why}`);
  };
  const [root, version, ...rest] = path.split("/");
  if (root !== "" || version !== "v1" || rest.length === 0) {
    refuse("is not /v1/ followed by its segments");
  }
  const odd = rest.find((segment) => !LITERAL.test(segment) && !NAMED.test(segment));
  if (odd !== undefined) {
    refuse(`segment ${JSON.stringify(odd)} is neither lowercase words nor one {name}`);
  }
  const names = rest.flatMap((segment) => NAMED.exec(segment)?.[1] ?? []);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) refuse(`{${twice}} appears twice`);
  return names;
}

function declare<Reply extends z.ZodType>(route: Omit<Route<Reply>, "segments">): Route<Reply> {
  const declared = { ...route, segments: segmentNames(route.path) };
  DECLARED.push(declared);
  DECLARED_SET.add(declared);
  return declared;
}

/** A GET: the protocol's GETs only read (some sweep expired leases first). */
export function get<Reply extends z.ZodType>(path: string, schema: Reply): Route<Reply> {
  return declare({ method: "GET", path, route: `GET ${path}`, schema, effect: reads() });
}

/**
 * A POST and what it does; a POST that only reads says so with `reads(…)`, one that changes
 * state names the read that settles a lost answer (`check`), and one whose answer hands over a
 * credential how to give back what it created (`giveBack`).
 */
export function post<Reply extends z.ZodType>(
  path: string,
  schema: Reply,
  effect: EffectDeclaration,
  check?: OutcomeCheck,
  giveBack?: GiveBack<Reply>,
): Route<Reply> {
  return declare({ method: "POST", path, route: `POST ${path}`, schema, effect, check, giveBack });
}

/** Whether `route` was made by `get` or `post` (the client sends nothing else). */
export function isDeclared(route: Route): boolean {
  return DECLARED_SET.has(route);
}

/** The routes declared by the modules loaded so far. */
export function declaredRoutes(): readonly Route[] {
  return DECLARED;
}

/** Values for a route's `{name}` segments. */
export type Params = Record<string, string | number>;

/** A GET's query. */
export type Query = Record<string, string | number | boolean | undefined>;

/** `query` as a URL's query string (`?a=1&b=x`, values left undefined left out), or "". */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A path segment for an id: the daemon routes only lowercase UUIDs. */
function id(value: string): string {
  return encodeURIComponent(value.toLowerCase());
}

/** The concrete path of `route` with its segments filled from `params`. */
export function pathOf(route: Route, params: Params = {}): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.route} needs a value for {${name}}`);
    return typeof value === "number" ? String(value) : id(value);
  });
}

/** Whether the concrete `method path` (query string ignored) is a request to `route`. */
export function matches(route: Route, method: string, path: string): boolean {
  if (route.method !== method) return false;
  const template = route.path.split("/");
  const concrete = path.split("?")[0].split("/");
  return template.length === concrete.length &&
    template.every((part, i) =>
      /^\{[^}]+\}$/.test(part) ? concrete[i] !== "" : part === concrete[i]
    );
}
