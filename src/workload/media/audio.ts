/**
 * Audio in chat (`input_audio` parts): synthetic clips (`--dataset-name random-audio`, seeded
 * WAV, 16 kHz mono 16-bit, durations from `--audio-duration-ms`) and local files (`--dataset-name
 * audio --dataset-path DIR`, a folder; or a JSONL line's `audio` field). Every file is checked by
 * its magic bytes before the run (RIFF/WAVE, MP3, FLAC, Ogg): anything else is one line naming
 * the file and the reason, exit 2.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import { audioDurationS, sniffAudio, type AudioFormat, type MediaItem } from '../../util/media.js';
import { createRng, shuffle } from '../../util/rng.js';
import { lengthSampler } from '../lengths.js';
import type { LengthDist, SubWorkloadSpec } from '../spec.js';
import type { WorkItem, Workload } from '../types.js';
import { MAX_IMAGE_BYTES } from './files.js';

export const SYNTH_SAMPLE_RATE = 16_000;
/** Default clip length of random-audio: 5 s. */
export const DEFAULT_AUDIO_DURATION: LengthDist = { kind: 'fixed', value: 5000 };
/** Longest synthetic clip: 10 minutes (19.2 MB of WAV). */
const MAX_CLIP_MS = 600_000;

/** The bytes of a WAV of `ms` milliseconds at 16 kHz mono 16-bit: 44 header bytes + 32 a millisecond. */
export function wavBytes(ms: number): number {
  return 44 + Math.round((ms * SYNTH_SAMPLE_RATE) / 1000) * 2;
}

/**
 * A seeded WAV clip: a tone whose pitch the seed picks, with noise, so every clip differs (a
 * server that caches by content never serves one from an earlier request).
 */
export function synthWav(ms: number, seed: number): Buffer {
  const n = Math.round((ms * SYNTH_SAMPLE_RATE) / 1000);
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + n * 2, 4);
  b.write('WAVE', 8, 'latin1');
  b.write('fmt ', 12, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(SYNTH_SAMPLE_RATE, 24);
  b.writeUInt32LE(SYNTH_SAMPLE_RATE * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(n * 2, 40);
  let s = seed >>> 0 || 0x9e3779b9;
  const hz = 120 + (s % 400);
  const step = (2 * Math.PI * hz) / SYNTH_SAMPLE_RATE;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const noise = ((s >>> 0) / 0x100000000 - 0.5) * 2000;
    b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(Math.sin(i * step) * 8000 + noise))), 44 + i * 2);
  }
  return b;
}

function clip(bytes: Buffer, format: AudioFormat): MediaItem {
  return { type: 'audio', format, data: bytes.toString('base64'), bytes: bytes.length, duration_s: audioDurationS(bytes) };
}

/** random-audio: the random dataset's text plus one synthetic clip a request. */
export function randomAudioWorkload(w: Workload, spec: SubWorkloadSpec, seed: number, lengthsOnly: boolean): Workload {
  const rng = createRng(`random-audio:${seed}:${spec.prompt_salt ?? ''}`);
  const dist = spec.audio_duration_ms ?? DEFAULT_AUDIO_DURATION;
  const draw = lengthSampler(dist, rng.fork());
  const attach = (item: WorkItem): WorkItem => {
    const ms = Math.min(MAX_CLIP_MS, Math.max(100, draw()));
    const s = rng.int(0, 0xffffffff);
    const media: MediaItem = lengthsOnly ? { type: 'audio', format: 'wav', data: '', bytes: wavBytes(ms), duration_s: ms / 1000 } : clip(synthWav(ms, s), 'wav');
    return { ...item, media: [media] };
  };
  return wrap(w, attach, () => ({ dataset: 'random-audio', audio_duration_ms: dist }));
}

/** Audio files read and checked, by path. */
export class AudioStore {
  private readonly held = new Map<string, { bytes: Buffer; format: AudioFormat }>();
  private total = 0;

  async addFile(path: string, where: string | null): Promise<void> {
    if (this.held.has(path)) return;
    const at = where === null ? path : `${where}: ${path}`;
    let bytes: Buffer;
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new UserError(`${at}: not a file`);
      if (this.total + st.size > MAX_IMAGE_BYTES) throw new UserError(`${at}: the audio files add up to more than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB, held in memory for the run`);
      bytes = await readFile(path);
    } catch (e) {
      if (e instanceof UserError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UserError(`${at}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot read (${code ?? String(e)})`}`);
    }
    const format = sniffAudio(bytes);
    if (format === null) throw new UserError(`${at}: not audio (its first bytes are not RIFF/WAVE, MP3, FLAC or Ogg)`);
    this.total += bytes.length;
    this.held.set(path, { bytes, format });
  }

  item(path: string, sizeOnly: boolean): MediaItem {
    const h = this.held.get(path)!;
    return sizeOnly ? { type: 'audio', format: h.format, data: '', bytes: h.bytes.length, duration_s: audioDurationS(h.bytes) } : clip(h.bytes, h.format);
  }
}

/** audio: the random dataset's text plus one clip a request from a folder, in a seeded order (file order with --sampling sequential). */
export async function audioFolderWorkload(w: Workload, spec: SubWorkloadSpec, seed: number, dir: string, field: string, lengthsOnly: boolean): Promise<Workload> {
  let names: string[];
  try {
    if (!(await stat(dir)).isDirectory()) throw new UserError(`${field}: ${dir} is not a folder (--dataset-name audio reads a folder of audio files)`);
    names = (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${field}: ${dir}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`}`);
  }
  const files = names.map((n) => join(dir, n));
  const store = new AudioStore();
  for (const f of files) await store.addFile(f, null);
  if (files.length === 0) throw new UserError(`${field}: ${dir} holds no audio file`);
  const rng = createRng(`audio:${seed}`);
  let order: string[] = [];
  let at = 0;
  const attach = (item: WorkItem): WorkItem => {
    if (at >= order.length) {
      order = spec.sampling === 'sequential' ? [...files] : shuffle(rng, [...files]);
      at = 0;
    }
    return { ...item, media: [store.item(order[at++]!, lengthsOnly)] };
  };
  return wrap(w, attach, () => ({ dataset: 'audio', path: dir, audio_files: files.length }));
}

function wrap(w: Workload, attach: (item: WorkItem) => WorkItem, more: () => Record<string, unknown>): Workload {
  return {
    ...(w.countTokens ? { countTokens: w.countTokens.bind(w) } : {}),
    ...(w.lengthBounds ? { lengthBounds: w.lengthBounds.bind(w) } : {}),
    next: () => attach(w.next()),
    get skipped() {
      return w.skipped;
    },
    media: ['audio'],
    describe: () => ({ ...w.describe(), ...more() }),
  };
}
