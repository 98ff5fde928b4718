// What a reply needs from a message too large or too broken to parse: the
// envelope's `type` and the JSON-RPC `id` and `method`, read by a token scan of
// the message's first SCAN_CHARS characters, never by building the message.
// A JSON-RPC error must carry the request's id: the xiaozhi server matches
// replies by id (mcp_handler.py does `int(payload.get("id", 0))`), so an error
// with id null reaches nobody. Clients write `id` before `params` (the xiaozhi
// server and the MCP SDK both send jsonrpc, id, method, params), so the id of
// an oversize request is in its first few bytes.
//
// The scan runs native regular expressions over a bounded prefix: its cost does
// not depend on the message's size, and it allocates only the short strings it
// keeps.

export const SCAN_CHARS = 4096;

export interface Scanned {
  type?: string; // the envelope's type ("mcp", "stt"…)
  id?: string | number; // the JSON-RPC id: of the envelope's payload, or of a bare message
  method?: string;
}

// strings (with escapes), punctuation, numbers and literals
const TOKEN = /"(?:[^"\\]|\\[\s\S])*"|[{}[\]:,]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/g;

function decode(token: string): unknown {
  try {
    return JSON.parse(token);
  } catch {
    return undefined;
  }
}

export function scan(message: string): Scanned {
  const s = message.length > SCAN_CHARS ? message.slice(0, SCAN_CHARS) : message;
  const re = new RegExp(TOKEN.source, "g");
  const stack: string[] = []; // "{" or "["
  const path: (string | undefined)[] = []; // the key each open container is the value of
  let expectKey = false;
  let key: string | undefined;
  let envId: string | number | undefined, envMethod: string | undefined;
  let bareId: string | number | undefined, bareMethod: string | undefined;
  let type: string | undefined;
  const value = (v: unknown) => {
    const depth = stack.length;
    if (depth === 1 && key !== undefined) {
      if (key === "type" && typeof v === "string") type = v;
      else if (key === "id") bareId = idOf(v);
      else if (key === "method" && typeof v === "string") bareMethod = v;
    } else if (depth === 2 && path[1] === "payload" && stack[1] === "{") {
      if (key === "id") envId = idOf(v);
      else if (key === "method" && typeof v === "string") envMethod = v;
    }
    key = undefined;
  };
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const t = m[0];
    const c = t.charAt(0);
    if (c === "{" || c === "[") {
      path.push(key);
      key = undefined;
      stack.push(c);
      expectKey = c === "{";
    } else if (c === "}" || c === "]") {
      stack.pop();
      path.pop();
      key = undefined;
      expectKey = false;
    } else if (c === ",") expectKey = stack[stack.length - 1] === "{";
    else if (c === ":") expectKey = false;
    else if (c === '"') {
      const v = decode(t);
      if (expectKey) key = typeof v === "string" ? v : undefined;
      else value(v);
    } else value(decode(t));
  }
  const out: Scanned = {};
  if (type !== undefined) out.type = type;
  const id = type === "mcp" ? envId : bareId;
  const method = type === "mcp" ? envMethod : bareMethod;
  if (id !== undefined) out.id = id;
  if (method !== undefined) out.method = method;
  return out;
}

function idOf(v: unknown): string | number | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  return undefined;
}
