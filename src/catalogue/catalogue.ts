/**
 * The registered catalogue of one toolset. tools/list is served from `tools_list.json`, which
 * `deno task gen` derives from the definitions (a test keeps it in step), so start-up neither
 * builds zod schemas nor converts them to JSON Schema; the definitions themselves load on the
 * first tools/call.
 */
import type { CallToolResult, InputRequiredResult, Tool } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { ToolDefinition } from "./define.ts";
import { type ListedTool, readListing } from "../results/listing.ts";
import { inToolset, type Toolset } from "../shared/options.ts";
import { asBridgeError, failure, success } from "../results/result.ts";
import { BridgeError, Codes, invalidInput, invalidResponse } from "../shared/errors.ts";
import { withoutCredentialFields } from "../results/credential_fields.ts";
import type { ToolContext, ToolDaemon } from "./context.ts";
import { AnswerNeeded } from "../shared/host_channel.ts";
import { isObject } from "../shared/json.ts";
import { deeperThan } from "../shared/depth.ts";
import { type CustodyWarningView, custodyWarningView } from "../results/custody_views.ts";
import generated from "./tools_list.json" with { type: "json" };
import {
  ANSWER_BOUNDS,
  boundedError,
  fitValue,
  NOTE_ROOM,
  quotedIssue,
  withTruncationNote,
} from "../shared/answer_bounds.ts";
import { PAGE_ROOM, type PageFit, SMALLEST_RESULT_BYTES } from "../results/pagination.ts";
import { type ShownForm, shownForm } from "../results/shown_form.ts";

export type { ListedTool };

/**
 * The served listing: `deno task gen` writes it from the definitions, a test holds it byte for
 * byte to `listTools(ALL_TOOLS)`, and it is read back, checked, when the catalogue loads.
 */
const SERVED: readonly ListedTool[] = readListing(generated);

type DefinitionLoader = () => Promise<readonly ToolDefinition[]>;

const loadDefinitions: DefinitionLoader = async () => (await import("./index.ts")).ALL_TOOLS;

/** Told about every error that is the bridge's own bug (answered `portreeve_internal`). */
type BugReporter = (tool: string, error: unknown) => void;

/** Told about every failure on the daemon's side (answered `portreeve_daemon_error`). */
type DaemonErrorReporter = (tool: string, error: BridgeError) => void;

export class Catalogue {
  readonly entries: readonly ListedTool[];
  /** Set by whoever serves the catalogue, so a bug's stack reaches the log. */
  onBug?: BugReporter;
  /** Set likewise, so the daemon's own failures are logged (as the daemon's, not bugs). */
  onDaemonError?: DaemonErrorReporter;
  #byName: Map<string, ListedTool>;
  #listing: Tool[];
  #definitions?: Promise<Map<string, ToolDefinition>>;

  constructor(
    readonly toolset: Toolset = "full",
    listed: readonly ListedTool[] = SERVED,
    private readonly load: DefinitionLoader = loadDefinitions,
  ) {
    this.entries = listed.filter((entry) => inToolset(entry.kind, toolset));
    this.#byName = new Map(this.entries.map((entry) => [entry.tool.name, entry]));
    this.#listing = this.entries.map((entry) => entry.tool);
  }

