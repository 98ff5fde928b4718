// The partition table reader moved to desktop/partitions.ts (desktop may not
// import tools; tools may import desktop).
export * from "../desktop/partitions.js";
