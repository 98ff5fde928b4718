// The seeded generator of host-sim (mulberry32), so workloads replay identically.
export { prng as rng } from "../../host-sim/flash";
