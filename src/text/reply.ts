// What a reply to a caller says when its input was wrong: ToolError (a
// failure the caller should read: what was wrong and what is accepted) and
// quote (a piece of the caller's input inside such a message). Here, at the
// bottom, so that every layer that checks a caller's arguments (src/query,
// src/mcp) can use them without importing the MCP server.

// A tool failure the caller should read: what was wrong and what is accepted.
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "ToolError", configurable: true, writable: true });
  }
}

// A piece of the caller's input quoted in a message: at most `max` UTF-16 units,
// never half of a surrogate pair, lone surrogates shown as U+FFFD, so the reply
// stays well-formed Unicode whatever came in.
export function quote(s: string, max = 64): string {
  let out = "";
  const n = Math.min(s.length, max);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        if (i + 1 < n) out += s.slice(i, i + 2);
        i++;
      } else out += "\ufffd";
    } else if (c >= 0xdc00 && c <= 0xdfff) out += "\ufffd";
    else out += s.charAt(i);
  }
  return out;
}
