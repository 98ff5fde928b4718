// Rule-based extraction from what the user says (seed 000 §3.3, issue 15):
// identity, likes and dislikes, family, friends and pets (with what is said
// about them), school and work facts, plans, spoken reminders (one-off and
// repeating), birthdays and anniversaries of others (yearly events) and
// reminders without a time. Speech arrives as a recogniser delivers it: no
// punctuation, fillers and particles, spoken numbers, run-on sentences. The
// text is first cut into clauses (segment()); each clause then goes through
// the rules with what the clauses before it established: who the subject is
// (the speaker, or a family member just named), whether a correction, an
// emphasis (记住…), a hedge (好像…) or a hypothetical (要是…) is under way.
//
// Confidence (docs/LISTEN.md):
//   5  explicit: a correction, after 记住/别忘了, a reminder (提醒我…), 我叫X.
//   4  a plain statement about the speaker or the family. Stored at the end
//      of the conversation, like 5 (src/listen/pending.ts: SURE).
//   3  a guess: 我是X taken as a name. Waits in the pending queue.
//   2  hedged (好像, 可能, 应该…) or laughed off (…哈哈): waits.
// Nothing at all for questions, hypotheticals, jokes (开玩笑的, 骗你的, 才怪,
// 呵呵), the past (以前…, 小时候…), negations (我不是学生; they retract what is
// pending instead), and what someone else said (老师说明天…).
//
// Values (what the speech set in test/extract/ checks):
//   name, location: as said; age: digits; gender: 男 or 女; birthday: MM-DD;
//   like/dislike: the object with particles and a final 的 dropped, lists split
//   (猫和狗 → 猫, 狗); family: "relation:name[:note]" with the relation
//   normalised (老妈 → 妈妈), the name possibly empty, the note what was said
//   about them (喜欢画画); fact: "主人" + the clause without 我; event and
//   schedule: the plan without date, time, subject and modal verbs; `repeat`
//   on a repeating schedule; `tag` on a yearly event (birthday, anniversary),
//   a dated reminder without a time, or a reminder with no date at all (todo).
//
// Device: every table is plain frozen data built at the top level (preloadable),
// no module state changes after load, no Unicode property escapes, no locale API.
// Code points outside the BMP (emoji) are handled with codePointAt, so the
// same indexes hold on the device (by code point) and on Node (UTF-16 units).

import type { PendingKind } from "../memory/types";
import { byteLength } from "../text/utf8";
import { formatDate, formatDateTime, toLocal, fromLocal } from "../time/local";
import { scanDateTime, scanRepeat, parseNumber, parseMonthDay, dayStart, startOf, nextMonthDay, NUM, type RepeatRule, type LocalDate } from "./dates";
// the vocabularies and patterns the rules below read (data, beside this engine)
import { X, MEMBER_TYPE, type Opener } from "./vocab";
export { MEMBER_TYPE } from "./vocab";

export type EventTag = "yearly" | "reminder" | "todo";

export interface Extracted {
  kind: PendingKind;
  value: string;
  confidence: number; // 1-5
  when?: number; // ms: a schedule's start, an event's local midnight (a yearly one: its next day)
  repeat?: RepeatRule; // a repeating schedule
  tag?: EventTag; // events: yearly, a dated reminder without a time, a todo (no date)
  passing?: boolean; // a member only mentioned in passing (not kept in the queue's record)
}

// "I no longer …", "我不叫…": cancels a pending item of this kind (and value);
// `memory`: 我不再喜欢X also removes the like from memory.
export interface Retraction {
  kind: PendingKind;
  value: string;
  memory?: boolean;
}

export interface Extraction {
  items: Extracted[];
  retractions: Retraction[];
  cancelPrevious: boolean; // "开玩笑的" alone: what the previous utterance said is withdrawn
  // "这个别记", "忘掉吧", "名字别记": the kinds to forget of what this
  // conversation said before this utterance (its own items are dropped here)
  // ("all": everything this conversation said; "last": what the last
  // utterance that said anything said)
  forget?: PendingKind[] | "all" | "last";
  // another person speaks ("我是她奶奶"): true from here on; false when the
  // device is handed back ("宝宝你跟它说"); undefined: unchanged
  other?: boolean;
}

export const VALUE_BYTES = 48; // the pending record's value field
// Longer utterances are read up to here: the work per utterance stays bounded (a
// recogniser's utterance is rarely over 100 characters).
export const MAX_UTTERANCE = 400;

// ---- characters --------------------------------------------------------------------


function isEmoji(cp: number): boolean {
  return (cp >= 0x1f000 && cp <= 0x1faff) || (cp >= 0x2600 && cp <= 0x27bf) || (cp >= 0x2b00 && cp <= 0x2bff) || cp === 0xfe0f || cp === 0x200d || cp === 0x20e3;
}

// The number of string indexes a code point takes here (2 for a pair on Node, 1 on the device).
function unitsOf(cp: number): number {
  return cp > 0xffff ? String.fromCodePoint(cp).length : 1;
}

function stripEnd(s: string): string {
  return s.replace(X.END_PARTICLES, "");
}

function fits(s: string, bytes = VALUE_BYTES): boolean {
  return s.length > 0 && byteLength(s) <= bytes;
}

export function isName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5]{2,4}$/.test(s)) return false;
  for (let i = 0; i < s.length; i++) if (X.NAME_STOP.indexOf(s.charAt(i)) >= 0) return false;
  if (/^[一二两三四五六七八九十几第]/.test(s)) return false;
  if (X.RELATIONS[s] !== undefined) return false;
  for (const w of X.NAME_WORDS) if (s.indexOf(w) >= 0) return false;
  return true;
}

// 我是<name>: stricter, since 我是 is followed by so much else.
function looksLikeName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return /^[A-Z]/.test(s);
  if (!isName(s) || s.length > 3) return false;
  if (/[人生员家师迷者手长子儿头王帝皇]$/.test(s)) return false;
  const a = s.charAt(0);
  return X.SURNAMES.indexOf(a) >= 0 || (s.length === 2 && (a === "小" || a === "阿" || s.charAt(1) === a));
}


