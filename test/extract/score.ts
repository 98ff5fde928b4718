// Scores the extractor on the labelled utterances (test/extract/utterances.json).
// Item level: an extracted item is a true positive when the same utterance
// expects an item of the same type with the same value (each expected item
// matches at most one extracted item). precision = true positives / items
// extracted; recall = true positives / items expected. Utterances that
// expect nothing count only in precision. Pure: runs under Node and in XS.
import { extract, label } from "../../src/listen/extract";

export interface Utterance {
  text: string;
  context?: string;
  expect: [string, string][];
  heldout?: boolean;
}

export interface LabelledSet {
  now: string;
  utterances: Utterance[];
}

export interface Score {
  utterances: number;
  precision: number;
  recall: number;
  extracted: number;
  expected: number;
  matched: number;
}

export interface Miss {
  text: string;
  missing: string[]; // expected, not extracted
  wrong: string[]; // extracted, not expected
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function score(set: LabelledSet, which: (u: Utterance) => boolean = () => true): { score: Score; misses: Miss[] } {
  const at = Date.parse(set.now);
  let extracted = 0, expected = 0, matched = 0, n = 0;
  const misses: Miss[] = [];
  for (const u of set.utterances) {
    if (!which(u)) continue;
    n++;
    const got = extract(u.text, at, u.context).items.map((i) => `${i.kind}=${label(i)}`);
    const want = u.expect.map(([t, v]) => `${t}=${v}`);
    extracted += got.length;
    expected += want.length;
    const left = want.slice();
    const wrong: string[] = [];
    for (const g of got) {
      const k = left.indexOf(g);
      if (k >= 0) {
        left.splice(k, 1);
        matched++;
      } else wrong.push(g);
    }
    if (left.length || wrong.length) misses.push({ text: u.text, missing: left, wrong });
  }
  return {
    score: { utterances: n, precision: extracted ? round(matched / extracted) : 1, recall: expected ? round(matched / expected) : 1, extracted, expected, matched },
    misses,
  };
}
