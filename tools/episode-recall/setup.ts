// The store and signatures the recall bench runs on.
import { FakeEpisodeStore, fakeSigner } from "../../test/scenarios/episode-fake";
import type { EpisodeStoreApi } from "../../src/episode/types";
import type { Signer } from "../../src/episode/episodes";

export const STORE = "ram stand-in (test/scenarios/episode-fake.ts)";
export const makeStore = (): EpisodeStoreApi => new FakeEpisodeStore();
export const signer: Signer = fakeSigner;
