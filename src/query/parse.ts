// The query language (issue 16 item 7, seed 002's memory_cli query): parses
// the `where`, `order_by`, `select` and `limit` of action=query. docs/DESIGN.md
// "The query language".
//
//   where:    field op value [AND field op value]…   (AND in any case)
//             op: = != >= <= (also == <> > <), CONTAINS, LIKE (% any run, _ one character)
//             value: a number, 'single' or "double" quoted text (\' \" \\ \n \t), a bare word
//   order_by: field [asc|desc]
//   select:   field, field, …   (or *)
//   limit:    1..50, default 10
//
// A hand-written lexer over the UTF-8 bytes (no RegExp, no locale API, no Unicode property escapes):
// the same tokens and positions on Node and on the device, CJK included.
// Positions in messages count characters from 1. Every error is a ToolError
// that names the bad part and where it is; parsing changes nothing.

import { ToolError, quote } from "../text/reply";
import { encode, decode } from "../text/utf8";
import { foldString } from "../archive/fold";
import { FIELDS, fieldOf, fieldList, SOURCES, type Source, type FieldDef } from "./fields";

export const MAX_LIMIT = 50;
export const DEFAULT_LIMIT = 10;
export const MAX_WHERE_BYTES = 400;
export const MAX_CONDITIONS = 8;

export type Op = "=" | "!=" | ">=" | "<=" | ">" | "<" | "CONTAINS" | "LIKE";
export type Value = number | string | boolean | string[];

export interface Cond {
  field: FieldDef;
  op: Op;
  num: number; // the value of a number field
  str: string; // of a date field: "YYYY-MM-DD HH:MM" or a prefix of it
  folded: Uint8Array; // of a text or list field, folded
  like: Int16Array | undefined; // LIKE: the pattern's bytes, -1 for %, -2 for _
  bool: boolean;
}

export interface Order {
  field: FieldDef;
  desc: boolean;
}

export interface Query {
  from: Source;
  where: Cond[];
  order: Order | undefined;
  select: FieldDef[];
  limit: number;
  text: boolean; // an episode's content or keywords is used: the text file is read
  trash: boolean; // `state` is used: trashed episodes are seen too
}

// ---- lexer ---------------------------------------------------------------------------------

const T_WORD = 0, T_STRING = 1, T_OP = 2, T_PAREN = 3;

interface Token {
  kind: number;
  text: string; // a word or string's text (unescaped), an operator
  at: number; // character position, from 1
}

function isSpace(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === 32 || c === 9 || c === 10 || c === 13) return 1;
  if (c === 0xe3 && b[i + 1] === 0x80 && b[i + 2] === 0x80) return 3; // U+3000, the ideographic space
  return 0;
}

const isOpChar = (c: number) => c === 61 || c === 33 || c === 60 || c === 62; // = ! < >

// Splits `src` into tokens; `what` names the argument in errors.
function lex(what: string, src: string): Token[] {
  const b = encode(src);
  const out: Token[] = [];
  let chars = 0; // characters before b[i]
  let i = 0;
  const step = (to: number) => {
    for (; i < to; i++) if ((b[i] & 0xc0) !== 0x80) chars++;
  };
  while (i < b.length) {
    const sp = isSpace(b, i);
    if (sp) {
      step(i + sp);
      continue;
    }
    const at = chars + 1;
    const c = b[i];
    if (c === 39 || c === 34) {
      // a quoted string: the bytes between the quotes, escapes resolved
      const parts: number[] = [];
      let j = i + 1;
      for (;;) {
        if (j >= b.length) throw new ToolError(`${what}: the text starting at ${at} has no closing ${c === 39 ? "'" : '"'}`);
        const d = b[j];
        if (d === c) break;
        if (d === 92 && j + 1 < b.length) {
          const e = b[j + 1];
          if (e === 39 || e === 34 || e === 92) parts.push(e);
          else if (e === 110) parts.push(10);
          else if (e === 116) parts.push(9);
          else parts.push(92, e); // kept as it is: LIKE reads \% and \_
          j += 2;
          continue;
        }
        parts.push(d);
        j++;
      }
      out.push({ kind: T_STRING, text: decode(Uint8Array.from(parts)), at });
      step(j + 1);
      continue;
    }
    if (isOpChar(c)) {
      let j = i + 1;
      while (j < b.length && isOpChar(b[j])) j++;
      const op = decode(b.subarray(i, j));
      out.push({ kind: T_OP, text: op, at });
      step(j);
      continue;
    }
    if (c === 40 || c === 41 || c === 44) {
      out.push({ kind: T_PAREN, text: c === 40 ? "(" : c === 41 ? ")" : ",", at });
      step(i + 1);
      continue;
    }
    let j = i;
    while (j < b.length && !isSpace(b, j) && b[j] !== 39 && b[j] !== 34 && !isOpChar(b[j]) && b[j] !== 40 && b[j] !== 41 && b[j] !== 44) j++;
    out.push({ kind: T_WORD, text: decode(b.subarray(i, j)), at });
    step(j);
  }
  return out;
}

