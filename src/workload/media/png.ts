/**
 * A PNG written with node:zlib alone (no image dependency): 8-bit RGB, filter 0 on every row,
 * the pixel rows in stored (level 0) deflate blocks: noise does not compress, and storing is five
 * times faster than level 1 (docs/workloads.md §Images). What the synthetic image workload sends.
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG of width × height RGB pixels (`rgb` row-major, 3 bytes a pixel). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  if (rgb.length !== width * height * 3) throw new Error(`encodePng: ${rgb.length} bytes for ${width}×${height} RGB`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  const row = width * 3;
  const raw = Buffer.alloc((row + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * row, (y + 1) * row), y * (row + 1) + 1);
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 0 })), chunk('IEND', new Uint8Array(0))]);
}

/**
 * Random noise pixels from a 32-bit seed (xorshift32): each image distinct, so a server's
 * multimodal cache, which keys images by their content, never serves one from an earlier request.
 */
export function noisePixels(width: number, height: number, seed: number): Uint8Array {
  const n = width * height * 3;
  const words = new Uint32Array(Math.ceil(n / 4));
  let s = seed >>> 0 || 0x9e3779b9;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    words[i] = s >>> 0;
  }
  return new Uint8Array(words.buffer, 0, n);
}

const sizes = new Map<string, number>();
/**
 * The bytes of encodePng(width, height, ·) without building pixels: stored deflate blocks depend
 * only on the length, so one encoding of zeros per size gives it (virtual time's records).
 */
export function pngBytes(width: number, height: number): number {
  const key = `${width}x${height}`;
  let n = sizes.get(key);
  if (n === undefined) {
    n = encodePng(width, height, new Uint8Array(width * height * 3)).length;
    sizes.set(key, n);
  }
  return n;
}
