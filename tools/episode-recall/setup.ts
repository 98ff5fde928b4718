// The store and signatures the recall bench runs on: the device's.
import { EpisodeStore } from "../../src/episode/store";
import { signature, similarity } from "../../src/episode/sig";
import type { EpisodeStoreApi } from "../../src/episode/types";
import type { Signer } from "../../src/episode/episodes";

export const STORE = "src/episode/store.ts on the simulated storage partition";
export const makeStore = (): EpisodeStoreApi => new EpisodeStore();
export const signer: Signer = { signature: (t, k) => signature(t, k.slice()), similarity };
