/**
 * A fake model API on 127.0.0.1. Each host speaks its own dialect (Anthropic Messages, OpenAI
 * Responses, Gemini generateContent); the script is the same for all: offer one tool call per
 * step, in order, and record every request, whose follow-ups carry the tool results exactly as
 * the model would receive them. The position in the script is the number of tool results the
 * conversation already holds, so a host's retries and side requests cannot derail it.
 */

/** One tool call the fake model makes; `before` runs once, just before the call is sent. */
export interface Step {
  tool: string;
  /** The arguments, or a function of the results the model has been shown so far. */
  args: Record<string, unknown> | ((results: readonly string[]) => Record<string, unknown>);
  before?: () => Promise<void> | void;
}

/** What the suite reads back from the conversation requests. */
export interface Conversation {
  /** Every tool the host offered, by the name the model sees. */
  offered: string[];
  /** The definitions of our server's tools as sent, keyed by our tool name. */
  definitions: Map<string, unknown>;
  /** Tool results in order, each as the text the model reads. */
  results: string[];
}

/** A request as the dialect sees it. */
export interface Request {
  path: string;
  body: unknown;
}

/** How one host's model API looks on the wire. */
export interface Dialect {
  /** Whether a request is a model turn of the conversation (not a side call or probe). */
  isTurn(path: string, body: unknown): boolean;
  read(body: unknown): Conversation;
  toolCall(name: string, args: Record<string, unknown>, turn: number, request: Request): Response;
  text(text: string, request: Request): Response;
}

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface FakeModel {
  url: string;
  port: number;
  calls: RecordedCall[];
  /** The last conversation turn seen (it holds every result so far). */
  lastTurn(): Conversation | null;
  /** The first conversation turn (the tool definitions as first offered). */
  firstTurn(): Conversation | null;
  close(): Promise<void>;
}

/**
 * Our tool name inside a host's name (`mcp__portreeve__x`, `namespace:x`, Copilot CLI's
 * `portreeve-x`, or `x`).
 */
export function ourToolName(hostName: string): string | null {
  // Every tool of ours is `portreeve_<words>`; hosts only ever prefix it.
  const at = hostName.lastIndexOf("portreeve_");
  if (at < 0 || (at > 0 && !"_:-".includes(hostName[at - 1]))) return null;
  const name = hostName.slice(at);
  return /^portreeve_[a-z_]+$/.test(name) ? name : null;
}

export const FINAL_TEXT = "All steps done.";

export function startFakeModel(dialect: Dialect, steps: readonly Step[]): FakeModel {
  const calls: RecordedCall[] = [];
  const turns: Conversation[] = [];
  const started = new Set<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (incoming) => {
      const body = await incoming.text();
      const url = new URL(incoming.url);
      calls.push({
        method: incoming.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(incoming.headers),
        body,
      });
      let parsed: unknown = null;
      try {
        parsed = body === "" ? null : JSON.parse(body);
      } catch {
        return new Response("not JSON", { status: 400 });
      }
      const seen = { path: url.pathname, body: parsed };
      if (!dialect.isTurn(url.pathname, parsed)) return dialect.text("ok", seen);
      const conversation = dialect.read(parsed);
      turns.push(conversation);
      const position = conversation.results.length;
      const step = steps[position];
      if (step === undefined) return dialect.text(FINAL_TEXT, seen);
      const name = conversation.offered.find((offered) => ourToolName(offered) === step.tool);
      if (name === undefined) return dialect.text(`${step.tool} is not offered`, seen);
      if (!started.has(position)) {
        started.add(position);
        await step.before?.();
      }
      const args = typeof step.args === "function" ? step.args(conversation.results) : step.args;
      return dialect.toolCall(name, args, position, seen);
    },
  );
  const port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    lastTurn: () => turns.at(-1) ?? null,
    firstTurn: () => turns[0] ?? null,
    close: () => server.shutdown(),
  };
}

/** A text/event-stream response from `event`/`data` pairs (event may be null). */
export function sse(events: readonly [string | null, unknown][]): Response {
  const text = events.map(([event, data]) =>
    `${event === null ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`
  ).join("");
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** An OpenAI Responses API stream that answers with the one output `item`. */
export function responsesStream(item: Record<string, unknown>): Response {
  const response = { id: "resp_fake", object: "response", status: "completed", output: [item] };
  const usage = {
    input_tokens: 1,
    input_tokens_details: null,
    output_tokens: 1,
    output_tokens_details: null,
    total_tokens: 2,
  };
  return sse([
    ["response.created", { type: "response.created", response: { ...response, output: [] } }],
    ["response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item,
    }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response: { ...response, usage } }],
  ]);
}
