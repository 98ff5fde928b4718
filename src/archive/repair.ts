// (placeholder until the repair branch lands: no repair)
export function repairBit(_buf: Uint8Array, _s: number, _e: number, _crc: number): number {
  return -1;
}
export function repairLine(_buf: Uint8Array, _s: number, _e: number): number {
  return -1;
}
