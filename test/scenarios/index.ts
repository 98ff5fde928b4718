// Every scenario file, run by mocha (test/scenarios.test.ts) and by the XS lane (test/xs).
import type { Scenario } from "./types";
import { scenarios as preference } from "./preference.scn";
import { scenarios as nvsSpace } from "./nvs-space.scn";
import { scenarios as nvsFormat } from "./nvs-format.scn";
import { scenarios as file } from "./file.scn";
import { scenarios as spiffsTear } from "./spiffs-tear.scn";
import { scenarios as timer } from "./timer.scn";
import { scenarios as store } from "./store.scn";
import { scenarios as xsEngine } from "./xs-engine.scn";
import { scenarios as memory } from "./memory.scn";
import { scenarios as powercut } from "./powercut.scn";
import { scenarios as localTime } from "./local-time.scn";
import { scenarios as schedule } from "./schedule.scn";
import { scenarios as scheduleReminder } from "./schedule-reminder.scn";
import { scenarios as reminderReach } from "./reminder-reach.scn";
import { scenarios as clock } from "./clock.scn";
import { scenarios as mcpServer } from "./mcp-server.scn";
import { scenarios as archive } from "./archive.scn";
import { scenarios as archiveSegments } from "./archive-segments.scn";
import { scenarios as archiveTwin } from "./archive-twin.scn";
import { scenarios as archiveDamage } from "./archive-damage.scn";
import { scenarios as archiveRest } from "./archive-rest.scn";
import { scenarios as archiveGhost } from "./archive-ghost.scn";
import { scenarios as archiveTomb } from "./archive-tomb.scn";
import { scenarios as archiveRetire } from "./archive-retire.scn";
import { scenarios as archiver } from "./archiver.scn";
import { scenarios as archiveFaults } from "./archive-faults.scn";
import { scenarios as archiveMigrate } from "./archive-migrate.scn";
import { scenarios as archiveForget } from "./archive-forget.scn";
import { scenarios as archiveScrubRetire } from "./archive-scrub-retire.scn";
import { scenarios as archiveSteps } from "./archive-steps.scn";
import { scenarios as archiveRecode } from "./archive-recode.scn";
import { scenarios as archiveSummaries } from "./archive-summaries.scn";
import { scenarios as compactText } from "./compact-text.scn";
import { scenarios as factPack } from "./fact-pack.scn";
import { scenarios as memoryTool } from "./memory-tool.scn";
import { scenarios as listen } from "./listen.scn";
import { scenarios as listenPending } from "./listen-pending.scn";
import { scenarios as robust } from "./robust.scn";
import { scenarios as sdkContract } from "./sdk-contract.scn";
import { scenarios as spiffsFaults } from "./spiffs-faults.scn";
import { scenarios as listenSpeech } from "./listen-speech.scn";
import { scenarios as preload } from "./preload.scn";
import { scenarios as xiaozhi } from "./xiaozhi.scn";
import { scenarios as memoryFork } from "./memory-fork.scn";
import { scenarios as repair } from "./repair.scn";
import { scenarios as digest } from "./digest.scn";
import { scenarios as recallAll } from "./recall-all.scn";
import { scenarios as retrieval } from "./retrieval.scn";
import { scenarios as episodes } from "./episodes.scn";
import { scenarios as episodeRecall } from "./episode-recall.scn";
import { scenarios as context } from "./context.scn";

import { scenarios as query } from "./query.scn";
import { scenarios as queryScan } from "./query-scan.scn";
import { scenarios as sigElements } from "./sig-elements.scn";
import { scenarios as snapshot } from "./snapshot.scn";
import { scenarios as episodeStore } from "./episode-store.scn";
import { scenarios as episodeLean } from "./episode-lean.scn";
import { scenarios as episodeIndex } from "./episode-index.scn";
import { scenarios as passagesProtect } from "./passages-protect.scn";
import { scenarios as update } from "./update.scn";

import { scenarios as evolver } from "./evolver.scn";
import { scenarios as config } from "./config.scn";
import { scenarios as backup } from "./backup.scn";
import { scenarios as sync } from "./sync.scn";

export const allScenarios: { file: string; scenarios: Scenario[] }[] = [
  { file: "preference", scenarios: preference },
  { file: "nvs-space", scenarios: nvsSpace },
  { file: "nvs-format", scenarios: nvsFormat },
  { file: "file", scenarios: file },
  { file: "spiffs-tear", scenarios: spiffsTear },
  { file: "timer", scenarios: timer },
  { file: "store", scenarios: store },
  { file: "xs-engine", scenarios: xsEngine },
  { file: "memory", scenarios: memory },
  { file: "powercut", scenarios: powercut },
  { file: "local-time", scenarios: localTime },
  { file: "schedule", scenarios: schedule },
  { file: "schedule-reminder", scenarios: scheduleReminder },
  { file: "reminder-reach", scenarios: reminderReach },
  { file: "clock", scenarios: clock },
  { file: "mcp-server", scenarios: mcpServer },
  { file: "archive", scenarios: archive },
  { file: "archive-segments", scenarios: archiveSegments },
  { file: "archive-twin", scenarios: archiveTwin },
  { file: "archive-damage", scenarios: archiveDamage },
  { file: "archive-rest", scenarios: archiveRest },
  { file: "archive-ghost", scenarios: archiveGhost },
  { file: "archive-tomb", scenarios: archiveTomb },
  { file: "archive-retire", scenarios: archiveRetire },
  { file: "archiver", scenarios: archiver },
  { file: "archive-faults", scenarios: archiveFaults },
  { file: "archive-migrate", scenarios: archiveMigrate },
  { file: "archive-forget", scenarios: archiveForget },
  { file: "archive-scrub-retire", scenarios: archiveScrubRetire },
  { file: "archive-steps", scenarios: archiveSteps },
  { file: "archive-recode", scenarios: archiveRecode },
  { file: "archive-summaries", scenarios: archiveSummaries },
  { file: "compact-text", scenarios: compactText },
  { file: "fact-pack", scenarios: factPack },
  { file: "memory-tool", scenarios: memoryTool },
  { file: "listen", scenarios: listen },
  { file: "listen-pending", scenarios: listenPending },
  { file: "robust", scenarios: robust },
  { file: "sdk-contract", scenarios: sdkContract },
  { file: "spiffs-faults", scenarios: spiffsFaults },
  { file: "listen-speech", scenarios: listenSpeech },
  { file: "preload", scenarios: preload },
  { file: "xiaozhi", scenarios: xiaozhi },
  { file: "memory-fork", scenarios: memoryFork },
  { file: "repair", scenarios: repair },
  { file: "digest", scenarios: digest },
  { file: "recall-all", scenarios: recallAll },
  { file: "retrieval", scenarios: retrieval },
  { file: "episodes", scenarios: episodes },
  { file: "episode-recall", scenarios: episodeRecall },
  { file: "context", scenarios: context },

  { file: "query", scenarios: query },
  { file: "query-scan", scenarios: queryScan },
  { file: "sig-elements", scenarios: sigElements },
  { file: "snapshot", scenarios: snapshot },
  { file: "episode-store", scenarios: episodeStore },
  { file: "episode-lean", scenarios: episodeLean },
  { file: "episode-index", scenarios: episodeIndex },
  { file: "passages-protect", scenarios: passagesProtect },
  { file: "update", scenarios: update },

  { file: "evolver", scenarios: evolver },
  { file: "config", scenarios: config },
  { file: "backup", scenarios: backup },
  { file: "sync", scenarios: sync },
];