const OPS: Record<string, Op> = { "=": "=", "==": "=", "!=": "!=", "<>": "!=", ">=": ">=", "<=": "<=", ">": ">", "<": "<" };

// A number as the query writes it: -12, 0.5, .5, 3. (no exponent, no hex)
export function numberOf(s: string): number | undefined {
  let i = s.length > 0 && (s.charCodeAt(0) === 45 || s.charCodeAt(0) === 43) ? 1 : 0;
  let digits = 0, dot = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && !dot) dot++;
    else return undefined;
  }
  return digits ? Number(s) : undefined;
}

// ---- where ---------------------------------------------------------------------------------

function fieldErr(what: string, from: Source, name: string, at: number): ToolError {
  return new ToolError(`${what}: unknown field '${quote(name, 32)}' at ${at}; fields of ${from}: ${fieldList(from)}`);
}

function shown(t: Token): string {
  return `'${quote(t.text, 32)}'`;
}

const KIND_NAME: Record<string, string> = { number: "a number", text: "text", date: "a date", list: "a list of words", bool: "true or false" };

// Compiles a folded LIKE pattern: % → -1, _ → -2, \% \_ \\ → the character itself.
function compileLike(folded: Uint8Array): Int16Array {
  const out = new Int16Array(folded.length);
  let n = 0;
  for (let i = 0; i < folded.length; i++) {
    const c = folded[i];
    if (c === 92 && i + 1 < folded.length && (folded[i + 1] === 37 || folded[i + 1] === 95 || folded[i + 1] === 92)) out[n++] = folded[++i];
    else out[n++] = c === 37 ? -1 : c === 95 ? -2 : c;
  }
  return out.subarray(0, n);
}

// The value of a date field: digits, '-', ':', ' ' (a 'T' is read as ' ').
function dateValue(s: string): string | undefined {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 48 && c <= 57) || c === 45 || c === 58) out += s[i];
    else if (c === 84 || c === 32) out += " ";
    else return undefined;
  }
  return out.length && out.charCodeAt(0) !== 32 ? out : undefined;
}

