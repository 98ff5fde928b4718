// `tsx tools/digest.ts` inside XS: the heap and time one DigestBuilder needs
// to fold a retired segment's records, measured with the heap worker's
// counters (test/xs/heap-worker.ts). The records are made before measuring:
// the archive core hands them over one at a time as it reads a segment.
import { DigestBuilder, digestBytes, type DigestInput } from "../../src/archive/digest";
import { fromLocal } from "../../src/time/local";

declare function heapStats(out: ArrayBuffer, op?: number, arg?: number): void;
declare function gc(): void;
declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

const S = new ArrayBuffer(32);
const v = new Int32Array(S);
const POOL = "春夏秋冬山水花草鸟鱼猫狗书画歌舞球跑跳笑哭风雨雪云星月田林江湖桥路门窗灯车船茶饭汤面果糖北京游泳学校朋友妈妈爸爸";

function records(kind: "dense" | "sparse", n: number): DigestInput[] {
  let x = 12345;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 0x100000000);
  const out: DigestInput[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let content = "";
    for (let k = 0; k < 78; k++) content += POOL.charAt(Math.floor(next() * POOL.length)); // ~240 bytes, a long moment
    // dense: a 64 KB segment of moments over about three months; sparse: past events, one a month for 33 years
    const t = kind === "dense" ? fromLocal(2026, 1, 1) / 1000 + i * 20000 : fromLocal(1990, 1 + i, 15) / 1000;
    out[i] =
      kind === "dense"
        ? { t, type: "moment", topic: "话题" + (i % 9), content, importance: 1 + (i % 5), emotion_type: i % 6, emotion_intensity: i % 4 }
        : { t, type: "event", topic: "生日", content, significance: 1 + (i % 5), emotion_type: i % 6 };
  }
  return out;
}

// With `period`, in the heap worker: heap peaks; without, in the plain device-like worker: time.
function measure(kind: "dense" | "sparse", n: number, period: number): Record<string, number> {
  const recs = records(kind, n);
  let baseSlots = 0, baseChunks = 0;
  if (period) {
    gc();
    heapStats(S, 1);
    baseSlots = v[0];
    baseChunks = v[2];
    heapStats(S, 2, period);
  }
  const t0 = Date.now();
  let emitted = 0, most = 0;
  const b = new DigestBuilder((d) => {
    emitted++; // the archive core writes it as a line of the digest stream
    most = Math.max(most, digestBytes(d));
  });
  let held = 0;
  for (const r of recs) {
    b.add(r);
    if (b.held() > held) held = b.held();
  }
  const digests = b.take();
  const ms = Date.now() - t0;
  let peakSlots = 0, peakChunks = 0;
  if (period) {
    heapStats(S, 0);
    peakSlots = v[1] - baseSlots;
    peakChunks = v[3] - baseChunks;
    heapStats(S, 2, 0);
  }
  for (const d of digests) most = Math.max(most, digestBytes(d));
  const out: Record<string, number> = { records: n, digests: emitted + digests.length, largest_digest_bytes: most, held_strings: held };
  if (period) {
    out.peak_slots = peakSlots;
    out.peak_chunk_bytes = peakChunks;
  } else out.xs_ms = ms;
  return out;
}

function main(o: { period: number }): void {
  const out = { dense: measure("dense", 400, o.period), sparse: measure("sparse", 400, o.period) };
  const bytes = new TextEncoder().encode(JSON.stringify(out));
  issueCommand(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

(globalThis as unknown as { __digest: unknown }).__digest = { main };
