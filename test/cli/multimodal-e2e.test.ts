/**
 * Images in, end to end through the CLI: random-mm, a folder and a JSONL over real HTTP against
 * the built-in simulator, and random-mm in virtual time. Ground truth is the simulator's rule
 * (⌈w/28⌉·⌈h/28⌉ tokens per image): a run with images and the same run without them differ,
 * request by request, by exactly that many served prompt tokens. Bad input: one line, exit 2.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { encodePng, noisePixels, pngBytes } from '../../src/workload/media/png.js';
import { runCli, runSaved } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ recs: RequestRecord[]; stdout: string; json: Record<string, unknown> }> {
  const { recs, stdout, analyzed } = await runSaved(args, dirs);
  return { recs, stdout, json: JSON.parse(analyzed.stdout) as Record<string, unknown> };
}

const http = ['run', '--endpoint-type', 'chat', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '12', '--random-input-len', '32', '--random-output-len', '4', '--workers', '1', '--prompt-salt', '', '--no-capacity-check'];
// 56 high, 84 wide: ⌈84/28⌉·⌈56/28⌉ = 6 tokens an image.
const mm = ['--dataset-name', 'random-mm', '--random-mm-base-items-per-request', '2', '--random-mm-num-mm-items-range-ratio', '0.5', '--random-mm-bucket-config', '{(56, 84, 1): 1.0}'];

const fixtures = mkdtempSync(join(tmpdir(), 'infermeter-images-'));
dirs.push(fixtures);
const folder = join(fixtures, 'folder');
mkdirSync(folder);
const pngA = encodePng(28, 28, noisePixels(28, 28, 1)); // 1 token
const pngB = encodePng(60, 30, noisePixels(60, 30, 2)); // 3 × 2 = 6 tokens
writeFileSync(join(folder, 'a.png'), pngA);
writeFileSync(join(folder, 'b.png'), pngB);
writeFileSync(join(fixtures, 'set.jsonl'), [JSON.stringify({ prompt: 'what is in the first picture?', image: 'folder/a.png' }), JSON.stringify({ prompt: 'and in these two?', images: ['folder/a.png', 'folder/b.png'] })].join('\n'));

describe('images over HTTP against the simulator', () => {
  it('random-mm: each request carries 1–3 images of the bucket size, and its served prompt is 6 tokens an image longer than the same text alone', async () => {
    const withImages = await run([...http, ...mm]);
    const textOnly = await run([...http, '--dataset-name', 'random']);
    expect(withImages.recs).toHaveLength(12);
    const counts = new Set<number>();
    for (const r of withImages.recs) {
      const t = textOnly.recs[r.id]!;
      expect(r.status).toBe('ok');
      expect(r.token_source).toBe('usage');
      expect(r.images).toBeGreaterThanOrEqual(1);
      expect(r.images).toBeLessThanOrEqual(3);
      counts.add(r.images!);
      expect(r.image_bytes).toBe(r.images! * pngBytes(84, 56));
      expect(r.client_prompt_tokens).toBe(t.client_prompt_tokens);
      expect(r.prompt_tokens! - t.prompt_tokens!).toBe(6 * r.images!);
      expect(r.usage_rejected).toBeUndefined();
      expect(t.images).toBeUndefined();
    }
    expect(counts.size).toBeGreaterThan(1);
    const images = withImages.recs.reduce((n, r) => n + r.images!, 0);
    const media = (withImages.json.metrics as { media: { images_total: number; image_bytes_total: number; prompt_tokens_mean: number } }).media;
    expect([media.images_total, media.image_bytes_total]).toEqual([images, images * pngBytes(84, 56)]);
    expect(media.prompt_tokens_mean).toBeCloseTo(withImages.recs.reduce((n, r) => n + r.prompt_tokens!, 0) / 12, 9);
    expect(withImages.stdout).toMatch(new RegExp(`^Media: 12 requests carried ${images} images \\(${(images / 12).toFixed(2)} per request, `, 'm'));
    expect((textOnly.json.metrics as { media: unknown }).media).toBeNull();
    // The prompt-length check leaves image requests out: nothing to say about them.
    expect(withImages.stdout).not.toMatch(/prompts were served/);
  });

  it('a folder of images: one image a request in a seeded order, each file sent whole', async () => {
    const { recs } = await run([...http, '--dataset-name', 'images', '--dataset-path', folder]);
    const sizes = new Map([[pngA.length, 1], [pngB.length, 6]]);
    const text = await run([...http, '--dataset-name', 'random']);
    let a = 0;
    for (const r of recs) {
      expect(r.images).toBe(1);
      expect(sizes.has(r.image_bytes!)).toBe(true);
      if (r.image_bytes === pngA.length) a++;
      expect(r.prompt_tokens! - text.recs[r.id]!.prompt_tokens!).toBe(sizes.get(r.image_bytes!));
    }
    // Each pass sends every file once: 12 requests over 2 files = 6 each.
    expect(a).toBe(6);
  });

  it('a JSONL with image and images fields (paths relative to the file)', async () => {
    const { recs } = await run([...http, '--dataset-name', 'jsonl', '--dataset-path', join(fixtures, 'set.jsonl'), '--sampling', 'sequential']);
    expect(recs.map((r) => [r.images, r.image_bytes])).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? [1, pngA.length] : [2, pngA.length + pngB.length])));
  });
});

describe('images in virtual time', () => {
  it('sim run random-mm: the served prompt is the text plus 6 tokens an image, the bytes those of the PNGs HTTP sends', async () => {
    const { recs, stdout } = await run(['sim', 'run', '--endpoint-type', 'chat', '--request-rate', '20', '--num-prompts', '10', '--random-input-len', '64', ...mm]);
    expect(recs).toHaveLength(10);
    for (const r of recs) {
      expect(r.prompt_tokens! - r.client_prompt_tokens!).toBe(6 * r.images!);
      expect(r.image_bytes).toBe(r.images! * pngBytes(84, 56));
    }
    expect(stdout).toMatch(/^Media: 10 requests carried \d+ images/m);
  });
});

describe('bad input: one line, exit 2, before any load', () => {
  const one = async (args: string[], pattern: RegExp): Promise<void> => {
    const out = await runCli([...http, ...args, '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr.trim()).toMatch(pattern);
  };

  it('a file that is not an image, a missing file, images to an endpoint that takes none, a video bucket', async () => {
    const bad = join(fixtures, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'a.png'), pngA);
    writeFileSync(join(bad, 'notes.png'), 'these are notes, not pixels');
    await one(['--dataset-name', 'images', '--dataset-path', bad], /^error: .*bad\/notes\.png: not an image \(its first bytes are not PNG, JPEG, GIF or WebP\)$/);
    writeFileSync(join(fixtures, 'missing.jsonl'), JSON.stringify({ prompt: 'p', image: 'nowhere.png' }));
    await one(['--dataset-name', 'jsonl', '--dataset-path', join(fixtures, 'missing.jsonl')], /^error: .*missing\.jsonl:1: .*nowhere\.png: no such file$/);
    await one(['--dataset-name', 'images', '--dataset-path', join(fixtures, 'nofolder')], /no such folder$/);
    const completions = await runCli([...http.filter((a) => a !== 'chat' && a !== '--endpoint-type'), ...mm, '--no-save']);
    expect([completions.code, completions.stderr.trim()]).toEqual([2, 'error: workload: random-mm sends images, which the completions endpoint does not take; use --endpoint-type chat (/v1/chat/completions)']);
    await one(['--dataset-name', 'random-mm', '--random-mm-bucket-config', '{(720, 1280, 16): 1}'], /is a video bucket; only images/);
    await one(['--dataset-name', 'random-mm', '--random-mm-bucket-config', '{256: 1}'], /^error: --random-mm-bucket-config: cannot read/);
  });
});

describe('audio in chat', () => {
  it('random-audio over HTTP: one 2 s WAV a request, 50 more served prompt tokens than the text alone; in virtual time the same', async () => {
    const audio = ['--dataset-name', 'random-audio', '--audio-duration-ms', '2000'];
    const { recs, json } = await run([...http, ...audio]);
    const text = await run([...http, '--dataset-name', 'random']);
    for (const r of recs) {
      expect([r.status, r.audio_clips, r.audio_bytes, r.images]).toEqual(['ok', 1, 44 + 64000, undefined]);
      expect(r.prompt_tokens! - text.recs[r.id]!.prompt_tokens!).toBe(50);
    }
    expect((json.metrics as { media: { audio_clips_total: number } }).media.audio_clips_total).toBe(12);
    const sim = await run(['sim', 'run', '--endpoint-type', 'chat', '--request-rate', '20', '--num-prompts', '5', '--random-input-len', '64', ...audio]);
    for (const r of sim.recs) expect([r.audio_clips, r.audio_bytes, r.prompt_tokens! - r.client_prompt_tokens!]).toEqual([1, 44 + 64000, 50]);
  });

  it('a folder with a file that is not audio: one line naming it, exit 2', async () => {
    const dir = join(fixtures, 'sounds');
    mkdirSync(dir);
    writeFileSync(join(dir, 'clip.wav'), 'RIFF but not really');
    const out = await runCli([...http, '--dataset-name', 'audio', '--dataset-path', dir, '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toMatch(/^error: .*sounds\/clip\.wav: not audio \(its first bytes are not RIFF\/WAVE, MP3, FLAC or Ogg\)$/);
  });
});
