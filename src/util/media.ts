/**
 * Images and audio as bytes: what a file is by its magic bytes, an image's size from its header,
 * a WAV's duration, and the simulator's rule for the prompt tokens they cost (docs/endpoints.md
 * §Images in, §Audio in). The workload checks files with it before a run; the simulator (over
 * HTTP and in virtual time) counts tokens with it, so both sides use one rule.
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';
export type AudioFormat = 'wav' | 'mp3' | 'flac' | 'ogg';

const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export function imageMime(f: ImageFormat): string {
  return IMAGE_MIME[f];
}

const ascii = (b: Uint8Array, at: number, s: string): boolean => {
  if (b.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};

/** The image format of these bytes by their magic number (PNG, JPEG, GIF, WebP); null for anything else. */
export function sniffImage(b: Uint8Array): ImageFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, 'PNG\r\n\x1a\n')) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return 'gif';
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return 'webp';
  return null;
}

/** The audio format of these bytes by their magic number (RIFF/WAVE, MP3 with ID3 or a frame sync, FLAC, Ogg); null otherwise. */
export function sniffAudio(b: Uint8Array): AudioFormat | null {
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE')) return 'wav';
  if (ascii(b, 0, 'fLaC')) return 'flac';
  if (ascii(b, 0, 'OggS')) return 'ogg';
  if (ascii(b, 0, 'ID3')) return 'mp3';
  // An MPEG audio frame header: 11 sync bits, then a layer that is not "reserved".
  if (b.length >= 2 && b[0] === 0xff && ((b[1] as number) & 0xe0) === 0xe0 && ((b[1] as number) & 0x06) !== 0) return 'mp3';
  return null;
}

const u16be = (b: Uint8Array, i: number): number => ((b[i] as number) << 8) | (b[i + 1] as number);
const u16le = (b: Uint8Array, i: number): number => (b[i] as number) | ((b[i + 1] as number) << 8);
const u32be = (b: Uint8Array, i: number): number => (b[i] as number) * 0x1000000 + (b[i + 1] as number) * 0x10000 + u16be(b, i + 2);
const u32le = (b: Uint8Array, i: number): number => u16le(b, i) + u16le(b, i + 2) * 65536;
const u24le = (b: Uint8Array, i: number): number => u16le(b, i) + (b[i + 2] as number) * 65536;

/** Width and height from an image's header (PNG IHDR, JPEG SOFn, GIF screen, WebP VP8/VP8L/VP8X); null when unreadable. */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const f = sniffImage(b);
  if (f === 'png') {
    if (b.length < 24 || !ascii(b, 12, 'IHDR')) return null;
    return { width: u32be(b, 16), height: u32be(b, 20) };
  }
  if (f === 'gif') return b.length < 10 ? null : { width: u16le(b, 6), height: u16le(b, 8) };
  if (f === 'webp') {
    if (ascii(b, 12, 'VP8X') && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
    if (ascii(b, 12, 'VP8L') && b.length >= 25) {
      const bits = u32le(b, 21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (ascii(b, 12, 'VP8 ') && b.length >= 30) return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
    return null;
  }
  if (f === 'jpeg') {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1] as number;
      if (marker === 0xff) {
        i++;
        continue;
      }
      // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: u16be(b, i + 7), height: u16be(b, i + 5) };
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2;
        continue;
      }
      i += 2 + u16be(b, i + 2);
    }
    return null;
  }
  return null;
}

/** A WAV's duration in seconds from its `fmt ` and `data` chunks; null when they cannot be read. */
export function wavDurationS(b: Uint8Array): number | null {
  if (sniffAudio(b) !== 'wav') return null;
  let byteRate = 0;
  for (let i = 12; i + 8 <= b.length; ) {
    const size = u32le(b, i + 4);
    if (ascii(b, i, 'fmt ') && i + 16 <= b.length) byteRate = u32le(b, i + 16);
    if (ascii(b, i, 'data')) return byteRate > 0 ? Math.min(size, b.length - i - 8) / byteRate : null;
    i += 8 + size + (size & 1);
  }
  return null;
}

/**
 * The simulator's image-token rule: one token per 28×28-pixel tile, ⌈width / 28⌉ · ⌈height / 28⌉
 * (Qwen2-VL's 14-pixel patches merged 2×2, without its resizing). 256×256 → 100; 1280×720 → 1,196.
 */
export const IMAGE_TILE_PX = 28;
export function imageTokens(width: number, height: number): number {
  return Math.ceil(width / IMAGE_TILE_PX) * Math.ceil(height / IMAGE_TILE_PX);
}
/** An image the simulator cannot see (a remote URL it does not fetch) counts as this size. */
export const UNSEEN_IMAGE_PX = 512;

/** The simulator's audio-token rule: 25 tokens per second of audio (Qwen2-Audio's encoder rate), at least 1. */
export const AUDIO_TOKENS_PER_S = 25;
export function audioTokens(seconds: number): number {
  return Math.max(1, Math.ceil(seconds * AUDIO_TOKENS_PER_S));
}

/**
 * Seconds of audio in a clip: a WAV's from its header; any other format (or a WAV whose header
 * does not say) by its size at 128 kbit/s (16,000 bytes a second), the simulator's assumption.
 */
export const ASSUMED_AUDIO_BYTES_PER_S = 16_000;
export function audioDurationS(b: Uint8Array): number {
  return wavDurationS(b) ?? b.length / ASSUMED_AUDIO_BYTES_PER_S;
}

/** What a workload item carries beside its text (workload/types.ts WorkItem.media). */
export type MediaItem =
  | { type: 'image'; /** A data URL (`data:image/png;base64,…`) or an http(s) URL sent as is. */ url: string; /** Image bytes (0 for a URL not read). */ bytes: number; width: number | null; height: number | null }
  | { type: 'audio'; format: AudioFormat; /** The file's bytes in base64. */ data: string; bytes: number; duration_s: number | null };

/** Prompt tokens the simulator adds for an item's media, by the rules above (virtual time). */
export function mediaTokens(media: readonly MediaItem[] | undefined): number {
  if (!media) return 0;
  let n = 0;
  for (const m of media) {
    if (m.type === 'image') n += imageTokens(m.width ?? UNSEEN_IMAGE_PX, m.height ?? UNSEEN_IMAGE_PX);
    else n += audioTokens(m.duration_s ?? 1);
  }
  return n;
}

/** The record's media fields (records schema 5) for an item's media: only the kinds it sent. */
export function mediaRecordFields(media: readonly MediaItem[] | undefined): { images?: number; image_bytes?: number; audio_clips?: number; audio_bytes?: number } {
  let images = 0;
  let imageBytes = 0;
  let clips = 0;
  let audioBytes = 0;
  for (const m of media ?? []) {
    if (m.type === 'image') {
      images++;
      imageBytes += m.bytes;
    } else {
      clips++;
      audioBytes += m.bytes;
    }
  }
  return { ...(images > 0 ? { images, image_bytes: imageBytes } : {}), ...(clips > 0 ? { audio_clips: clips, audio_bytes: audioBytes } : {}) };
}
