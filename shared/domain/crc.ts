// CRC-32 as zlib computes it (IEEE polynomial, reflected), because the crc printed on a slot must
// match what any integrator gets from zlib.crc32 / java.util.zip.CRC32 on the serial number.
// Node 20's zlib has no crc32 (it arrived in Node 22), hence this table-driven version.

const POLYNOMIAL = 0xedb88320;

const TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) {
      c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
    }
    table[n] = c >>> 0;
  }
  return table;
})();

const encoder = new TextEncoder();

/** The slot crc of a serial number: CRC-32 of its UTF-8 bytes, 8 upper-case hex digits. */
export function crc32Hex(serialNumber: string): string {
  let crc = 0xffffffff;
  for (const byte of encoder.encode(serialNumber)) {
    crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return ((crc ^ 0xffffffff) >>> 0).toString(16).toUpperCase().padStart(8, '0');
}
