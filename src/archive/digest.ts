// (placeholder until the digest branch lands)
export interface DigestInput { t: number; type: "moment" | "event"; topic?: string; content: string; importance?: number; significance?: number; emotion_type?: number }
export interface Digest { month: string; from: number; to: number; moments: number; events: number; keywords: string[]; points: string[]; emotions: number[] }
export class DigestBuilder {
  private all: DigestInput[] = [];
  add(x: DigestInput): void { this.all.push(x); }
  take(): Digest[] { const a = this.all; this.all = []; if (!a.length) return []; return [{ month: "", from: a[0].t, to: a[a.length - 1].t, moments: a.length, events: 0, keywords: [], points: a.slice(0, 3).map((x) => x.content), emotions: [] }]; }
}