function isPlace(s: string): boolean {
  if (X.NOT_PLACES.test(s)) return false;
  if (/^[A-Za-z][A-Za-z .'-]{1,30}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5A-Za-z0-9]{2,10}$/.test(s)) return false;
  if (/[家楼这那哪你他她它的很边么]|里$|上$|附近|隔壁|对面|宿舍|酒店|宾馆|学校|医院|外面|旁边/.test(s)) return false;
  return true;
}

// Slips and dialect (X.RESPELL), a stammered 我 (我我我), a number after
// which 随 is 岁, 七十有三.
function respell(text: string): string {
  let s = text;
  for (const [a, b] of X.RESPELL) if (s.indexOf(a) >= 0) s = s.split(a).join(b);
  return s.replace(/我(?:\s*我)+/g, "我").replace(/([^现正还都也])在在/g, "$1在").replace(/([一二三四五六七八九十两0-9])随/g, "$1岁").replace(/十有([一二三四五六七八九])/g, "十$1").replace(/(喜欢|爱)食(?!物|品|堂)/g, "$1吃");
}

// Restarts and stutters between the recogniser's pauses: "我叫王 王梓 王梓轩",
// "我住在杭 杭州", "三月 三月八号", "我喜欢 喜欢 嗯 恐龙": a piece that starts
// with the end of the one before replaces that end; a pause filler between
// pieces goes; a piece left open (我叫, 我喜欢) takes the next without a pause.
function restarts(s: string): string {
  if (s.indexOf(" ") < 0) return s;
  const pieces = s.split(" ");
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const b = pieces[i];
    if (X.PAUSE_FILLER.test(b) && out.length && i < pieces.length - 1) continue;
    const a = out.length ? out[out.length - 1] : "";
    if (!a || !X.HAN.test(a.charAt(a.length - 1)) || !X.HAN.test(b.charAt(0))) {
      out.push(b);
      continue;
    }
    let k = Math.min(4, a.length, b.length);
    while (k > 0 && a.slice(a.length - k) !== b.slice(0, k)) k--;
    const head = a.slice(0, a.length - k);
    if (k >= 2 || (k === 1 && (X.OPEN_END.test(head) || X.OPEN_END.test(a) || head === ""))) out[out.length - 1] = head + b;
    else if (X.OPEN_END.test(a)) out[out.length - 1] = a + b;
    else out.push(b);
  }
  return out.join(" ");
}

// A user line with its secrets masked, before it is kept anywhere (the
// window, the chat log, an episode): what follows 密码/验证码/手机号…, runs of
// five or more digits (said or written), a flat's number (三单元502).
export function redact(text: string): string {
  if (!X.SECRET.test(text) && !digitsSaid(text)) return text;
  return text
    .replace(/(密码|口令|验证码|卡号|号码|手机号|手机|电话|身份证号?|学号|车牌号?|账号|微信号|qq号|QQ号)(是|为|:|：)?\s*[A-Za-z0-9零〇一二三四五六七八九十幺两个@._-]+/g, "$1$2***")
    .replace(/[0-9零〇一二三四五六七八九十百]+(?:号院|号楼|栋|单元|室)[0-9零〇一二三四五六七八九十百号室]*/g, "***")
    .replace(/[0-9]{5,}|[零〇一二三四五六七八九幺]{5,}/g, (run) => (counting(run) ? run : "***"));
}

// Five or more digits in a row (written or said) that are not counting
// (一二三四五…): a number someone could use, such as a phone or an ID.
function digitsSaid(s: string): boolean {
  if (!X.LONG_DIGITS.test(s)) return false;
  const re = new RegExp(X.LONG_DIGITS.source, "g");
  for (let m = re.exec(s); m; m = re.exec(s)) if (!counting(m[0])) return true;
  return false;
}

function counting(run: string): boolean {
  const d = "零一二三四五六七八九";
  for (let i = 1; i < run.length; i++) {
    const a = run.charCodeAt(i - 1) >= 48 && run.charCodeAt(i - 1) <= 57 ? run.charCodeAt(i - 1) - 48 : d.indexOf(run.charAt(i - 1));
    const b = run.charCodeAt(i) >= 48 && run.charCodeAt(i) <= 57 ? run.charCodeAt(i) - 48 : d.indexOf(run.charAt(i));
    if (a < 0 || b !== a + 1) return false;
  }
  return true;
}

// A clause that asks rather than tells.
function isQuestion(c: string): boolean {
  if (/[吗么][了啊呀哦]*$/.test(c)) return true;
  if (/什么|谁|哪|怎么|为什么|为啥|多少|几岁|几点|几号|几月|几年级|几个|几天|星期几|周几|礼拜几|有没有|要不要|会不会|能不能|可不可以|对不对|好不好|行不行|是不是|难道|来着|多大|多久|多高|多重/.test(c)) return true;
  if (/^(?:你觉得|你说|你看|你猜|请问)/.test(c) || /是.+还是/.test(c)) return true;
  if (/([\u4e00-\u9fa5])不\1|([\u4e00-\u9fa5]{2})不\2|([\u4e00-\u9fa5])没\3/.test(c)) return true; // 喜不喜欢, 喜欢不喜欢
  return false;
}


// ---- normalisation and clauses -----------------------------------------------------

// Full-width ASCII folded, punctuation unified, emoji dropped (kept as the
// object of 喜欢/是…), spaces between Chinese words read as a pause (a comma)
// unless the recogniser spaced out single characters.
function normalize(text: string): string {
  let s = "";
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const n = unitsOf(cp);
    if (cp >= 0xff01 && cp <= 0xff5e) s += String.fromCharCode(cp - 0xfee0);
    else if (cp === 0x3002) s += ".";
    else if (cp === 0x3001) s += "、";
    else if (cp === 0x3000 || cp < 0x20) s += " ";
    else if (isEmoji(cp)) {
      let j = i;
      let run = "";
      while (j < text.length && isEmoji(text.codePointAt(j)!)) {
        const k = unitsOf(text.codePointAt(j)!);
        run += text.slice(j, j + k);
        j += k;
      }
      const object = /(?:喜欢|爱|讨厌|怕|是)$/.test(s);
      s += object ? run.replace(/[\ufe0f\u200d\u20e3]/g, "") : ",";
      i = j;
      continue;
    } else s += text.slice(i, i + n);
    i += n;
  }
  s = restarts(respell(s.replace(/\s+/g, " ").trim()));
  const tokens = s.split(" ");
  let han = 0, singles = 0;
  for (const t of tokens)
    if (X.HAN.test(t)) {
      han++;
      if (t.replace(/[,.!?、]/g, "").length <= 1) singles++;
    }
  const spacedOut = han >= 3 && singles * 2 >= han;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    if (ch === " ") {
      const a = s.charAt(i - 1), b = s.charAt(i + 1);
      const tightA = X.TIGHT.test(a), tightB = X.TIGHT.test(b);
      if (!tightA && !tightB) out += ch;
      else if (!spacedOut && X.HAN.test(a) && X.HAN.test(b)) out += ",";
      else if (!spacedOut && ((X.HAN.test(a) && /[A-Za-z0-9]/.test(b)) || (/[A-Za-z0-9]/.test(a) && X.HAN.test(b)))) continue;
      continue;
    }
    out += ch;
  }
  return out.replace(/,+/g, ",").replace(/^,|,$/g, "");
}


// Where a new clause starts inside unpunctuated speech. Each opener
// (X.OPENERS, src/listen/vocab.ts) splits unless the character before it
// binds it to what precedes (glue).

export function segment(s: string): string {
  let out = "";
  let start = 0; // where the current segment begins in `out`
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const prev = s.charAt(i - 1);
    if (i > 0 && X.HAN.test(prev)) {
      let split = false;
      if ("我你他她它".indexOf(ch) >= 0) split = X.PRONOUN_GLUE.indexOf(prev) < 0 && !(ch === "我" && prev === "你") && !/[我你他她它]/.test(prev) && !X.PRONOUN_WORDS.test(s.slice(i - 1)) && !(ch === "我" && X.TOPIC_TAIL.test(s.slice(i)));
      const openers = X.OPENERS_BY_CHAR[ch];
      if (!split && openers)
        for (const o of openers)
          if (s.startsWith(o.word, i) && o.glue.indexOf(prev) < 0) {
            split = true;
            break;
          }
      if (!split && X.REL_FIRST.indexOf(ch) >= 0 && "我的家个只位条和跟".indexOf(prev) < 0 && X.RE_REL_CALLED.test(s.slice(i, i + 8)) && !X.RE_REL_CALLED.test(s.slice(i - 1, i + 8))) split = true;
      if (!split && ch === "在" && "我们也还都就现目正".indexOf(prev) < 0 && X.RE_AT_WORK.test(s.slice(i))) split = true;
      // "我妹妹" so far: what follows is about her, in the same clause
      if (split && X.RE_ONLY_MEMBER.test(out.slice(start))) split = false;
      if (split && out.charAt(out.length - 1) !== ",") {
        out += ",";
        start = out.length;
      }
    }
    out += ch;
    // after a particle that ends a clause: 我住在上海哦我喜欢… / 你记得吗我…
    if (X.PARTICLE_SPLIT.indexOf(ch) >= 0 && X.HAN.test(s.charAt(i + 1)) && X.PARTICLE_SPLIT.indexOf(s.charAt(i + 1)) < 0 && !(ch === "嘛" && prev === "干") && !(ch === "吧" && prev === "酒")) {
      if (ch === "吗") out += "?";
      out += ",";
      start = out.length;
    }
    if (ch === ",") start = out.length;
  }
  return out.replace(/,+/g, ",");
}

interface Clause {
  text: string;
  question: boolean; // ends a sentence with '?'
}

// Sentences end at . ! ? ; … ~ and line breaks (a '.' between digits does
// not end one); clauses are separated by commas.
function clauses(text: string): Clause[][] {
  const sentences: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const end = ch === "!" || ch === "?" || ch === ";" || ch === "…" || ch === "~" || ch === "\n" || (ch === "." && !(/[0-9]/.test(text.charAt(i - 1)) && /[0-9]/.test(text.charAt(i + 1))));
    if (end) {
      if (ch !== "\n") cur += ch;
      sentences.push(cur);
      cur = "";
    } else cur += ch;
  }
  sentences.push(cur);
  const out: Clause[][] = [];
  for (const raw of sentences) {
    const s = raw.trim();
    if (!s) continue;
    const q = /\?\s*$/.test(s);
    const body = s.replace(/[.!?;…~\s]+$/, "");
    const parts = (X.HAN.test(body) ? segment(body) : body).split(",").map((p) => p.trim()).filter((p) => p);
    out.push(parts.map((p, i) => ({ text: p, question: q && i === parts.length - 1 })));
  }
  return out;
}

// ---- rules --------------------------------------------------------------------------------

interface State {
  at: number;
  items: Extracted[];
  retractions: Retraction[];
  cancelPrevious: boolean;
  emphatic: boolean; // after 记住/别忘了: confidence 5
  correcting: boolean; // after 不对 / 我不叫… / 搬家了: confidence 5
  hedged: boolean; // this clause only: 好像…, confidence 2
  selfBefore: boolean; // the previous clause was about the speaker (for 我 left out)
  member: Extracted | undefined; // the family member the previous clause was about
  skipRest: boolean; // after 如果…: the rest of the sentence is hypothetical
  lastClause: string; // the last clause that yielded items, and those items
  lastItems: Extracted[];
  listKind: "like" | "dislike" | undefined; // a list of likes under way: bare things after it join it
  listVerb: string;
  fiction: boolean; // a story, song or role: the utterance is done
  forget: PendingKind[] | "all" | "last" | undefined;
  other: boolean; // another person is speaking: nothing about the owner's self
  otherSaid: boolean; // this utterance changed who speaks
  clause: string; // the clause being read
}

type Rule = (c: string, st: State) => Extracted[] | undefined;

function item(kind: PendingKind, value: string, confidence: number, when?: number, extra?: { repeat?: RepeatRule; tag?: EventTag }): Extracted[] | undefined {
  const limit = kind === "like" || kind === "dislike" || kind === "name" || kind === "location" ? X.SHORT_BYTES : VALUE_BYTES;
  if (!fits(value, limit) || value.indexOf("|") >= 0) return undefined;
  const e: Extracted = { kind, value, confidence };
  if (when !== undefined) e.when = when;
  if (extra?.repeat) e.repeat = extra.repeat;
  if (extra?.tag) e.tag = extra.tag;
  return [e];
}

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

// A day said on its own (三月八号, 明天, 下周三): its date, or undefined.
function dayOnly(said: string, at: number): LocalDate | undefined {
  const md = parseMonthDay(said);
  if (md) return nextMonthDay(md.month, md.day, at) ?? { year: toLocal(at).year, month: md.month, day: md.day };
  const d = scanDateTime(said, at).match;
  if (!d || !d.dayWord || d.hour !== undefined || d.period || d.spans.length !== 1 || d.spans[0][0] !== 0 || d.spans[0][1] !== said.length) return undefined;
  return d.date;
}