function condOf(from: Source, field: FieldDef, op: Op, opTok: Token, v: Token): Cond {
  const c: Cond = { field, op, num: 0, str: "", folded: EMPTY, like: undefined, bool: false };
  const k = field.kind;
  const at = opTok.at;
  if ((op === "CONTAINS" || op === "LIKE") && (k === "number" || k === "bool")) throw new ToolError(`where: ${op} takes text; '${field.name}' of ${from} is ${KIND_NAME[k]} (at ${at}): use = != >= <=`);
  if ((op === ">=" || op === "<=" || op === ">" || op === "<") && (k === "list" || k === "bool")) throw new ToolError(`where: '${field.name}' of ${from} is ${KIND_NAME[k]}: it takes = != ${k === "list" ? "CONTAINS LIKE" : ""} (at ${at})`.replace("  (", " ("));
  if (k === "number") {
    const n = numberOf(v.text);
    if (n === undefined) throw new ToolError(`where: '${field.name}' takes a number, got ${shown(v)} at ${v.at}`);
    c.num = n;
  } else if (k === "bool") {
    const s = v.text.toLowerCase();
    if (s === "true" || s === "1" || s === "yes") c.bool = true;
    else if (s !== "false" && s !== "0" && s !== "no") throw new ToolError(`where: '${field.name}' takes true or false, got ${shown(v)} at ${v.at}`);
  } else if (k === "date" && op !== "CONTAINS" && op !== "LIKE") {
    const d = dateValue(v.text);
    if (d === undefined) throw new ToolError(`where: '${field.name}' takes a date 'YYYY-MM-DD HH:MM' or a part of it ('YYYY-MM'), got ${shown(v)} at ${v.at}`);
    c.str = d;
  } else {
    c.folded = foldString(v.text);
    if (op === "LIKE") c.like = compileLike(c.folded);
  }
  return c;
}

const EMPTY = new Uint8Array(0);

export function parseWhere(from: Source, src: string): Cond[] {
  const conds: Cond[] = [];
  const toks = lex("where", src);
  let i = 0;
  while (i < toks.length) {
    const ft = toks[i];
    if (conds.length) {
      // between conditions: AND
      if (ft.kind === T_WORD && ft.text.toLowerCase() === "and") {
        i++;
        if (i >= toks.length) throw new ToolError(`where: expected a condition after AND at ${ft.at}`);
      } else if (ft.kind === T_WORD && ft.text.toLowerCase() === "or") throw new ToolError(`where: OR is not supported (at ${ft.at}); conditions are joined by AND: make one query per alternative`);
      else throw new ToolError(`where: expected AND after the condition at ${ft.at}, got ${shown(ft)}`);
    }
    const t = toks[i];
    if (t.kind === T_PAREN && t.text !== ",") throw new ToolError(`where: parentheses are not supported (at ${t.at}); write conditions joined by AND`);
    if (t.kind !== T_WORD) throw new ToolError(`where: expected a field name at ${t.at}, got ${shown(t)}; fields of ${from}: ${fieldList(from)}`);
    if (t.text.toLowerCase() === "not") throw new ToolError(`where: NOT is not supported (at ${t.at}); use != `);
    const field = fieldOf(from, t.text);
    if (!field) throw fieldErr("where", from, t.text, t.at);
    const ot = toks[i + 1];
    if (!ot) throw new ToolError(`where: expected an operator after '${field.name}' at ${t.at}: = != >= <= CONTAINS LIKE`);
    let op: Op | undefined;
    if (ot.kind === T_OP) op = OPS[ot.text];
    else if (ot.kind === T_WORD) {
      const w = ot.text.toUpperCase();
      if (w === "CONTAINS" || w === "LIKE") op = w;
    }
    if (!op) throw new ToolError(`where: unknown operator ${shown(ot)} at ${ot.at}; operators: = != >= <= CONTAINS LIKE`);
    const vt = toks[i + 2];
    if (!vt || vt.kind === T_OP || vt.kind === T_PAREN) throw new ToolError(`where: expected a value after '${op}' at ${vt ? vt.at : ot.at}`);
    conds.push(condOf(from, field, op, ot, vt));
    if (conds.length > MAX_CONDITIONS) throw new ToolError(`where: at most ${MAX_CONDITIONS} conditions (the ${MAX_CONDITIONS + 1}th is at ${t.at})`);
    i += 3;
  }
  return conds;
}

// ---- order_by, select, limit -------------------------------------------------------------------

