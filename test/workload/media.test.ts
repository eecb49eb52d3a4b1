/**
 * Images in (issue 26): magic bytes and header sizes, the PNG writer (decoded back with
 * node:zlib), vLLM's random-mm flags and draws, the chat body's parts, the simulator's token rule.
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chatKind } from '../../src/client/endpoints/openai.js';
import { parseRequest } from '../../src/sim/http/request-parse.js';
import { audioDurationS, imageSize, imageTokens, mediaTokens, sniffAudio, sniffImage, wavDurationS } from '../../src/util/media.js';
import { createRng } from '../../src/util/rng.js';
import { encodePng, noisePixels, pngBytes } from '../../src/workload/media/png.js';
import { drawImageSizes, mmPlan, parseBucketConfig, parseMmLimit, syntheticImage } from '../../src/workload/media/random-mm.js';
import { defaultWorkloadSpec } from '../../src/workload/spec.js';
import type { WorkItem } from '../../src/workload/types.js';

const bytes = (...xs: Array<number | string>): Uint8Array =>
  Uint8Array.from(xs.flatMap((x) => (typeof x === 'string' ? [...x].map((c) => c.charCodeAt(0)) : [x])));

describe('magic bytes and sizes', () => {
  it('knows PNG, JPEG, GIF and WebP by their first bytes, and nothing else', () => {
    const png = encodePng(3, 2, noisePixels(3, 2, 1));
    expect(sniffImage(png)).toBe('png');
    expect(imageSize(png)).toEqual({ width: 3, height: 2 });
    // JPEG: SOI, an APP0 segment of 16 bytes, then SOF0 with height 480 and width 640.
    const jpeg = bytes(0xff, 0xd8, 0xff, 0xe0, 0, 16, ...new Array<number>(14).fill(0), 0xff, 0xc0, 0, 17, 8, 0x01, 0xe0, 0x02, 0x80, 3, 0, 0, 0, 0);
    expect(sniffImage(jpeg)).toBe('jpeg');
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
    const gif = bytes('GIF89a', 0x2c, 0x01, 0x90, 0x00);
    expect([sniffImage(gif), imageSize(gif)]).toEqual(['gif', { width: 300, height: 144 }]);
    // WebP lossless (VP8L): width−1 and height−1 in 14 bits each after the 0x2f signature.
    const w = 1000 - 1;
    const h = 700 - 1;
    const bits = (w | (h << 14)) >>> 0;
    const webp = bytes('RIFF', 0, 0, 0, 0, 'WEBP', 'VP8L', 0, 0, 0, 0, 0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255);
    expect([sniffImage(webp), imageSize(webp)]).toEqual(['webp', { width: 1000, height: 700 }]);
    for (const not of [bytes('hello world'), bytes('RIFF', 0, 0, 0, 0, 'WAVE'), bytes(0x89, 'PNX'), new Uint8Array(0)]) expect(sniffImage(not)).toBeNull();
  });

  it('knows WAV, MP3, FLAC and Ogg, and reads a WAV duration from its header', () => {
    const wav = Buffer.alloc(44 + 32000);
    wav.write('RIFF', 0, 'latin1');
    wav.write('WAVE', 8, 'latin1');
    wav.write('fmt ', 12, 'latin1');
    wav.writeUInt32LE(16, 16);
    wav.writeUInt32LE(32000, 28); // byte rate: 16 kHz mono 16-bit
    wav.write('data', 36, 'latin1');
    wav.writeUInt32LE(32000, 40);
    expect([sniffAudio(wav), wavDurationS(wav), audioDurationS(wav)]).toEqual(['wav', 1, 1]);
    expect(sniffAudio(bytes('ID3', 4, 0))).toBe('mp3');
    expect(sniffAudio(bytes(0xff, 0xfb, 0x90))).toBe('mp3');
    expect(sniffAudio(bytes('fLaC'))).toBe('flac');
    expect(sniffAudio(bytes('OggS'))).toBe('ogg');
    expect(sniffAudio(bytes('%PDF-1.7'))).toBeNull();
    expect(audioDurationS(new Uint8Array(8000))).toBe(0.5);
  });
});

describe('PNG writer', () => {
  it('writes the pixels it was given: IDAT inflates to filter-0 rows of them', () => {
    const px = noisePixels(5, 4, 42);
    const png = encodePng(5, 4, px);
    const len = png.readUInt32BE(33);
    expect(png.toString('latin1', 37, 41)).toBe('IDAT');
    const raw = inflateSync(png.subarray(41, 41 + len));
    expect(raw.length).toBe(4 * (1 + 15));
    for (let y = 0; y < 4; y++) {
      expect(raw[y * 16]).toBe(0);
      expect([...raw.subarray(y * 16 + 1, y * 16 + 16)]).toEqual([...px.subarray(y * 15, y * 15 + 15)]);
    }
    expect(pngBytes(5, 4)).toBe(png.length);
    expect(png.toString('latin1', png.length - 8, png.length - 4)).toBe('IEND');
  });

  it('noise differs by seed and repeats for one seed', () => {
    expect(Buffer.from(noisePixels(8, 8, 1)).equals(Buffer.from(noisePixels(8, 8, 1)))).toBe(true);
    expect(Buffer.from(noisePixels(8, 8, 1)).equals(Buffer.from(noisePixels(8, 8, 2)))).toBe(false);
  });
});

describe("random-mm: vLLM's flags", () => {
  it('reads the bucket config as vLLM writes it (tuple keys), and JSON with quoted keys', () => {
    const want = [
      { height: 256, width: 256, num_frames: 1, probability: 0.7 },
      { height: 720, width: 1280, num_frames: 1, probability: 0.3 },
    ];
    expect(parseBucketConfig('{(256, 256, 1): 0.7, (720, 1280, 1): 0.3}')).toEqual(want);
    expect(parseBucketConfig('{"(256, 256, 1)": 0.7, "(720,1280,1)": 0.3}')).toEqual(want);
    expect(() => parseBucketConfig('{(256, 256): 1}')).toThrow(/--random-mm-bucket-config: cannot read/);
    expect(parseMmLimit('{"image": 3, "video": 0}')).toEqual({ image: 3, video: 0 });
    expect(() => parseMmLimit('{"image": -1}')).toThrow(/"image" must be a non-negative integer/);
  });

  it('draws counts uniform on [⌊n(1−r)⌋, ⌈n(1+r)⌉] capped by the image limit, sizes by probability, deterministic', () => {
    const spec = { ...defaultWorkloadSpec(), random_mm_base_items_per_request: 2, random_mm_num_mm_items_range_ratio: 0.5, random_mm_limit_mm_per_prompt: { image: 2 }, random_mm_bucket_config: parseBucketConfig('{(10, 20, 1): 0.25, (30, 40, 1): 0.75, (30, 40, 16): 0}') };
    const plan = mmPlan(spec, 'workload');
    expect([plan.min, plan.max]).toEqual([1, 2]);
    const a = createRng(7);
    const draws = Array.from({ length: 4000 }, () => drawImageSizes(plan, a));
    const counts = new Set(draws.map((d) => d.length));
    expect([...counts].sort()).toEqual([1, 2]);
    const all = draws.flat();
    const small = all.filter((s) => s.width === 20).length / all.length;
    expect(small).toBeGreaterThan(0.2);
    expect(small).toBeLessThan(0.3);
    const b = createRng(7);
    expect(Array.from({ length: 4000 }, () => drawImageSizes(plan, b))).toEqual(draws);
  });

  it('refuses a video bucket that can be drawn, and more items than the limits allow, in one line', () => {
    const base = defaultWorkloadSpec();
    expect(() => mmPlan({ ...base, random_mm_bucket_config: parseBucketConfig('{(720, 1280, 16): 1}') }, 'workload')).toThrow(/is a video bucket; only images \(frames = 1\) are generated/);
    expect(() => mmPlan({ ...base, random_mm_base_items_per_request: 4, random_mm_limit_mm_per_prompt: { image: 3 } }, 'workload')).toThrow(/at least 4 multimodal items per request .* allows 3/);
    // vLLM's defaults: one image, 256² or 720×1280 (the 16-frame video bucket has probability 0).
    expect(mmPlan(base, 'workload')).toMatchObject({ min: 1, max: 1, buckets: [{ width: 256 }, { width: 1280 }] });
  });
});

describe('the chat body and the simulator', () => {
  const item: WorkItem = { prompt: 'describe', messages: null, prompt_tokens: 2, max_tokens: 4, task: null, expected: null, session: null, turn: null, media: [syntheticImage(84, 56, 3, false), { type: 'image', url: 'https://example.com/a.jpg', bytes: 0, width: null, height: null }] };
  const opts = { model: 'm', stream: true, ignoreEos: false, extraBody: {} };

  it('sends the text first, then one image_url part per image, in the last user message', () => {
    const body = chatKind.buildBody(item, opts) as { messages: Array<{ role: string; content: unknown }> };
    expect(body.messages).toHaveLength(1);
    const parts = body.messages[0]!.content as Array<Record<string, unknown>>;
    expect(parts[0]).toEqual({ type: 'text', text: 'describe' });
    expect((parts[1] as { image_url: { url: string } }).image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(parts[2]).toEqual({ type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } });
    // Text only: the body is what it always was (the hot path untouched).
    const plain = chatKind.buildBody({ ...item, media: undefined }, opts) as { messages: unknown };
    expect(plain.messages).toEqual([{ role: 'user', content: 'describe' }]);
  });

  it('the simulator adds ⌈w/28⌉·⌈h/28⌉ tokens per image it can see and 512×512 for a URL; virtual time uses the same rule', () => {
    const body = JSON.stringify(chatKind.buildBody(item, opts));
    const text = parseRequest('chat', JSON.stringify(chatKind.buildBody({ ...item, media: undefined }, opts)), 16);
    const withImages = parseRequest('chat', body, 16);
    expect(imageTokens(84, 56)).toBe(6);
    expect(withImages.promptTokens - text.promptTokens).toBe(6 + 19 * 19);
    expect(mediaTokens(item.media)).toBe(6 + 19 * 19);
    const notImage = JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('not an image').toString('base64')}` } }] }] });
    expect(() => parseRequest('chat', notImage, 16)).toThrow(/Failed to load image/);
  });
});

describe('audio in chat', () => {
  it('synthetic WAV: 16 kHz mono 16-bit, the duration asked, distinct by seed; sent as an input_audio part the simulator counts at 25 tokens a second', async () => {
    const { synthWav, wavBytes } = await import('../../src/workload/media/audio.js');
    const wav = synthWav(1500, 9);
    expect([sniffAudio(wav), wavDurationS(wav), wav.length, wavBytes(1500)]).toEqual(['wav', 1.5, 44 + 48000, 44 + 48000]);
    expect(synthWav(200, 1).equals(synthWav(200, 2))).toBe(false);
    const item: WorkItem = { prompt: 'transcribe', messages: null, prompt_tokens: 3, max_tokens: 4, task: null, expected: null, session: null, turn: null, media: [{ type: 'audio', format: 'wav', data: wav.toString('base64'), bytes: wav.length, duration_s: 1.5 }] };
    const body = chatKind.buildBody(item, { model: 'm', stream: false, ignoreEos: false, extraBody: {} }) as { messages: Array<{ content: Array<Record<string, unknown>> }> };
    expect(body.messages[0]!.content[1]).toEqual({ type: 'input_audio', input_audio: { data: wav.toString('base64'), format: 'wav' } });
    const withAudio = parseRequest('chat', JSON.stringify(body), 16).promptTokens;
    const text = parseRequest('chat', JSON.stringify(chatKind.buildBody({ ...item, media: undefined }, { model: 'm', stream: false, ignoreEos: false, extraBody: {} })), 16).promptTokens;
    expect(withAudio - text).toBe(38); // ⌈1.5 × 25⌉
    expect(mediaTokens(item.media)).toBe(38);
    const notAudio = JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: Buffer.from('plain text').toString('base64'), format: 'wav' } }] }] });
    expect(() => parseRequest('chat', notAudio, 16)).toThrow(/Failed to load audio/);
  });
});

describe('records schema 5', () => {
  it('media fields survive records.jsonl, the typed columns and the export table; an older line reads without them', async () => {
    const { emptyRecord } = await import('../../src/record/record.js');
    const { recordFromJsonLine, recordToJsonLine } = await import('../../src/record/jsonl.js');
    const { RecordColumns } = await import('../../src/record/record-columns.js');
    const { RECORD_COLUMNS } = await import('../../src/export/record-columns.js');
    const rec = { ...emptyRecord(3, 10), end_ms: 20, status: 'ok' as const, images: 2, image_bytes: 9000, audio_clips: 1, audio_bytes: 64044 };
    const back = recordFromJsonLine(recordToJsonLine(rec));
    expect([back.images, back.image_bytes, back.audio_clips, back.audio_bytes]).toEqual([2, 9000, 1, 64044]);
    const cols = new RecordColumns();
    cols.add(back);
    const view = cols.view(0);
    expect([view.images, view.image_bytes, view.audio_clips, view.audio_bytes]).toEqual([2, 9000, 1, 64044]);
    const row = Object.fromEntries(RECORD_COLUMNS.filter((c) => /^(image|audio)/.test(c.name)).map((c) => [c.name, c.get(view)]));
    expect(row).toEqual({ images: 2, image_bytes: 9000, audio_clips: 1, audio_bytes: 64044 });
    const old = recordFromJsonLine(recordToJsonLine({ ...emptyRecord(4, 10), end_ms: 20 }));
    expect([old.images, old.audio_clips]).toEqual([undefined, undefined]);
  });
});

describe('the usage check and image requests', () => {
  it("believes a served prompt far longer than the text when the request carried media (1280×720 images are 1,196 tokens each), not otherwise", async () => {
    const { checkUsage } = await import('../../src/client/usage-check.js');
    const usage = { prompt_tokens: 32 + 4 * 1196, completion_tokens: 8 };
    expect(checkUsage(usage, 32, null, true)).toBeNull();
    expect(checkUsage(usage, 32, null)).toMatch(/cannot belong to the prompt sent/);
    // Shorter than the text is still impossible, media or not.
    expect(checkUsage({ prompt_tokens: 0, completion_tokens: 8 }, 5000, null, true)).toMatch(/cannot belong/);
  });
});
