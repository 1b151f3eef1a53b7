/**
 * Frame guards for a transport under test that holds no secret: frames go out as they are, and a
 * call refused unparsed is answered with a plain tool error naming its code.
 */
import type { FrameGuards } from "../../src/transport/stdio_transport.ts";

export const PLAIN_FRAMES: FrameGuards = {
  scrub: (json) => json,
  refuseCall: (error) => ({ content: [{ type: "text", text: error.code }], isError: true }),
};
