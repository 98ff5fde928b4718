// The device's `trace` global for host runs: device logs go to stderr, so that
// stdout stays free for a protocol (MCP stdio).
import { installTrace } from "./trace-sink.js";
installTrace();
