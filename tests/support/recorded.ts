/**
 * The exchanges recorded with the real PortReeve daemon (tests/fixtures/daemon-http-transcript
 * .jsonl), by sequence number: what was sent, in the form a tool hands it to the daemon client
 * (query apart from the path, body without the client block), and the reply as it came.
 */
import { z } from "zod";
import type { Reply, Sent } from "./scripted_daemon.ts";

const line = z.object({
  seq: z.number(),
  method: z.enum(["GET", "POST"]),
  path: z.string(),
  requestBody: z.record(z.string(), z.unknown()).nullable(),
  status: z.number(),
  responseBody: z.unknown(),
});

const text = await Deno.readTextFile(
  new URL("../fixtures/daemon-http-transcript.jsonl", import.meta.url),
);
const bySeq = new Map(
  text.split("\n").filter((l) => l.length > 0).map((l) => {
    const record = line.parse(JSON.parse(l));
    return [record.seq, record];
  }),
);

const clientBlock = z.object({ requiredCapabilities: z.array(z.string()) }).passthrough();

export interface Exchange {
  /** What the recorded request carried, as a tool sends it. */
  sent: Sent;
  reply: Reply;
  /** The `data` of a success reply. */
  // deno-lint-ignore no-explicit-any -- recorded JSON, read field by field in assertions
  data: any;
}

export function recorded(seq: number): Exchange {
  const record = bySeq.get(seq);
  if (!record) throw new Error(`no recorded exchange ${seq}`);
  const url = new URL(record.path, "http://daemon");
  const { client, ...body } = record.requestBody ?? {};
  const payload = record.method === "GET" ? Object.fromEntries(url.searchParams) : body;
  const capabilities = record.method === "POST"
    ? clientBlock.parse(client).requiredCapabilities
    : [];
  const envelope = z.object({ data: z.unknown().optional() }).passthrough().parse(
    record.responseBody,
  );
  return {
    sent: { method: record.method, path: url.pathname, payload, capabilities },
    reply: { status: record.status, body: record.responseBody },
    data: envelope.data,
  };
}

/** The lease_acquire arguments of the recorded session (its exchange 10). */
export const RECORDED_ACQUIRE = {
  claim: {
    project: "anchor-demo",
    workspaceRoot: "/home/dev/work/demo-app",
    component: "api",
    endpoint: "http",
  },
  allocation: { preferredPort: 18080 },
};