// A lunar date said (农历八月十五, 腊月二十三, 九月初一): kept as said, never
// turned into a Gregorian day (issue 24).
function lunar(said: string): string | undefined {
  const t = stripEnd(said).replace(/^(?:是|在)/, "");
  if (!X.LUNAR.test(t) || t.length > 12) return undefined;
  return /^(?:农历|阴历)/.test(t) || /^(?:腊月|正月|除夕)/.test(t) ? t : "农历" + t;
}

const birthday: Rule = (c, st) => {
  let m = X.RE_BIRTHDAY_IS.exec(c) ?? X.RE_IS_BIRTHDAY.exec(c) ?? X.RE_DAY_BIRTHDAY.exec(c);
  const said = !!m; // 生日 was said: nothing else is read into it
  if (!m) m = X.RE_BORN_ON.exec(c);
  if (!m) return undefined;
  const moon = lunar(m[1]);
  if (moon) return item("fact", `主人的生日是${moon}`, 4);
  const d = dayOnly(stripEnd(m[1]), st.at);
  return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 5) : said ? [] : undefined;
};

// ---- others' birthdays and anniversaries: yearly events ---------------------------------------


function yearly(content: string, said: string, st: State, rel?: string, name?: string): Extracted[] {
  const moon = lunar(said);
  if (moon) return rel ? (familyItem(rel, name ?? "", `生日是${moon}`) ?? []) : [];
  const d = dayOnly(stripEnd(said), st.at);
  if (!d) return []; // 农历八月十五: not a date we can keep; nothing else either
  const next = nextMonthDay(d.month, d.day, st.at);
  if (!next) return [];
  return item("event", content, 4, dayStart(next), { tag: "yearly" }) ?? [];
}

function whose(rel: string, name: string): string {
  const r = X.RELATIONS[rel] ?? rel;
  return name ? (MEMBER_TYPE[r] === "friend" || MEMBER_TYPE[r] === "pet" ? name : r + name) : r;
}

const othersDays: Rule = (c, st) => {
  let m = X.RE_OTHER_BDAY.exec(c);
  if (m) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st, m[1], m[2]);
  m = X.RE_DAY_IS_BDAY.exec(c);
  if (m) return yearly(`${whose(m[2], m[3])}的生日`, m[1], st, m[2], m[3]);
  m = X.RE_OTHER_BORN.exec(c);
  if (m) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st, m[1], m[2]);
  m = X.RE_OTHER_DAY_BDAY.exec(c);
  if (m && dayOnly(m[3], st.at)) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st);
  m = X.RE_DAY_IS_ANNIVERSARY.exec(c);
  if (m) return yearly(m[2].replace(/^我们的?|^我和我?|^我跟我?|^咱们的?/, "").replace(/^的/, "") + m[3], m[1], st);
  m = X.RE_ANNIVERSARY.exec(c);
  if (m) {
    const who = m[1].replace(/^我们的?|^我和我?|^我跟我?|^咱们的?/, "").replace(/^的/, "");
    return yearly(who + m[2], m[3], st);
  }
  return undefined;
};

// ---- family, friends, pets -------------------------------------------------------------------


function familyItem(rel: string, name: string, note = ""): Extracted[] | undefined {
  const r = X.RELATIONS[rel];
  if (!r) return undefined;
  if (note) {
    const full = item("family", `${r}:${name}:${note}`, 4);
    if (full) return full;
  }
  return item("family", `${r}:${name}`, 4);
}

const family: Rule = (c) => {
  let m = X.RE_FAMILY_NAMED.exec(c);
  if (m) {
    const name = stripEnd(m[2]);
    return isName(name) ? familyItem(m[1], name) : undefined;
  }
  m = X.RE_FAMILY_HAS.exec(c) ?? X.RE_PET_IS.exec(c);
  if (m) {
    const name = m[2] === undefined ? "" : stripEnd(m[2]);
    if (name && !isName(name)) return undefined;
    return familyItem(m[1], name);
  }
  // 我有一个哥哥一个妹妹, 我有个弟弟和一只狗
  const list = X.RE_FAMILY_LIST.exec(c);
  if (list) {
    const out: Extracted[] = [];
    const re = new RegExp(X.RE_LIST_PART.source, "g");
    for (let p = re.exec(list[1]); p; p = re.exec(list[1])) {
      const f = familyItem(p[1], "");
      if (f) out.push(f[0]);
    }
    return out.length > 1 ? out : undefined;
  }
  m = X.RE_BEST_FRIEND.exec(c);
  if (m) {
    const name = stripEnd(m[1]);
    return isName(name) ? familyItem("朋友", name) : undefined;
  }
  return undefined;
};

// what is said about a family member: a note on them, never about the speaker
function noteText(s: string): string | undefined {
  const t = stripEnd(s.replace(/^(?:他|她|它)(?:也|还)?/, ""));
  if (t.length < 2 || X.NOT_NOTES.test(t) || X.PASSING.test(t) || isQuestion(t)) return undefined;
  return t;
}

function addNote(m: Extracted, note: string): void {
  const next = /:[^:]*:/.test(m.value) ? m.value + X.NOTE_SEP + note : m.value + ":" + note;
  if (fits(next)) m.value = next;
}

const memberSays: Rule = (c) => {
  const m = X.RE_MEMBER_SAYS.exec(c);
  if (!m) return undefined;
  let name = m[2] ?? "";
  let rest = m[3];
  if (name && !isName(name)) {
    rest = name + rest;
    name = "";
  }
  const note = noteText(rest);
  if (!note) return undefined;
  return familyItem(m[1], name, note);
};


function relationCalled(c: string, st: State): Extracted[] | undefined {
  const m = X.RE_REL_CALLED.exec(c);
  if (!m || !st.items.some((x) => x.kind === "family")) return undefined;
  const name = stripEnd(m[2]);
  if (!isName(name)) return undefined;
  const rel = X.RELATIONS[m[1]];
  const bare = st.items.find((x) => x.kind === "family" && x.value === rel + ":");
  if (bare) {
    bare.value += name;
    return [];
  }
  return familyItem(m[1], name);
}

// 她叫朵朵 / 叫咪咪 / 一只叫年糕 right after "我有个妹妹" / "我养了两只猫": names that member.
function familyName(c: string, st: State): boolean {
  const last = st.member;
  if (!last) return false;
  const m = /^(?:她|他|它)?(?:的名字)?(一只|一个|另一只|另一个|一条)?(?:叫做|名叫|叫)(.+)$/.exec(c);
  if (!m) return false;
  const name = stripEnd(m[2]);
  if (!isName(name)) return false;
  const [rel, old] = last.value.split(":");
  if (!old && /:$/.test(last.value)) {
    if (!fits(last.value + name)) return false;
    last.value += name;
    return true;
  }
  if (!old || !m[1]) return false;
  const more = item("family", `${rel}:${name}`, last.confidence);
  if (!more) return false;
  st.items.push(more[0]);
  st.member = more[0];
  return true;
}

// ---- identity ------------------------------------------------------------------------------------


const name: Rule = (c) => {
  let m = X.RE_NAME_IS.exec(c) ?? X.RE_CALLED.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 5) : undefined;
  }
  m = X.RE_SURNAME_CALLED.exec(c);
  if (m) {
    const n = stripEnd(m[2]);
    return isName(n) && n.charAt(0) === m[1] ? item("name", n, 5) : undefined;
  }
  m = X.RE_CALL_ME.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 4) : undefined;
  }
  return undefined;
};

const nameByIAm: Rule = (c) => {
  const m = X.RE_I_AM.exec(c);
  if (!m) return undefined;
  const n = stripEnd(m[1]);
  return looksLikeName(n) ? item("name", n, 3) : undefined;
};


function enNumber(s: string): number | undefined {
  const t = s.toLowerCase().trim();
  if (/^[0-9]{1,3}$/.test(t)) return Number(t);
  const parts = t.split(/[- ]/);
  if (parts.length === 1) return X.EN_NUMBERS[t];
  if (parts.length === 2 && X.EN_NUMBERS[parts[0]] >= 20 && X.EN_NUMBERS[parts[0]] % 10 === 0 && X.EN_NUMBERS[parts[1]] < 10) return X.EN_NUMBERS[parts[0]] + X.EN_NUMBERS[parts[1]];
  return undefined;
}


const age: Rule = (c) => {
  const m = X.RE_AGE.exec(c);
  if (!m) return undefined;
  // without 岁: only with 今年/现在 (我今年二十八) or 了 (我三十二了)
  if (!m[3] && !/今年|现在/.test(m[1]) && !/了|啦/.test(m[4])) return undefined;
  if (!m[3] && m[1] === "是") return undefined;
  const n = parseNumber(m[2]) ?? enNumber(m[2]);
  if (n === undefined || n < 1 || n > 120) return undefined;
  return item("age", String(n), 4);
};


const gender: Rule = (c) => {
  const m = X.RE_GENDER.exec(c);
  return m ? item("gender", m[1].charAt(0), 4) : undefined;
};


const location: Rule = (c, st) => {
  const moved = X.RE_MOVED.exec(c);
  if (moved) {
    const p = stripEnd(moved[1]);
    if (!isPlace(p)) return undefined;
    st.correcting = true; // a move replaces where they lived
    return item("location", p, 5);
  }
  const m = X.RE_LIVE.exec(c) ?? X.RE_HOME.exec(c) ?? X.RE_FROM.exec(c);
  if (m) {
    const p = stripEnd(m[1]);
    return isPlace(p) ? item("location", p, 4) : undefined;
  }
  const n = X.RE_NATIVE.exec(c);
  if (n && X.PLACES.indexOf(n[1]) >= 0) return item("location", n[1], 4);
  return undefined;
};

// ---- facts: school, work, health ---------------------------------------------------------------


