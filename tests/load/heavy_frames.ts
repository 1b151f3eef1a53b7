/**
 * Frames under the 1 MiB byte bound that cost many times their bytes once parsed, in every kind
 * of message a host can send (issue 27): a tool call's arguments, its `_meta`, a ping, a
 * notification, an answer to a request of ours, an unknown method. Three shapes each:
 * - deep: a megabyte of nesting (`[[[…]]]`, half a million levels): refused unparsed;
 * - wide: a megabyte of empty objects (about 350,000, so 700,000 values): refused unparsed;
 * - at the bound: just under the frame's value bound, in objects whose keys all differ (the
 *   costliest shape measured, about 190 heap bytes per object), padded with text to the byte
 *   bound: read, parsed and served like any other frame.
 * Notifications and answers draw no answer of their own, so each is followed by a ping with
 * the flood's id; refused ones also draw one error with a null id.
 */
import type { FloodKind } from "./unread_host.ts";
import { FRAME_LIMITS, MAX_FRAME_BYTES } from "../../src/transport/frames.ts";

const encoder = new TextEncoder();

export type Shape = "deep" | "wide" | "at the bound";

/** Room the envelope and the largest id take in a frame. */
const ENVELOPE = 400;
const BODY_BYTES = MAX_FRAME_BYTES - ENVELOPE;

/** A JSON value of about `BODY_BYTES` bytes in `shape`, built once per shape. */
function body(shape: Shape): string {
  if (shape === "deep") return "[".repeat(BODY_BYTES / 2) + "]".repeat(BODY_BYTES / 2);
  if (shape === "wide") return `[${"{},".repeat(BODY_BYTES / 3 - 1)}{}]`;
  // Three values an object (`{`, `:`, `,`); a few hundred left for the envelope's own.
  const objects = Math.floor((FRAME_LIMITS.maxValues - 300) / 3);
  const items = Array.from({ length: objects }, (_, i) => `{"${i.toString(36)}":1}`).join(",");
  const pad = BODY_BYTES - items.length - 20;
  return `{"items":[${items}],"pad":"${"p".repeat(pad)}"}`;
}

const bodies = new Map<Shape, Uint8Array>();
function bodyBytes(shape: Shape): Uint8Array {
  let bytes = bodies.get(shape);
  if (!bytes) bodies.set(shape, bytes = encoder.encode(body(shape)));
  return bytes;
}

/** Where the heavy value sits in a message, and what answer a frame of that kind draws. */
interface Carrier {
  name: string;
  /** The frame's text before and after the value; `id` is the flood's request id. */
  around(id: number): [string, string];
  /** Whether the frame itself is a request with the flood's id (else a ping follows it). */
  request: boolean;
  /** A fragment of the answer it draws when it is read (for a request) and when refused. */
  read: string;
  refused: string;
}

const REFUSED_CALL = "message_too_";
const REFUSED_FRAME = '"reason":"message_too_';

const CARRIERS: Carrier[] = [
  {
    name: "tool arguments (stack_definition_validate)",
    around: (id) => [
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"portreeve_stack_definition_validate","arguments":{"definition":`,
      "}}}",
    ],
    request: true,
    read: '"valid":false',
    refused: REFUSED_CALL,
  },
  {
    name: "tool call _meta",
    around: (id) => [
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"portreeve_health","_meta":{"x":`,
      "}}}",
    ],
    request: true,
    read: '"result":{',
    refused: REFUSED_CALL,
  },
  {
    name: "ping",
    around: (id) => [`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":`, "}}"],
    request: true,
    read: '"result":{}',
    refused: REFUSED_FRAME,
  },
  {
    name: "unknown method",
    around: (id) => [`{"jsonrpc":"2.0","id":${id},"method":"x/unknown","params":{"x":`, "}}"],
    request: true,
    read: '"code":-32601',
    refused: REFUSED_FRAME,
  },
  {
    name: "notification",
    around: () => [`{"jsonrpc":"2.0","method":"notifications/x","params":{"x":`, "}}"],
    request: false,
    read: '"result":{}',
    refused: REFUSED_FRAME,
  },
  {
    name: "answer",
    around: (id) => [`{"jsonrpc":"2.0","id":"answer-${id}","result":{"x":`, "}}"],
    request: false,
    read: '"result":{}',
    refused: REFUSED_FRAME,
  },
];

/** Every carrier in `shape`: a flood kind each. */
export function heavyFloods(shape: Shape): FloodKind[] {
  const refused = shape !== "at the bound";
  return CARRIERS.map((carrier) => {
    const fragment = refused ? carrier.refused : carrier.read;
    const ping = (id: number) => encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    return {
      name: `${shape} ${carrier.name}`,
      request(id) {
        const [before, after] = carrier.around(id);
        const frame = [encoder.encode(before), bodyBytes(shape), encoder.encode(after + "\n")];
        return carrier.request ? frame : [...frame, ping(id)];
      },
      check(line) {
        const ok = line.includes(fragment) || (!carrier.request && line.includes('"result":{}'));
        if (!ok) throw new Error(`not ${fragment}: ${line.slice(0, 200)}`);
      },
      daemon: "simulator",
      unnamedAnswers: refused && !carrier.request,
    };
  });
}
