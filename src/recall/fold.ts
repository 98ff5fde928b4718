// An episode as it is folded into its month's digest when forgotten (issue 25
// item 6; src/archive/archive.ts foldEpisodes): who (the relatives it names),
// what and where (its keywords), how it felt (its emotion in words), and its
// text as the gist.
import type { Episode } from "../episode/types";
import { relationsIn } from "./terms";

const FEELING: Record<string, string> = { happy: "开心", sad: "难过", excited: "兴奋", worried: "担心", touched: "感动" };

export function foldOf(ep: Episode): { id: number; content: string; keywords: string[]; createdAt: number; feeling?: string } {
  const kw: string[] = [];
  for (const k of relationsIn(ep.content).concat(ep.keywords)) if (kw.indexOf(k) < 0) kw.push(k);
  const f = FEELING[ep.emotion];
  return f ? { id: ep.id, content: ep.content, keywords: kw, createdAt: ep.createdAt, feeling: f } : { id: ep.id, content: ep.content, keywords: kw, createdAt: ep.createdAt };
}