  get size(): number {
    return this.entries.length;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Capabilities the registered tools need, for the compatibility report. */
  requiredCapabilities(): string[] {
    return [...new Set(this.entries.flatMap((entry) => entry.capabilities))].sort();
  }

  /** tools/list entries in registration order. */
  listing(): Tool[] {
    return this.#listing;
  }

  async call(
    name: string,
    args: unknown,
    ctx: Omit<ToolContext, "capabilities">,
  ): Promise<CallToolResult | InputRequiredResult> {
    const entry = this.#byName.get(name);
    if (!entry) throw new Error(`unknown tool ${name}`);
    this.#definitions ??= this.load().then((all) => new Map(all.map((tool) => [tool.name, tool])));
    const tool = (await this.#definitions).get(name);
    if (!tool) {
      throw new Error(`tool ${name} is listed but has no definition; run \`deno task gen\``);
    }
    try {
      const ran = await runTool(tool, args, ctx, entry.capabilities);
      const warning = custodyWarning(ctx);
      const shown = scrubbed(ctx, ran.shown);
      const result = success(shown, warning);
      // Measured as the host shows it: within the bound, the data is (no second pass).
      const limit = resultBytes(ctx);
      const form = shownForm(ctx.resultShownAs);
      if (form.resultBytes(result) <= limit) return result;
      return success(boundedData(shown, limit, form), warning);
    } catch (error) {
      // 2026-07-28: the person is asked by the host, which retries this call with the answer.
      if (error instanceof AnswerNeeded) return error.result();
      const reported = asBridgeError(error);
      if (reported.code === Codes.internal) this.onBug?.(name, error);
      if (reported.code === Codes.daemonError) this.onDaemonError?.(name, reported);
      const bounded = boundedError(
        new BridgeError(
          reported.code,
          reported.message,
          reported.retryable,
          withoutCredentialFields(reported.details),
        ),
      );
      const shown = scrubbed(ctx, { message: bounded.message, details: bounded.details });
      return failure(
        new BridgeError(bounded.code, shown.message, bounded.retryable, shown.details),
        { warning: custodyWarning(ctx), flagged: ctx.flagsToolErrors, host: ctx.hostProfile },
      );
    }
  }
}

/**
 * What a result will show, with every credential fragment this process holds masked in its
 * string values, before the text block is written from it: that text nests the JSON in a
 * string, where the output scrubber could no longer tell field names from values.
 */
function scrubbed<T>(ctx: Partial<Pick<ToolContext, "custody">>, value: T): T {
  return ctx.custody ? ctx.custody.scrubValue(value) : value;
}

/**
 * Renewal trouble of what this bridge holds, told on every result until it is over. (A call
 * refused before the services exist, as in validation tests, has no custody to speak of.)
 */
function custodyWarning(
  ctx: Partial<Pick<ToolContext, "custody">>,
): CustodyWarningView | undefined {
  const warnings = ctx.custody?.takeWarnings();
  return warnings && custodyWarningView(warnings);
}

/**
 * Gemini CLI adds a `wait_for_previous` boolean to every tool's schema for its own scheduler
 * and forwards it in the arguments; it is a hint to the host, not an argument of ours.
 */
const HOST_HINTS = ["wait_for_previous"];

function withoutHostHints(args: unknown): unknown {
  if (!isObject(args)) return args;
  if (!HOST_HINTS.some((key) => typeof args[key] === "boolean")) return args;
  const copy = { ...args };
  for (const key of HOST_HINTS) if (typeof copy[key] === "boolean") delete copy[key];
  return copy;
}

/** What one call produced: the daemon's records whole, and what the model is shown. */
interface Ran {
  full: unknown;
  shown: unknown;
}

/**
 * Validates the arguments, calls the tool, checks its data and compacts it (unless the
 * caller asked for `detail: "full"`). Throws `BridgeError`s; `Catalogue.call` builds the
 * result. Exported so tests can compare the compact form with the records it came from.
 */
export async function runTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: Omit<ToolContext, "capabilities">,
  capabilities: readonly string[] = tool.capabilities ?? [],
): Promise<Ran> {
  // Loaded with the definitions, on the first call: start-up and tools/list need neither.
  const { compactData, compactItemBytes, dataSchemaOf } = await import("../results/compact/mod.ts");
  refuseTooDeep(args);
  const { detail, rest } = takeDetail(tool, args ?? {});
  const input = tool.input.safeParse(withoutHostHints(rest));
  if (!input.success) {
    throw invalidInput(describeIssues(input.error));
  }
  // Compacted along the output schema tools/list serves for it, so the two say the same.
  const schema = dataSchemaOf(SERVED_OUTPUTS.get(tool.name));
  // Items and the room around them as the host shows them (one envelope, or the result as
  // JSON); a page's separators count one byte each, so a wider one is added to its item.
  const form = shownForm(ctx.resultShownAs);
  const measure = detail === "full"
    ? form.valueBytes
    : compactItemBytes(schema, tool.view, form.valueBytes);
  const pageFit: PageFit = {
    itemBytes: form.separatorBytes === 1
      ? measure
      : (item) => measure(item) + form.separatorBytes - 1,
    budget: resultBytes(ctx) - form.roomBytes(PAGE_ROOM),
  };
  const daemon = declaredRoutesOnly(ctx.daemon, tool);
  const full = withoutCredentialFields(
    await tool.call({ ...ctx, daemon, capabilities, pageFit }, input.data),
  );
  // The output schema documents and checks the fields agents act on; the daemon's record
  // is kept whole (not stripped to those fields), so nothing it says is lost.
  const checked = tool.output.safeParse(full);
  if (!checked.success) {
    throw invalidResponse(`${tool.name} data did not have the documented shape`, {
      issues: issues(checked.error),
    });
  }
  const shown = detail === "full" ? full : compactData(schema, full, tool.view);
  return { full, shown };
}

/**
 * The daemon client `tool.call` gets: a request to a route its definition does not declare is
 * this bridge's bug (answered `portreeve_internal`, logged with the tool's name), so what the
 * definition says it calls — which the effects map, the annotations and the approval gate read
 * — is all it can call.
 */
function declaredRoutesOnly(
  daemon: ToolDaemon,
  tool: Pick<ToolDefinition, "name" | "routes">,
): ToolDaemon {
  return {
    request(route, call) {
      if (!tool.routes.includes(route)) {
        throw new Error(`${tool.name} requested ${route.route}, which its definition omits`);
      }
      return daemon.request(route, call);
    },
    compatibility: (signal) => daemon.compatibility(signal),
    invalidate: () => daemon.invalidate(),
    giveBack(route, answer) {
      if (!tool.routes.includes(route)) {
        throw new Error(`${tool.name} gave back ${route.route}, which its definition omits`);
      }
      daemon.giveBack(route, answer);
    },
  };
}

/**
 * The most bytes one result may have here: what the host shows its model whole (its result
 * limit, see src/shared/host_treatment.ts), and never more than ANSWER_BOUNDS.result.
 */
function resultBytes(ctx: Pick<ToolContext, "resultLimitBytes">): number {
  return Math.min(ctx.resultLimitBytes ?? SMALLEST_RESULT_BYTES, ANSWER_BOUNDS.result.max);
}

/** Room the envelope and a custody warning take around a result's data. */
const ENVELOPE_ROOM = 1_000;

/**
 * What an agent must read whole to act on a result: a preview's summary of the change and its
 * next step. Each is short by construction, and a cut leaves the rest of the data to pay.
 */
const READ_WHOLE: readonly string[] = ["summary", "nextStep"];

/**
 * A result's data within what a host showing `limit` bytes whole can take beside the envelope:
 * pages are already smaller (their records were fitted to the page), so this cuts only a
 * single record or answer that is larger, saying so where, and naming the host's own limit.
 * READ_WHOLE fields are kept as they are; the rest of the data is cut around them.
 */
function boundedData(data: unknown, limit: number, form: ShownForm): unknown {
  const how = `; this host shows a result of at most ${limit.toLocaleString("en-US")} bytes whole`;
  const kept = isObject(data)
    ? Object.fromEntries(
      READ_WHOLE.filter((key) => typeof data[key] === "string").map((key) => [key, data[key]]),
    )
    : {};
  const whole = Object.keys(kept);
  const rest = isObject(data) && whole.length > 0
    ? Object.fromEntries(Object.entries(data).filter(([key]) => !whole.includes(key)))
    : data;
  const room = form.roomBytes(ENVELOPE_ROOM + NOTE_ROOM) +
    (whole.length > 0 ? form.valueBytes(kept) : 0);
  const fitted = fitValue(rest, limit - room, how, form.valueBytes);
  if (fitted.value === rest) return data;
  const cut = withTruncationNote(fitted, how);
  // What must be read whole comes first, so a host that keeps a result's head keeps it too.
  return whole.length > 0 ? { ...kept, ...(cut as Record<string, unknown>) } : cut;
}

/** No PortReeve input nests this deep; far deeper would not even serialise for the daemon. */
const MAX_ARGUMENT_DEPTH = 64;

function refuseTooDeep(args: unknown): void {
  const path = deeperThan(args, MAX_ARGUMENT_DEPTH);
  if (path === null) return;
  const field = path.slice(0, 4).join(".") + (path.length > 4 ? ".…" : "");
  throw invalidInput(`${field} nests deeper than ${MAX_ARGUMENT_DEPTH} levels.`, {
    field,
    reason: "too_deep",
  });
}

/** The output schema each tool is served with, by name. */
const SERVED_OUTPUTS = new Map(SERVED.map(({ tool }) => [tool.name, tool.outputSchema]));

/** Splits off `detail` for the tools that offer it; the tool's own input never sees it. */
function takeDetail(
  tool: Pick<ToolDefinition, "detail">,
  args: unknown,
): { detail?: "full"; rest: unknown } {
  if (!tool.detail || !isObject(args) || !("detail" in args)) return { rest: args };
  const { detail, ...rest } = args;
  if (detail !== "full") {
    throw invalidInput('detail: must be "full" (or omitted for the compact form).');
  }
  return { detail, rest };
}

function issues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.slice(0, 20).map(quotedIssue);
}

/**
 * Issues grouped by path, each message once: `path: message; path: message.` The error states
 * them here only (not again in its details), so a host shows each once.
 */
function describeIssues(error: z.ZodError): string {
  const byPath = new Map<string, string[]>();
  for (const { path, message } of issues(error)) {
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPath.set(path, messages);
  }
  const list = [...byPath].map(([path, messages]) =>
    path ? `${path}: ${messages.join("; ")}` : messages.join("; ")
  );
  return `${list.join("; ")}.`;
}
