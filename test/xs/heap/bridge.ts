// The heap lane's link to Node (tools/heap.ts). On the device, `preference` and
// `file` are native: their state (NVS, SPIFFS, open files) lives in C, outside
// the XS heap. Here their state lives in Node, in host-sim (ESP32 semantics),
// and these shims forward each call through issueCommand, so the XS heap holds
// only what it would on the device: the arguments and the values returned.
//
// A message (both ways): 4 bytes of header length (little-endian), the header
// as UTF-8 JSON (an array), then the payload bytes (an ArrayBuffer value).
// Replies: ["ok", value] (payload: an ArrayBuffer result), ["err", name, message].

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

type G = { TextEncoder: new () => { encode(s: string): Uint8Array }; TextDecoder: new () => { decode(b: Uint8Array): string } };
const enc = new (globalThis as unknown as G).TextEncoder();
const dec = new (globalThis as unknown as G).TextDecoder();

export interface Reply {
  value: unknown;
  payload?: ArrayBuffer;
}

export function call(header: unknown[], payload?: ArrayBuffer): Reply {
  const h = enc.encode(JSON.stringify(header));
  const n = payload ? payload.byteLength : 0;
  const out = new Uint8Array(4 + h.length + n);
  new DataView(out.buffer).setUint32(0, h.length, true);
  out.set(h, 4);
  if (payload) out.set(new Uint8Array(payload), 4 + h.length);
  const reply = issueCommand(out.buffer);
  const len = new DataView(reply).getUint32(0, true);
  const r = JSON.parse(dec.decode(new Uint8Array(reply, 4, len))) as unknown[];
  if (r[0] === "err") {
    const E = r[1] === "TypeError" ? TypeError : r[1] === "RangeError" ? RangeError : r[1] === "SyntaxError" ? SyntaxError : Error;
    throw new E(String(r[2]));
  }
  return { value: r[1], payload: reply.byteLength > 4 + len ? reply.slice(4 + len) : undefined };
}