// The rows of X.FACTS in order: the first that matches and passes its checks
// gives the rule's answer; three forms need more than a template (special:
// false when the form does not apply after all and the next row is tried).
const fact: Rule = (c, st) => {
  for (const row of X.FACTS) {
    const m = row.re.exec(c);
    if (!m) continue;
    if (row.special) {
      const found = row.special === "grade" ? grade(m) : row.special === "my_x_is" ? myXIs(m) : occupation(m);
      if (found === false) continue;
      return found;
    }
    if (row.need && !row.need[1].test(m[row.need[0]])) continue;
    if (row.not && row.not.some(([g, re]) => re.test(m[g]))) continue;
    const last = m.length - 1;
    return item("fact", row.fact!.replace(/\$([1-9])/g, (_, g: string) => (row.strip && Number(g) === last ? stripEnd(m[last]) : m[Number(g)])), 4);
  }
  if (st.emphatic) {
    const m = X.RE_KEPT.exec(c);
    if (m && !/[你他她它]/.test(m[1])) return item("fact", `主人的${m[1]}${m[2]}${stripEnd(m[3])}`, 5);
  }
  return undefined;
};

// 我在读小学三年级, 我上初二, 我是大班的
function grade(m: RegExpExecArray): Extracted[] | undefined | false {
  if (!((m[2] || m[1] || /年级|[初高大研][一二三四]|班$/.test(m[3])) && !(m[2] === "是" && /^(?:大学|研究生|博士|幼儿园)$/.test(m[3])))) return false;
  // 我在读小学三年级, 我在备考研究生: the verb is already said
  if (m[1] && !m[2] && /^(?:读|上|念|备考|考)/.test(m[1])) return item("fact", `主人在${m[1]}${m[3]}`, 4);
  return item("fact", `主人${m[1] ? "在" + m[1] : ""}${m[2] === "是" || !m[2] ? "上" : m[2]}${m[3]}`, 4);
}

