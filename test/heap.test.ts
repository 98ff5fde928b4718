// The XS heap budget (npm run heap): petmem's peak fits 75% of the ESP32-S3's
// default creation, and the instrument it is measured with sees what it must.
import assert from "node:assert/strict";
import { ensureHeapWorker } from "./xs/heap-worker";
import { Xsnap } from "./xs/xsnap";
import { measureHeap, GOAL, type HeapResult } from "../tools/heap";

describe("XS heap (npm run heap)", function () {
  this.timeout(420000); // the first run builds the worker (about 1 min); the workload takes about 1 min here

  let r: HeapResult;
  before(async () => {
    r = await measureHeap();
  });

  it("ran the whole workload: 100 MCP messages, 88 of episodes (all answered), two conversations, archiving with upkeep steps, reminders", () => {
    const w = r.workload as { messages: number; replies: number; error_replies: number; reminders: number; heard: number; archive_steps: number; archive: { fact: number; moment: number } };
    assert.equal(w.heard, 19);
    assert.equal(w.messages, 188);
    assert.equal(w.replies, 187); // one notification
    assert.equal(w.error_replies, 3); // the three bad messages it sends on purpose: every episode call succeeded
    assert.ok(r.phases.episodes && r.phases.episodes.peak_slots > 0, "the episodes phase ran and was measured");
    assert.ok(w.reminders >= 5, `reminders ${w.reminders}`);
    assert.ok(w.archive_steps >= 1, `archive steps ${w.archive_steps}`);
    assert.ok(w.archive.fact > 0 && w.archive.moment > 0, "the archiver moved facts and moments");
  });

  it(`peaks within ${GOAL * 100}% of the ESP32-S3 creation, stack within the manifest's`, () => {
    assert.ok(r.boot_slots > 0 && r.boot_chunk_bytes > 0);
    assert.ok(r.peak_slots >= r.boot_slots && r.peak_chunk_bytes >= r.boot_chunk_bytes);
    assert.ok(r.use.peak_slots <= GOAL, `peak ${r.peak_slots} slots is ${r.use.peak_slots} of ${r.creation.heap}`);
    assert.ok(r.use.peak_chunk_bytes <= GOAL, `peak ${r.peak_chunk_bytes} chunk bytes is ${r.use.peak_chunk_bytes} of ${r.creation.chunk}`);
    assert.ok(r.stack_peak > 0 && r.stack_peak < r.creation.stack, `stack ${r.stack_peak} of ${r.creation.stack}`);
    assert.equal(r.fits, true);
  });

  it("sync (a push, an idle sync, a pull through the memory's rules) is within the 75% goal (DESIGN.md \"Sync\")", () => {
    const w = r.workload as { syncs: { pushed: number; pulled: number }[] };
    assert.equal(w.syncs.length, 3);
    assert.ok(w.syncs[0].pushed > 50, `the push pushed ${w.syncs[0].pushed}`);
    assert.equal(`${w.syncs[1].pushed}/${w.syncs[1].pulled}`, "0/0", "the idle sync moved nothing");
    assert.ok(w.syncs[2].pulled >= 40, `the pull applied ${w.syncs[2].pulled}`);
    assert.ok(r.sync.use.peak_slots <= GOAL, `sync peak ${r.sync.peak_slots} slots is ${r.sync.use.peak_slots}`);
    assert.ok(r.sync.fits_creation, `sync peak ${r.sync.peak_chunk_bytes} chunk bytes is ${r.sync.use.peak_chunk_bytes} of the creation`);
    assert.ok(r.sync.use.peak_chunk_bytes <= GOAL, `sync peak ${r.sync.peak_chunk_bytes} chunk bytes is ${r.sync.use.peak_chunk_bytes}: above the 75% goal (DESIGN.md "Sync")`);
    assert.equal(r.sync.within_goal, true);
  });

  it("the instrument sees a live set grow and shrink, and counts the stack", async () => {
    const xs = new Xsnap({ bin: ensureHeapWorker({ quiet: true }) });
    try {
      const bytes = await xs.evaluate(`(() => {
        const b = new ArrayBuffer(32), v = new Int32Array(b), out = [];
        heapStats(b, 2, 32);
        gc(); heapStats(b, 1); const s0 = v[0], c0 = v[2];
        let keep = []; for (let i = 0; i < 3000; i++) keep.push({ i, s: "x" + i });
        heapStats(b, 0); out.push(v[1] - s0, v[3] - c0);
        keep = null; gc(); heapStats(b, 0); out.push(v[0] - s0);
        heapStats(b, 1); const d0 = v[4];
        const deep = (n) => (n ? deep(n - 1) + 1 : 0); deep(40);
        heapStats(b, 0); out.push(v[4] - d0);
        heapStats(b, 2, 0);
        return new TextEncoder().encode(JSON.stringify(out)).buffer;
      })()`);
      const [peakSlots, peakChunks, afterSlots, stack] = JSON.parse(new TextDecoder().decode(bytes)) as number[];
      assert.ok(peakSlots >= 3000 * 2, `3000 live objects, peak ${peakSlots} slots`);
      assert.ok(peakChunks >= 3000 * 4, `3000 live strings, peak ${peakChunks} chunk bytes`);
      assert.ok(afterSlots < 100, `after they die: ${afterSlots} slots`);
      assert.ok(stack >= 40, `40 nested calls, ${stack} stack slots`);
    } finally {
      await xs.close();
    }
  });
});