export function parseOrder(from: Source, src: string): Order {
  const toks = lex("order_by", src);
  if (!toks.length) throw new ToolError("order_by: expected a field name");
  const t = toks[0];
  if (t.kind !== T_WORD) throw new ToolError(`order_by: expected a field name at ${t.at}, got ${shown(t)}; fields of ${from}: ${fieldList(from)}`);
  const field = fieldOf(from, t.text);
  if (!field) throw fieldErr("order_by", from, t.text, t.at);
  if (field.kind === "list") throw new ToolError(`order_by: '${field.name}' is a list of words and cannot order (at ${t.at})`);
  for (const x of toks) if (x.text === "," && x.kind === T_PAREN) throw new ToolError(`order_by: one field only, then asc or desc; unexpected ',' at ${x.at}`);
  let desc = false;
  if (toks.length > 1) {
    const d = toks[1];
    const w = d.kind === T_WORD ? d.text.toLowerCase() : "";
    if (w === "desc") desc = true;
    else if (w !== "asc") throw new ToolError(`order_by: expected asc or desc after '${field.name}' at ${d.at}, got ${shown(d)}`);
  }
  if (toks.length > 2) throw new ToolError(`order_by: one field only, then asc or desc; unexpected ${shown(toks[2])} at ${toks[2].at}`);
  return { field, desc };
}

export function parseSelect(from: Source, src: string): FieldDef[] {
  const out: FieldDef[] = [];
  // fields split by "," or "，"; spaces around them ignored
  let at = 1;
  let name = "";
  let start = 1;
  const flush = (end: boolean) => {
    const n = name.trim();
    if (!n) {
      if (end && !out.length) throw new ToolError("select: expected field names separated by commas");
      throw new ToolError(`select: an empty field name at ${start}`);
    }
    if (n === "*") {
      for (const d of FIELDS[from]) if (!d.alias && out.indexOf(d) < 0) out.push(d);
    } else {
      const d = fieldOf(from, n);
      if (!d) throw fieldErr("select", from, n, start + (name.length - name.trimStart().length));
      if (out.indexOf(d) < 0) out.push(d);
    }
    name = "";
  };
  for (const ch of src) {
    if (ch === "," || ch === "，") {
      flush(false);
      start = at + 1;
    } else name += ch;
    at++;
  }
  flush(true);
  return out;
}

// ---- the whole query ----------------------------------------------------------------------

function str(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new ToolError(`${what} must be a string`);
  return v;
}

export function parseQuery(args: Record<string, unknown>): Query {
  const fromArg = args.from;
  if (fromArg === undefined || fromArg === null || fromArg === "") throw new ToolError(`from is required: one of ${SOURCES.join(", ")}`);
  if (typeof fromArg !== "string" || (SOURCES as readonly string[]).indexOf(fromArg.trim().toLowerCase()) < 0)
    throw new ToolError(`from must be one of ${SOURCES.join(", ")}, got '${quote(String(fromArg), 32)}'`);
  const from = fromArg.trim().toLowerCase() as Source;
  const w = str(args.where, "where");
  if (w !== undefined && encode(w).length > MAX_WHERE_BYTES) throw new ToolError(`where is too long: at most ${MAX_WHERE_BYTES} bytes`);
  const where = w !== undefined && w.trim() ? parseWhere(from, w) : [];
  const o = str(args.order_by, "order_by");
  const order = o !== undefined && o.trim() ? parseOrder(from, o) : undefined;
  const s = str(args.select, "select");
  const select = s !== undefined && s.trim() ? parseSelect(from, s) : FIELDS[from].filter((d) => !d.alias);
  let limit = DEFAULT_LIMIT;
  const l = args.limit;
  if (l !== undefined && l !== null) {
    if (typeof l !== "number" || !Number.isInteger(l) || l < 1 || l > MAX_LIMIT) throw new ToolError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    limit = l;
  }
  let text = false, trash = false;
  const uses = (d: FieldDef) => {
    if (d.text) text = true;
    if (d.field === "state") trash = true;
  };
  for (const c of where) uses(c.field);
  if (order) uses(order.field);
  for (const d of select) if (d.text) text = true;
  return { from, where, order, select, limit, text, trash };
}