// 我的幸运颜色是红色, 我的外号叫小胖; 我的爱好是画画 is a like
function myXIs(m: RegExpExecArray): Extracted[] | undefined | false {
  const v = stripEnd(m[2]);
  if (/^(?:爱好|兴趣|兴趣爱好)$/.test(m[1])) {
    const objs = objects(v);
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  if (!X.OBJECT_STOP.test(v)) return item("fact", `主人的${m[1]}是${v}`, 4);
  return false;
}

// 我是老师, 我是小学老师教语文的, 我是儿科医生
function occupation(m: RegExpExecArray): Extracted[] | undefined | false {
  const o = m[1].replace(/学生$/, (x) => (X.OCCUPATIONS.indexOf(m[1]) >= 0 ? x : ""));
  if (X.OCCUPATIONS.indexOf(m[1]) >= 0) return item("fact", `主人是${m[1]}`, 4);
  if (/^[a-z][a-z ]{2,20}$/.test(m[1])) return item("fact", `主人是${m[1]}`, 4);
  if (o && X.OCCUPATIONS.indexOf(o) >= 0) return item("fact", `主人是${o}`, 4);
  // 小学老师教语文的: an occupation followed by what they do in it
  for (const w of X.OCCUPATIONS) {
    const k = m[1].indexOf(w);
    if (w.length >= 2 && k >= 0 && k <= 4 && /^(?:教|在|做|负责|带)/.test(m[1].slice(k + w.length)) && !/[的你他她它这那]/.test(m[1].slice(0, k))) return item("fact", `主人是${m[1].slice(0, k + w.length)}`, 4);
  }
  // 大学老师, 退休老师, 儿科医生: a short modifier before an occupation
  for (const w of X.OCCUPATIONS) if (w.length >= 2 && m[1].length > w.length && m[1].length <= w.length + 4 && m[1].slice(-w.length) === w && /^[\u4e00-\u9fa5]+$/.test(m[1]) && !/[的你他她它这那]/.test(m[1])) return item("fact", `主人是${m[1]}`, 4);
  return false;
}

// ---- likes and dislikes ----------------------------------------------------------------------


// Splits the words between 我 and the verb into known adverbs; undefined if
// anything else is there.
function adverbs(s: string): { neg: string | undefined; past: boolean; adv: string[] } | undefined {
  const out = { neg: undefined as string | undefined, past: false, adv: [] as string[] };
  let rest = s;
  while (rest) {
    let hit: string | undefined;
    for (const w of X.PAST) if (rest.indexOf(w) === 0) (hit = w), (out.past = true);
    if (!hit) for (const w of X.NEGATIONS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
    if (hit && X.NEGATIONS.indexOf(hit) >= 0) {
      if (out.neg) return undefined; // 不是不喜欢: double negation, not guessed
      out.neg = hit;
    } else if (!hit) {
      for (const w of X.ADVERBS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
      if (hit) out.adv.push(hit);
    }
    if (!hit) return undefined;
    rest = rest.slice(hit.length);
  }
  return out;
}

// The liked things: cleaned, split on 和/、 (a verb in front is shared).
function objects(raw: string): string[] | undefined {
  let o = raw.replace(/[了啊呀哦喔噢啦呢嘛吧哈耶哟咯~的]+$/, "");
  o = o.replace(/^(?:上了|上)(?=.)/, (x) => (x === "上" ? x : "")); // 我喜欢上了画画
  if (!o || /^(?:喜欢|讨厌|[的得地了着过不没怕欢爱])/.test(o) || X.OBJECT_STOP.test(o) || o.indexOf("的是") >= 0) return undefined;
  if (/^[一两几这那每][个只位种件条本部首]/.test(o)) return undefined; // 喜欢上了一个女孩: someone, not a liking
  if (o.length > 20) return undefined;
  o = o.replace(/^([吃喝])?.{1,6}?(?:做|煮|烧|包|炖|烤|买|炒)的(?=..)/, "$1"); // 吃我妈做的红烧肉 → 吃红烧肉
  let parts = /^[和跟与同]/.test(o) ? [o] : o.split(/(?:啊|呀)?(?:和|、|还有|跟|以及|,)|啊|呀/).filter((p) => p.length > 0);
  if (!parts.length) return undefined;
  // 篮球足球乒乓球: nouns said in a row that end alike
  if (parts.length === 1 && o.length >= 4 && X.HAN.test(o)) {
    const end = o.charAt(o.length - 1);
    const run = o.split(end);
    if (run.length >= 3 && run[run.length - 1] === "" && run.slice(0, -1).every((r) => r.length >= 1 && r.length <= 2)) parts = run.slice(0, -1).map((r) => r + end);
  }
  // a verb in front is shared (吃苹果和香蕉), not a verb-object word's (画画和小兔子)
  const verb = parts[0].length >= 3 ? X.VERB_HEAD.exec(parts[0]) : null;
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i].trim();
    if (!p) return undefined;
    if (i > 0 && verb && !X.VERB_HEAD.test(p)) p = verb[0] + p;
    if (!fits(p, X.SHORT_BYTES)) return undefined;
    out.push(p);
  }
  return out;
}

function prefItems(kind: "like" | "dislike", objs: string[], confidence: number): Extracted[] {
  return objs.map((value) => ({ kind, value, confidence }));
}

// Said with the thing first or with another verb (issue 24): 打羽毛球是我最喜欢的运动,
// 篮球足球我都喜欢, 周杰伦的歌我百听不厌, 我最近迷上了乐高, 我是周杰伦的粉丝,
// 我喜欢的水果有西瓜和草莓, 我爱吃的东西可多了 (a list follows).
const topical = (c: string, st: State): Extracted[] | undefined => {
  let m = X.RE_TOPIC_IS.exec(c);
  if (m) {
    const objs = objects(m[1]);
    return objs ? prefItems(/讨厌|怕/.test(m[2]) ? "dislike" : "like", objs, 4) : undefined;
  }
  m = X.RE_TOPIC_FIRST.exec(c);
  if (m && !/^我/.test(m[1])) {
    const objs = objects(m[1]);
    if (!objs) return undefined;
    return prefItems(/不|讨厌|怕|烦/.test(m[2]) ? "dislike" : "like", objs, 4);
  }
  m = st.selfBefore ? X.RE_TOPIC_ALSO.exec(c) : null;
  if (m && !/^[我你他她它]/.test(m[1])) {
    const objs = objects(m[1]);
    if (objs) return prefItems(/不|讨厌/.test(m[2]) ? "dislike" : "like", objs, 4);
  }
  m = X.RE_NEVER_TIRED.exec(c);
  if (m && !/^我/.test(m[1])) {
    const objs = objects(m[1].replace(/这(?:首|部|个|本|款|种)[\u4e00-\u9fa5]?$/, ""));
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_INTO.exec(c) ?? X.RE_FAN.exec(c) ?? X.RE_WATCHING.exec(c) ?? X.RE_MOST_DONE.exec(c);
  if (m) {
    const objs = objects(stripEnd(m[1]));
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_LIKED_ARE.exec(c);
  if (m) {
    const kind = /讨厌|怕/.test(m[1]) ? "dislike" : "like";
    st.listKind = kind;
    st.listVerb = m[2];
    if (!m[3]) return [];
    const objs = objects(m[2] + stripEnd(m[3]));
    return objs ? prefItems(kind, objs, 4) : [];
  }
  return undefined;
};

// A bare thing after a list began (我喜欢乐高啊, 画画啊, 还有踢足球): one more of it.
function listMore(c: string, st: State): Extracted[] | undefined {
  const kind = st.listKind;
  if (!kind || c.length > 8 || X.NOT_LISTED.test(c) || isQuestion(c)) return undefined;
  const objs = objects(c);
  if (!objs) return undefined;
  return prefItems(kind, objs.map((o) => (st.listVerb && !X.VERB_HEAD.test(o) ? st.listVerb + o : o)), 4);
}

const preference = (c: string, st: State): Extracted[] | undefined => {
  if (X.SARCASM.test(c)) return []; // 我可太喜欢加班了
  let m = X.RE_FAVOURITE.exec(c);
  if (m) {
    const objs = objects(m[2] + m[4]); // 我最喜欢吃的是冰淇淋 → 吃冰淇淋
    if (!objs) return undefined;
    return prefItems(m[1] === "喜欢" || m[1] === "爱" ? "like" : "dislike", objs, 4);
  }
  m = X.RE_INTEREST.exec(c);
  if (m) {
    if (/不|没/.test(m[1])) return undefined;
    const objs = objects(m[1]);
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_NEVER.exec(c);
  if (m) {
    const o = stripEnd(m[2]);
    if (o.length < 1 || /^[了过完饭]$/.test(o) || X.OBJECT_STOP.test(o)) return undefined;
    return item("dislike", m[1] + o, 4);
  }
  m = X.RE_SWITCHED.exec(c);
  if (m) {
    const objs = objects(m[1] + stripEnd(m[2]));
    if (!objs) return undefined;
    st.correcting = true; // a change: the new one is meant
    return prefItems("like", objs, 5);
  }
  m = X.RE_PREF.exec(c.replace(X.RE_WE_BOTH, "我$1"));
  if (!m) return undefined;
  const a = adverbs(m[1]);
  if (!a || a.past) return undefined;
  const verb = m[2];
  const objs = objects(m[3]);
  if (!objs) return undefined;
  const positive = verb === "喜欢" || verb === "爱";
  if (!a.neg) {
    if (positive) return prefItems("like", objs, 4);
    return prefItems("dislike", objs, 4);
  }
  // negated
  const noLonger = a.neg === "不再" || a.neg === "再也不" || a.neg === "已经不" || (a.neg === "不" && /了$/.test(m[3]));
  if (noLonger || !positive || a.neg === "没有" || a.neg === "没" || a.neg === "并不") {
    // "我不再喜欢X" withdraws a like; "我不讨厌X" a pending dislike
    for (const value of objs) st.retractions.push({ kind: positive ? "like" : "dislike", value, memory: noLonger && positive });
    return [];
  }
  return prefItems("dislike", objs, 4);
};

// ---- plans and reminders --------------------------------------------------------------------


function planText(rest: string): string | undefined {
  let r = rest;
  const s = X.SUBJECT.exec(r);
  if (s) r = r.slice(s[0].length);
  const modal = X.MODALS.exec(r);
  if (modal) {
    let k = modal[0].length;
    while (k > 0 && r.length - k < 2) k--; // 要还书: 还 is the verb here
    r = r.slice(k);
  }
  r = r.replace(/^(?:有个|有一个|一个|个|有(?=..))/, "");
  r = stripEnd(r);
  if (r.length < 2 || r.length > 16) return undefined;
  if (/^[很真好太不没别的得地了你他她它]|^特别|^非常|^有点|^挺|^超/.test(r) || X.WEATHER.test(r)) return undefined;
  return r;
}

function cut(text: string, spans: [number, number][]): string {
  let rest = "";
  let from = 0;
  for (const [a, b] of spans) {
    if (a < from) continue;
    rest += text.slice(from, a);
    from = b;
  }
  return rest + text.slice(from);
}

const plan = (c: string, st: State): Extracted[] | undefined => {
  if (X.LUNAR.test(c)) return undefined; // 正月十五, 中秋节: never a wrong Gregorian day
  let text = c;
  let confidence = 0;
  let reminder = false;
  const alarm = X.RE_ALARM.exec(text);
  if (alarm) {
    text = alarm[1] + "闹钟";
    reminder = true;
  }
  const wake = X.RE_WAKE.test(text);
  if (wake) text = text.replace(X.RE_WAKE, "起床");
  const r = X.REMIND.exec(text);
  if (r && !reminder) {
    const before = text.slice(0, r.index);
    // 提醒我… / 明天提醒我… / 明天下午三点我要去银行你提醒我一下
    if (!before || /^(?:我|我们)?$/.test(before) || scanDateTime(before, st.at).match || /^(?:每|我每)/.test(before)) {
      text = before + text.slice(r.index + r[0].length);
      reminder = true;
    }
  }
  if (reminder || wake) confidence = 5;
  const todo = !reminder ? X.RE_TODO.exec(text) : null;
  if (todo) {
    const t = planText(todo[1] ?? todo[2]);
    return t ? item("event", t, 5, undefined, { tag: "todo" }) : undefined;
  }
  // repeating: 每天早上七点提醒我吃药, 每周三下午游泳
  const rep = scanRepeat(text, st.at, reminder ? 8 : undefined); // a repeating reminder with no time: in the morning
  if (rep) {
    if (/每[^,]{0,4}都|每年/.test(text)) return undefined; // 我每天都六点起床: a habit, not a plan
    const hour = rep.hour, minute = rep.minute;
    if (hour === undefined) return undefined;
    const lead = text.slice(0, rep.spans[0][0]);
    if (lead && !/^(?:我们|咱们|我)$/.test(lead)) return undefined;
    const t = planText(cut(text, rep.spans));
    if (!t) return undefined;
    const out: Extracted[] = [];
    for (const d of rep.firsts) {
      const e = item("schedule", t, st.emphatic || st.correcting ? 5 : confidence || 4, fromLocal(d.year, d.month, d.day, hour, minute), { repeat: rep.repeat });
      if (e) out.push(e[0]);
    }
    return out.length ? out : undefined;
  }
  const scan = scanDateTime(text, st.at);
  const d = scan.match;
  if (!d || scan.past || scan.recurring) {
    if (!d && !scan.past && st.emphatic && /^(?:要|得|去)/.test(text)) reminder = true; // 帮我记一下要买洗衣液
    if (!reminder || scan.past || d) return undefined;
    const t = planText(text.replace(/^(?:一下)/, ""));
    return t ? item("event", t, 5, undefined, { tag: "todo" }) : undefined;
  }
  // the date comes first, or right after the speaker: "老师说明天…" is someone else's
  const lead = text.slice(0, d.spans[0][0]);
  if (lead && !/^(?:我们|咱们|我)$/.test(lead)) return undefined;
  let subject = !!lead;
  let rest = cut(text, d.spans).slice(lead.length);
  rest = rest.replace(/^(?:最后一天|那天|当天)/, "");
  const s = X.SUBJECT.exec(rest);
  if (s) {
    subject = true;
    rest = rest.slice(s[0].length);
  }
  const modal = X.MODALS.exec(rest);
  if (modal) rest = rest.slice(modal[0].length);
  if (/^是(?=..)/.test(rest)) {
    rest = rest.slice(1); // 3月15日是家长会: an occasion, not 明天是周末
    if (!X.PLAN_NOUNS.test(rest)) return undefined;
  } else if (/^有(?=..)/.test(rest)) rest = rest.slice(1);
  rest = rest.replace(/^(?:个|一个|场|一场)/, "");
  const done = /了$/.test(rest);
  rest = stripEnd(rest);
  if (rest.length < 2 || rest.length > 16) return undefined;
  if (/^[很真好太不没别的得地了]|^特别|^非常|^有点|^挺|^超/.test(rest) || X.WEATHER.test(rest)) return undefined;
  if (/^(?:喜欢|讨厌|爱|觉得|知道|认为|想念|害怕|怕|是|在)/.test(rest)) return undefined; // a state, not a plan
  if (/^(?:加油|努力|开心|快乐|高兴|周末)$|死|自杀|伤害|取消/.test(rest)) return undefined; // not something to plan for
  if (/了/.test(rest) && !modal && !reminder) return undefined; // 我今天吃了…: done, not planned
  if (done && !modal && !reminder && dayStart(d.date) <= st.at) return undefined; // 我今天去公园散步了: done today
  if (/^(?:星期|周|礼拜)[一二三四五六日天]$|[0-9一二三四五六七八九十]号$/.test(rest)) return undefined;
  if (/[你他她它]/.test(rest.charAt(0)) || /你|^再/.test(rest)) return undefined; // 明天再跟你说: about this talk
  const signal = reminder || subject || !!modal || X.PLAN_NOUNS.test(rest) || d.hour !== undefined;
  if (!signal) return undefined;
  if (!confidence) confidence = 4;
  if (st.emphatic || st.correcting) confidence = 5;
  if (d.hour !== undefined) {
    let hour = d.hour;
    if (wake && !d.period && hour >= 13 && hour <= 18) hour -= 12; // 明天六点叫醒我: the morning
    const when = fromLocal(d.date.year, d.date.month, d.date.day, hour, d.minute ?? 0);
    if (when <= st.at) return undefined;
    return item("schedule", rest, confidence, when);
  }
  return item("event", (d.period ?? "") + rest, confidence, dayStart(d.date), reminder ? { tag: "reminder" } : undefined);
};

// ---- English (simple) ---------------------------------------------------------------------------


function enDate(s: string): { month: number; day: number } | undefined {
  const t = s.toLowerCase().replace(/^on /, "").trim();
  let m = /^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?$/.exec(t);
  let mo: number, d: number;
  if (m) (mo = X.EN_MONTHS.indexOf(m[1]) + 1), (d = Number(m[2]));
  else if ((m = /^(?:the )?(\d{1,2})(?:st|nd|rd|th)? of ([a-z]+)$/.exec(t))) (mo = X.EN_MONTHS.indexOf(m[2]) + 1), (d = Number(m[1]));
  else return undefined;
  return parseMonthDay(`${mo}-${d}`);
}

function enTime(s: string | undefined, ampm: string | undefined): { hour: number; minute: number } | undefined {
  if (!s) return undefined;
  const m = /^(\d{1,2})(?::(\d\d))?$/.exec(s);
  if (!m) return undefined;
  let h = Number(m[1]);
  const min = m[2] ? Number(m[2]) : 0;
  if (h > 23 || min > 59) return undefined;
  if (ampm === "pm" && h < 12) h += 12;
  else if (ampm === "am" && h === 12) h = 0;
  else if (!ampm && h >= 1 && h <= 6) h += 12;
  return { hour: h, minute: min };
}

function english(c: string, question: boolean, st: State): Extracted[] | undefined {
  const s = c.replace(/[.!]+$/, "").trim();
  const low = s.toLowerCase();
  if (X.JOKE.test(low) || /\b(?:kidding|joking)\b/.test(low)) {
    if (st.items.length) st.items.length = 0;
    else st.cancelPrevious = true;
    return [];
  }
  if (question || /^(?:do|does|did|are|is|am|what|what's|who|where|when|why|how|can|could|will|would|should)\b/.test(low)) return [];
  if (/\b(?:maybe|probably|perhaps|might|if|used to|wish|were)\b/.test(low)) return [];
  let m = /^(?:my name is|my name's|i'm called|i am called|call me)\s+([A-Za-z][A-Za-z'-]{1,19})$/i.exec(s);
  if (m) return item("name", m[1], 5);
  m = /^i(?:'m| am) ([0-9]{1,3}|[a-z]+(?:[- ][a-z]+)?)(?: years? old)?$/i.exec(s);
  if (m) {
    const n = enNumber(m[1]);
    if (n !== undefined && n >= 1 && n <= 120) return item("age", String(n), 4);
  }
  m = /^i(?:'m| am) an? (boy|girl|man|woman)$/i.exec(s);
  if (m) return item("gender", /^(?:boy|man)$/i.test(m[1]) ? "男" : "女", 4);
  m = /^i (?:live|stay) in ([A-Za-z][A-Za-z .'-]{1,30})$/i.exec(s) ?? /^i(?:'m| am) from ([A-Za-z][A-Za-z .'-]{1,30})$/i.exec(s);
  if (m && !/^(?:a|an|the|my|our|his|her|their)\b/i.test(m[1]) && (/^i (?:live|stay)/i.test(s) || /^[A-Z]/.test(m[1]))) return item("location", m[1], 4);
  m = /^my fav(?:ou?)?rite [a-z]+ is ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m) return item("like", m[1], 4);
  m = /^i (?:really |also |just |do )?(?:like|love|enjoy|adore) ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me|anymore)\b/i.test(m[1])) return item("like", m[1], 4);
  m = /^i (?:really )?(?:don't|do not|dont|hate|can't stand|cannot stand|dislike)(?: really)?(?: like)? ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me)\b/i.test(m[1])) {
    if (/\banymore$/i.test(m[1])) return [];
    return item("dislike", m[1], 4);
  }
  m = new RegExp(`^my (${X.EN_REL})(?:'s name is|'s called| is called| is named| name is) ([A-Z][A-Za-z'-]{1,19})$`, "i").exec(s);
  if (m) return familyItem(m[1].toLowerCase(), m[2]);
  m = new RegExp(`^i have an? (${X.EN_REL}) (?:named|called) ([A-Z][A-Za-z'-]{1,19})$`, "i").exec(s);
  if (m) return familyItem(m[1].toLowerCase(), m[2]);
  m = /^my birthday is (.+)$/i.exec(s);
  if (m) {
    const d = enDate(m[1]);
    return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 5) : [];
  }
  m = /^i(?:'m| am) allergic to ([A-Za-z][A-Za-z '-]{1,20})$/i.exec(s);
  if (m) return item("fact", `主人对${m[1]}过敏`, 4);
  m = /^i(?:'m| am) an? ([a-z][a-z ]{2,20})$/i.exec(s);
  if (m && X.EN_OCCUPATIONS.test(m[1].toLowerCase())) return item("fact", `主人是${m[1]}`, 4);
  // reminders: "remind me to X [today|tomorrow|tonight] [at 6pm]", "every day at 7am remind me to X"
  m = /^(?:every (day|morning|night) )?(?:at (\d{1,2}(?::\d\d)?)\s*(am|pm)? |)remind me to (.+?)(?: (today|tomorrow|tonight))?(?: at (\d{1,2}(?::\d\d)?)\s*(am|pm)?|)(?: (today|tomorrow|tonight|every day))?$/i.exec(s);
  if (m) {
    const what = m[4].trim();
    if (!what || what.length > 40) return undefined;
    const daily = !!m[1] || (m[8] ?? "").toLowerCase() === "every day";
    const time = enTime(m[2] ?? m[6], (m[3] ?? m[7])?.toLowerCase()) ?? (m[1] === "morning" ? { hour: 8, minute: 0 } : m[1] === "night" || (m[5] ?? m[8]) === "tonight" ? undefined : undefined);
    const dayWord = (m[5] ?? m[8] ?? "").toLowerCase();
    if (!time) {
      if (dayWord === "tomorrow" || dayWord === "today") {
        const t = toLocal(st.at + (dayWord === "tomorrow" ? 86400000 : 0));
        return item("event", what, 5, fromLocal(t.year, t.month, t.day), { tag: "reminder" });
      }
      return item("event", what, 5, undefined, { tag: "todo" });
    }
    const t = toLocal(st.at);
    let when = fromLocal(t.year, t.month, t.day + (dayWord === "tomorrow" ? 1 : 0), time.hour, time.minute);
    if (daily && when <= st.at) when += 86400000;
    if (when <= st.at) return undefined;
    return item("schedule", what, 5, when, daily ? { repeat: "daily" } : undefined);
  }
  return undefined;
}

// ---- corrections of a value: 不对是三点, 不是九岁, 不对叫小红 ------------------------------------


// The last clause with X put in place of what X corrects, or undefined.
function substitute(last: string, items: Extracted[], x: string): string | undefined {
  const whole = (re: RegExp) => {
    const m = new RegExp(`^(?:${re.source})$`).exec(x);
    return !!m;
  };
  const swap = (re: RegExp) => {
    const m = new RegExp(re.source).exec(last);
    return m ? last.slice(0, m.index) + x + last.slice(m.index + m[0].length) : undefined;
  };
  if (whole(X.RE_TIME_WORD)) return swap(X.RE_TIME_WORD);
  if (whole(X.RE_MD_WORD)) return swap(X.RE_MD_WORD);
  const n = new RegExp(`^(${NUM})(岁|年级|号|点|个)?$`).exec(x);
  if (n) {
    const re = n[2] ? new RegExp(`${NUM}${n[2]}`) : new RegExp(NUM);
    return swap(re);
  }
  for (const it of items) {
    const pieces = it.value.split(":").reverse();
    for (const p of pieces) if (p && last.indexOf(p) >= 0) return last.slice(0, last.lastIndexOf(p)) + x + last.slice(last.lastIndexOf(p) + p.length);
  }
  return undefined;
}

// ---- the extractor ------------------------------------------------------------------------------

// What people say of themselves in passing (issue 24): a routine, a job, a
// goal, a condition, said as part of something else ("今天又加班到九点",
// "最近在戒糖", "我腿脚不太好"): the fact it shows, in the words of X.LIFE.
const life: Rule = (c, st) => {
  if (X.PLANNED.test(c) && scanDateTime(c, st.at).match) return undefined; // 今天晚上我要加班: a plan
  if (!/^我(?!们)/.test(c) && !/^(?:最近|今天|天天|每天|又|正在|在|刚|一直)/.test(c)) return undefined;
  if (/[你他她它]|别人|同学|朋友/.test(c.replace(/吉他|其他|其它/g, ""))) return undefined;
  for (const [re, out] of X.LIFE) {
    const m = re.exec(c);
    if (m) {
      let v = out;
      for (let k = 1; k < m.length; k++) v = v.split("$" + k).join(stripEnd(m[k] ?? ""));
      return item("fact", v, 4);
    }
  }
  return undefined;
};

// A member mentioned in passing: "我得回去给孩子做饭", "等我遛完狗", "我在医院陪我妈":
// the owner has one (no name, nothing else about them).
const mention: Rule = (c) => {
  if (/^(?:他|她|它|你)/.test(c)) return undefined;
  const list = X.RE_REL_LIST.exec(c);
  const m = list ?? X.RE_MENTION.exec(c) ?? X.RE_CARE.exec(c);
  if (!m) return undefined;
  // the member as the subject of a passing state or of something done to the
  // speaker ("我弟弟好烦", "我妈妈骂我了"): not worth a memory
  if (!list && m.index === 0 && /^我/.test(c)) {
    const rest = c.slice(m[0].length).replace(/^(?:今天|刚才|刚刚|又|还|老是|总是)+/, "");
    if (X.PASSING.test(rest) || /[我你]/.test(rest) || rest.length < 2) return undefined;
  }
  if (list) {
    const out: Extracted[] = [];
    const re = new RegExp(`(${X.REL_ALT})`, "g");
    for (let p = re.exec(list[1]); p; p = re.exec(list[1])) {
      const f = familyItem(p[1], "");
      if (f) out.push(f[0]);
    }
    for (const f of out) f.passing = true;
    return out;
  }
  const f = familyItem(m[1], "");
  if (f) f[0].passing = true;
  return f;
};

// a member only mentioned: what follows is not said about them
function mentioned(found: Extracted[]): boolean {
  return found.length > 0 && found.every((f) => f.passing === true);
}

export const RULES: readonly Rule[] = Object.freeze([othersDays, birthday, family, name, age, gender, fact, location, memberSays, nameByIAm, topical, preference, life, plan, mention]);


// Fillers in front, a particle after 我 (我呀叫贝贝) and at the end (but 了, which rules read).
function clean(c: string): string {
  let s = c;
  while (X.FILLER.test(s)) s = s.replace(X.FILLER, "");
  return s.replace(/^我[呀呢啊嘛](?=.)/, "我").replace(/[啊呀哦喔噢啦呢嘛吧哈耶哟咯~]+$/, "");
}

// A bare answer to the assistant's question: 小明 to 你叫什么名字.
function answer(text: string, context: string, at: number): Extracted[] | undefined {
  const bare = stripEnd(clean(text.replace(/[.!?,]+$/, "").split(",").join("")));
  // 你喜欢小猫吗 → 喜欢 / 不喜欢
  const yn = X.ASKS_YES_NO.exec(context);
  if (yn && bare) {
    const said = /^(?:嗯|对|是啊|当然|超级|特别|非常|很|好)*(不太喜欢|不喜欢|不爱|讨厌|喜欢|爱)(?:的|啊|呀|了)*$/.exec(bare);
    const objs = said && !X.OBJECT_STOP.test(yn[1]) && !/[我你他她它]/.test(yn[1]) ? objects(yn[1]) : undefined;
    if (said && objs) return prefItems(/不|讨厌/.test(said[1]) ? "dislike" : "like", objs, 4);
  }
  if (!bare || X.NOT_ANSWERS.test(bare) || isQuestion(bare) || /[你]/.test(bare)) return undefined;
  if (/^我/.test(bare)) {
    if (X.ASKS_AGE.test(context)) {
      const m = new RegExp(`^我(?:今年)?(${NUM})(?:周?岁)?了?$`).exec(bare);
      const n = m ? parseNumber(m[1]) : undefined;
      if (n !== undefined && n >= 1 && n <= 120) return item("age", String(n), 4);
    }
    if (X.ASKS_PLACE.test(context)) {
      const m = /^我是(.+)人$/.exec(bare);
      if (m && isPlace(m[1])) return item("location", m[1], 4);
    }
    return undefined;
  }
  if (X.ASKS_GENDER.test(context)) {
    const g = /^(?:是)?(?:个|一个)?(?:小)?(男|女)(?:孩子|孩儿|孩|生|的|娃)?$/.exec(bare);
    if (g) return item("gender", g[1], 4);
  }
  if (X.ASKS_GRADE.test(context)) {
    const g = new RegExp(`^(?:上|读|在读|念|是)?(${X.GRADE})(?:了)?$`).exec(bare);
    if (g) return item("fact", `主人上${g[1]}`, 4);
  }
  if (X.ASKS_SCHOOL.test(context)) {
    const g = /^(?:在)?([\u4e00-\u9fa5]{2,10}?(?:小学|中学|学校|幼儿园|大学|一中|二中|三中|实验|附小|附中))$/.exec(bare);
    if (g) return item("fact", `主人在${g[1]}上学`, 4);
  }
  if (X.ASKS_NAME.test(context)) {
    const m = /^(?:叫我|我叫|叫)?(.+)$/.exec(bare);
    return m && isName(m[1]) ? item("name", m[1], 4) : undefined;
  }
  if (X.ASKS_AGE.test(context)) {
    const m = new RegExp(`^(?:今年)?(${NUM})(?:周?岁)?(?:半)?了?$`).exec(bare);
    const n = m ? parseNumber(m[1]) : undefined;
    return n !== undefined && n >= 1 && n <= 120 ? item("age", String(n), 4) : undefined;
  }
  if (X.ASKS_BIRTHDAY.test(context)) {
    const d = dayOnly(bare.replace(/^(?:是|在)/, ""), at);
    return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 4) : undefined;
  }
  if (X.ASKS_PLACE.test(context)) {
    const p = bare.replace(/^(?:住在|在|住)/, "").replace(/的$/, "").replace(/人$/, "");
    return isPlace(p) ? item("location", p, 4) : undefined;
  }
  if (X.ASKS_JOB.test(context)) {
    const o = bare.replace(/^(?:是|当|做)/, "").replace(/的$/, "");
    if (X.OCCUPATIONS.indexOf(o) >= 0) return item("fact", `主人是${o}`, 4);
    const d = /^(?:我是)?(开|做|搞|干|跑|送|卖|教)(.{1,6})的$/.exec(bare);
    return d ? item("fact", `主人${d[1]}${d[2]}`, 4) : undefined;
  }
  if (X.ASKS_DISLIKE.test(context) || X.ASKS_LIKE.test(context)) {
    if (/^(?:有|是|在|去|没|不|也|都)/.test(bare) || bare.length > 16) return undefined;
    const objs = objects(bare);
    return objs ? prefItems(X.ASKS_DISLIKE.test(context) ? "dislike" : "like", objs, 4) : undefined;
  }
  return undefined;
}

function emit(st: State, found: Extracted[]): void {
  for (const f of found) {
    // another person's name, age, likes…: never the owner's ("我们家住在…" is the household's)
    if (st.other && X.SELF_KINDS.indexOf(f.kind) >= 0 && !(f.kind === "location" && /^我(?:们|家)/.test(st.clause))) continue;
    if (st.emphatic || st.correcting) f.confidence = 5;
    if (st.hedged) f.confidence = Math.min(f.confidence, 2);
    // within one utterance the last word on an identity field wins
    const single = f.kind === "name" || f.kind === "age" || f.kind === "gender" || f.kind === "location" || f.kind === "birthday";
    for (let i = st.items.length - 1; i >= 0; i--) {
      const x = st.items[i];
      if ((single && x.kind === f.kind) || (x.kind === f.kind && x.value === f.value && x.when === f.when)) st.items.splice(i, 1);
    }
    st.items.push(f);
  }
}

function runRules(c: string, st: State): Extracted[] | undefined {
  for (const rule of RULES) {
    const found = rule(c, st);
    if (found) return found;
  }
  // 我在北京工作了, 我有一个妹妹了: a state reached, read without 了 (plans keep it: 我吃了… is done)
  const bare = c.replace(/(?:了|啦)+$/, "");
  if (bare !== c && bare.length > 2)
    for (const rule of RULES) {
      if (rule === plan) continue;
      const found = rule(bare, st);
      if (found) return found;
    }
  return undefined;
}

// What one user utterance says. `context` is the assistant's line just
// before (for bare answers: 小明 to 你叫什么名字); `prior` the user's previous
// utterance in this conversation (for 不对是三点 said on its own).
export function extract(utterance: string, at: number, context?: string, prior?: string, other = false): Extraction {
  const st: State = { at, items: [], retractions: [], cancelPrevious: false, emphatic: false, correcting: false, hedged: false, selfBefore: false, member: undefined, skipRest: false, lastClause: "", lastItems: [], listKind: undefined, listVerb: "", fiction: false, forget: undefined, other, otherSaid: false, clause: "" };
  const text = normalize(utterance.length > MAX_UTTERANCE ? utterance.slice(0, MAX_UTTERANCE) : utterance);
  if (!text) return { items: [], retractions: [], cancelPrevious: false };
  if (context) {
    const a = answer(text, context, at);
    if (a) return { items: a, retractions: [], cancelPrevious: false };
    if (X.ASKS_HAS.test(context) && /^(?:嗯|对)?有/.test(text)) return extract("我" + text.replace(/^(?:嗯|对)/, ""), at);
  }
  // a short utterance that takes back what was said ("就当我没说", "忘了它吧"), read whole
  const whole = text.replace(/[,.!?、 ]/g, "");
  if (whole.length <= 14 && X.FORGET.test(whole) && !X.ASKS_END.test(whole) && !X.KEEP_IT.test(whole)) return { items: [], retractions: [], cancelPrevious: false, forget: forgetKinds(whole) };
  let first = true;
  for (const sentence of clauses(text)) {
    if (st.fiction) break;
    let carry = "";
    st.skipRest = false;
    for (const cl of sentence) {
      let c = cl.text;
      st.clause = c;
      st.hedged = false;
      if (st.skipRest) continue;
      if (!X.HAN.test(c)) {
        for (const part of c.split(/\s*(?:,|\band\b|\bbut\b)\s*(?=i\b|i'm\b|my\b|call\b|remind\b)/i)) {
          const e = english(part, cl.question, st);
          if (e) emit(st, e);
        }
        st.selfBefore = false;
        continue;
      }
      c = clean(c);
      if (!c) continue;
      // a story, a song, a role, a quoted character: nothing of the utterance is the speaker's (issue 24)
      if (X.FICTION.test(c) || X.LYRICS.test(c) || X.QUOTED.test(c) || (X.ROLE.test(c) && X.CHARACTERS.test(c.slice(2)))) {
        st.items.length = 0;
        st.retractions.length = 0;
        st.fiction = true;
        break;
      }
      // a secret: "这个是秘密" withdraws what was said, "跟你说个秘密…" what follows
      if (X.SECRET_WORD.test(c)) {
        if (!st.items.length) st.forget = "last";
        st.items.length = 0;
        st.fiction = true;
        break;
      }
      if (X.SECRET.test(c) || digitsSaid(c)) {
        st.selfBefore = false;
        st.member = undefined;
        first = false;
        continue;
      }
      // "这个别记", "名字别记", "你把我住哪忘掉吧": what was said is taken back
      if (X.FORGET.test(c) && !X.ASKS_END.test(c)) {
        const kinds = forgetKinds(c);
        const before = st.items.length;
        st.items = typeof kinds === "string" ? [] : st.items.filter((x) => kinds.indexOf(x.kind) < 0);
        if (before === st.items.length) st.forget = kinds; // nothing of it in this utterance: what the conversation said
        st.member = undefined;
        continue;
      }
      // another person speaks from here on ("我是她奶奶"), or is handed the device ("奶奶你跟它说两句")
      const hand = X.HAND_TO.exec(c);
      if (hand) {
        const who = hand[1].replace(/^(?:快|来)/, "");
        st.other = X.RELATIONS[who] !== undefined;
        st.otherSaid = true;
        continue;
      }
      const speaker = X.SPEAKER_IS.exec(c);
      if (speaker) {
        st.other = true;
        st.otherSaid = true;
        st.selfBefore = false;
        continue;
      }
      // "这是我爸爸，他叫王刚": a member introduced
      const intro = X.INTRO.exec(c);
      if (intro) {
        const rest = stripEnd(intro[2].replace(/^,/, "").replace(/^(?:他|她|它)?(?:叫做|名叫|叫)/, ""));
        const f = familyItem(intro[1], rest && isName(rest) ? rest : "");
        if (f) {
          emit(st, f);
          st.member = f[0];
          st.selfBefore = false;
        }
        continue;
      }
      // jokes and sarcasm withdraw what came before; laughter makes it unsure
      if (X.JOKE.test(c) && c.length <= 8) {
        if (st.items.length) st.items.length = 0;
        else if (first) st.cancelPrevious = true;
        st.member = undefined;
        continue;
      }
      if (/永远.{0,3}岁/.test(c)) {
        st.items = st.items.filter((x) => x.kind !== "age");
        continue;
      }
      if (X.LAUGH.test(c)) {
        if (/呵/.test(c)) st.items.length = 0;
        else for (const x of st.items) x.confidence = Math.min(x.confidence, 2);
        continue;
      }
      first = false;
      const corr = X.CORRECTION_PREFIX.exec(c) ?? (st.lastClause ? /^不是(?=.)/.exec(c) : null);
      if (corr) {
        st.correcting = true;
        c = c.slice(corr[0].length);
        if (!c) continue;
      }
      if (X.CHANGE.test(c)) {
        st.correcting = true;
        st.selfBefore = true;
        continue;
      }
      // 记住哦 / 你记得提醒我: what was just said, and what follows, is meant
      if ((X.EMPHASIS.test(c) || X.REMIND_AFTER.test(c)) && !cl.question) {
        for (const x of st.items) x.confidence = Math.max(x.confidence, 5);
        st.emphatic = true;
        continue;
      }
      if (cl.question || isQuestion(c)) {
        st.selfBefore = false;
        continue;
      }
      if (X.HYPOTHETICAL.test(c)) {
        // "等我老公回来再说", "等我遛完狗": the member is there all the same
        const said = /^(?:我)?等我/.test(c) ? mention(c, st) : undefined;
        if (said && said.length) emit(st, said);
        st.skipRest = true;
        continue;
      }
      if (/的时候/.test(c) || X.PAST_START.test(c)) {
        if (/^我(?!们)/.test(c)) st.selfBefore = true; // 我以前是工人，现在退休了: still the speaker
        continue; // 我三岁的时候…, 以前…: not now
      }
      const hedge = X.HEDGE.exec(c);
      if (hedge) {
        st.hedged = true;
        c = c.slice(0, hedge.index) + c.slice(hedge.index + hedge[0].length);
        c = c.replace(/吧$/, "");
        if (c.length < 2) continue;
      }
      const emph = X.EMPHASIS_PREFIX.exec(c);
      if (emph && emph[0].length < c.length && !X.REMIND.test(c.slice(0, emph[0].length + 3))) {
        c = c.slice(emph[0].length);
        st.emphatic = true;
      }
      // a bare corrected value: 不对是三点 / 我是三十一 / 叫小红
      if (st.correcting && (/^(?:是|叫|应该是)/.test(c) || /^我是/.test(c) || (corr && !/^我/.test(c)))) {
        const either = /^.{1,8}?而?是(.+)$/.exec(c); // 不是十点是十一点
        const x = either && corr && corr[0] === "不是" ? either[1] : c.replace(/^(?:我是|是|叫|应该是)/, "");
        const base = st.lastClause || (prior ? clean(normalize(prior)) : "");
        const fixed = x && base ? substitute(base, st.lastClause ? st.lastItems : [], x) : undefined;
        if (fixed) {
          const again = st.lastClause ? runRules(fixed, { ...st, items: [], retractions: [] }) : extract(fixed, at).items;
          if (again && again.length) {
            if (st.lastClause) st.items = st.items.filter((i) => st.lastItems.indexOf(i) < 0);
            else for (const old of extract(base, at).items) st.retractions.push({ kind: old.kind, value: old.value });
            emit(st, again);
            st.lastClause = fixed;
            st.lastItems = again;
            continue;
          }
        }
      }
      if (familyName(c, st)) continue;
      const called = relationCalled(c, st);
      if (called) {
        emit(st, called);
        if (called.length) st.member = called[0];
        continue;
      }
      // "明天下午两点，我们去图书馆": a clause that is only a date goes with the next
      if (carry) {
        c = carry + c;
        carry = "";
      }
      // 到时候喊我一声，明天下午两点…: the reminder is for what follows
      const ask = X.REMIND.exec(c);
      if (ask && ask.index === 0 && ask[0].length < c.length) {
        const restOnly = c.slice(ask[0].length);
        const day = scanDateTime(restOnly, st.at).match;
        if (day && day.spans[0][0] === 0 && day.spans[day.spans.length - 1][1] === restOnly.length) {
          st.emphatic = true;
          carry = restOnly;
          continue;
        }
      }
      const alone = scanDateTime(c, st.at).match;
      const rep = scanRepeat(c, st.at);
      if ((alone && alone.spans.length && alone.spans[0][0] === 0 && alone.spans[alone.spans.length - 1][1] === c.length) || (rep && !cut(c, rep.spans))) {
        carry = c;
        continue;
      }
      // the subject left out: the speaker ("我叫杨光，今年十岁") or the member just named ("我妹妹叫朵朵，她三岁")
      if (!/^我/.test(c)) {
        if (/^(?:他|她|它)(?!们)/.test(c) || (!st.selfBefore && st.member && X.RESTORE.test(c))) {
          const m = st.member;
          const note = m ? noteText(c) : undefined;
          if (m && note) addNote(m, note);
          continue;
        }
        if (st.selfBefore && X.RESTORE.test(c)) c = "我" + c;
      }
      // "我不叫小明" / "我不是八岁": retract, and what follows is a correction
      const neg = /^我不(叫|是)(.+)$/.exec(c);
      if (neg) {
        const probe: State = { ...st, items: [], retractions: [] };
        const r = runRules("我" + neg[1] + neg[2], probe);
        if (r) for (const x of r) if (x.kind !== "event" && x.kind !== "schedule") st.retractions.push({ kind: x.kind, value: x.value });
        st.correcting = true;
        st.selfBefore = true;
        st.member = undefined;
        continue;
      }
      const more = st.listKind && !/^我/.test(c) ? listMore(c, st) : undefined;
      if (more) {
        emit(st, more);
        continue;
      }
      const found = runRules(c, st);
      // a like said with a verb: bare things after it join it (我喜欢乐高啊, 画画啊, 还有踢足球)
      if (found && found.length && found.every((f) => f.kind === "like" || f.kind === "dislike")) {
        if (!st.listKind) st.listVerb = "";
        st.listKind = found[0].kind as "like" | "dislike";
      } else if (found && found.length) st.listKind = undefined;
      if (found && found.length) {
        emit(st, found);
        st.lastClause = c;
        st.lastItems = found;
      }
      const fam = found && found.length && found[found.length - 1].kind === "family" && !mentioned(found) ? found[found.length - 1] : undefined;
      if (fam) st.member = fam;
      else if (/^我/.test(c)) st.member = undefined;
      st.selfBefore = /^我(?!们|家)/.test(c) && !fam && (!found || found.length === 0 || found.some((f) => X.SELF_KINDS.indexOf(f.kind) >= 0));
    }
  }
  const out: Extraction = { items: st.items, retractions: st.retractions, cancelPrevious: st.cancelPrevious };
  if (st.forget) out.forget = st.forget;
  if (st.otherSaid) out.other = st.other;
  return out;
}

// What "别记" takes back: the kinds the clause names; everything said in the
// conversation (刚才说的都别记); else what was just said (这个别记).
function forgetKinds(c: string): PendingKind[] | "all" | "last" {
  const k: PendingKind[] = [];
  if (/名字|叫什么|姓名/.test(c)) k.push(/[他她]/.test(c) ? "family" : "name");
  if (/年龄|几岁|岁数/.test(c)) k.push("age");
  if (/住哪|住在哪|住址|地址|住的地方|家在哪/.test(c)) k.push("location");
  if (/生日/.test(c)) k.push("birthday");
  if (/学校|年级|工作|单位/.test(c)) k.push("fact");
  return k.length ? k : /都|全部|所有|一切|今天说的/.test(c) ? "all" : "last";
}

// An item as the labelled set writes it: the value, with the date (and time)
// in front for events and schedules.
export function label(e: Extracted): string {
  if (e.kind === "schedule" && e.when !== undefined) return `${formatDateTime(e.when)} ${e.value}${e.repeat ? " @" + e.repeat : ""}`;
  if (e.kind === "event" && e.when !== undefined) return e.tag === "yearly" ? `${formatDate(e.when).slice(5)} ${e.value}` : `${formatDate(e.when)} ${e.value}`;
  return e.value;
}
