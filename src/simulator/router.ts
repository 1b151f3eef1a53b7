// Route table matching. IDs match lowercase hex-and-dash only (uppercase falls through to
// 404) and are then validated as UUIDs; ports match digits and are then range-checked.
import type { Ctx } from "./core.ts";
import { fail, ProtocolError } from "./errors.ts";
import { uuidSchema } from "./schemas.ts";

export type Handler = (ctx: Ctx) => unknown | Promise<unknown>;

export interface Route {
  method: "GET" | "POST";
  path: string;
  handler: Handler;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
}

export class Router {
  #routes: CompiledRoute[] = [];

  add(routes: Route[]): void {
    for (const route of routes) {
      const names: string[] = [];
      const source = route.path.split("/").map((segment) => {
        if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const name = segment.slice(1);
        names.push(name);
        return name === "port" ? "(\\d+)" : "([0-9a-f-]+)";
      }).join("/");
      this.#routes.push({ ...route, regex: new RegExp(`^${source}$`), names });
    }
  }

  /** Returns the handler and validated params, null for no match, or throws a 400. */
  match(
    method: string,
    pathname: string,
  ): { handler: Handler; params: Record<string, string> } | null {
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const m = route.regex.exec(pathname);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = m[i + 1];
      });
      validateParams(params);
      return { handler: route.handler, params };
    }
    return null;
  }
}

function validateParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (name === "port") {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        throw new ProtocolError("invalid_input", "The port must be an integer from 1 to 65535.", {
          issues: [{ code: "too_big", path: ["port"], message: "Port out of range" }],
        });
      }
    } else if (!uuidSchema.safeParse(value).success) {
      throw fail.invalid(`The path parameter ${name} is not a valid UUID.`, {
        issues: [{ code: "invalid_format", format: "uuid", path: [name], message: "Invalid UUID" }],
      });
    }
  }
}
