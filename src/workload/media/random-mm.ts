/**
 * vLLM's random multimodal dataset (`--dataset-name random-mm`, vllm/benchmarks/datasets.py
 * RandomMultiModalDataset): the random dataset's text, plus N images per request, N uniform on
 * [⌊n(1−r)⌋, ⌈n(1+r)⌉] (n = --random-mm-base-items-per-request, r =
 * --random-mm-num-mm-items-range-ratio) capped at the sum of --random-mm-limit-mm-per-prompt,
 * each image's size drawn from --random-mm-bucket-config ((height, width, frames) → probability,
 * normalized). Images are random noise PNGs generated here from the seed (png.ts), distinct per
 * request. Video buckets (frames > 1) are refused: only images are generated.
 */
import { UserError } from '../../errors/user-error.js';
import type { MediaItem } from '../../util/media.js';
import { createRng, type Rng } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { WorkItem, Workload } from '../types.js';
import { encodePng, noisePixels, pngBytes } from './png.js';

export interface MmBucket {
  height: number;
  width: number;
  num_frames: number;
  probability: number;
}

/** vLLM's defaults (RandomMultiModalDataset.DEFAULT_*). */
export const DEFAULT_MM_BUCKETS: readonly MmBucket[] = [
  { height: 256, width: 256, num_frames: 1, probability: 0.5 },
  { height: 720, width: 1280, num_frames: 1, probability: 0.5 },
  { height: 720, width: 1280, num_frames: 16, probability: 0 },
];
export const DEFAULT_MM_LIMIT: Readonly<Record<string, number>> = { image: 255, video: 1 };
export const DEFAULT_MM_BASE_ITEMS = 1;

/** Largest image side accepted: 16k pixels (a 16384² RGB image is 768 MiB already). */
const MAX_SIDE = 16384;

/**
 * `--random-mm-bucket-config` as vLLM takes it: a Python dict literal with tuple keys,
 * `{(256, 256, 1): 0.5, (720, 1280, 1): 0.5}`, or JSON with the tuples quoted.
 */
export function parseBucketConfig(text: string, flag = '--random-mm-bucket-config'): MmBucket[] {
  const t = text.trim();
  const bad = (why: string): UserError => new UserError(`${flag}: ${why} in ${JSON.stringify(text)} (form: '{(HEIGHT, WIDTH, FRAMES): PROBABILITY, …}', e.g. '{(256, 256, 1): 0.5, (720, 1280, 1): 0.5}')`);
  if (!t.startsWith('{') || !t.endsWith('}')) throw bad('expected a dict');
  const body = t.slice(1, -1).trim();
  if (body === '') throw bad('no bucket');
  const entry = /^\s*(["']?)\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\1\s*:\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*(?:,|$)/;
  const out: MmBucket[] = [];
  let rest = body;
  while (rest.trim() !== '') {
    const m = entry.exec(rest);
    if (!m) throw bad(`cannot read ${JSON.stringify(rest.trim().slice(0, 30))}`);
    out.push({ height: Number(m[2]), width: Number(m[3]), num_frames: Number(m[4]), probability: Number(m[5]) });
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** `--random-mm-limit-mm-per-prompt`: JSON, modality → most items per request (`{"image": 3, "video": 0}`). */
export function parseMmLimit(text: string, flag = '--random-mm-limit-mm-per-prompt'): Record<string, number> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UserError(`${flag}: expected a JSON object such as '{"image": 3, "video": 0}', got ${JSON.stringify(text)}`);
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new UserError(`${flag}: "${k}" must be a non-negative integer, got ${JSON.stringify(n)}`);
    out[k] = n;
  }
  return out;
}

/** The bucket list checked: sizes in range, probabilities summing above 0, no video with a chance of being drawn. */
export function checkBuckets(buckets: readonly MmBucket[], field: string): MmBucket[] {
  const live = buckets.filter((b) => b.probability > 0);
  if (live.length === 0) throw new UserError(`${field}: every bucket has probability 0`);
  for (const b of live) {
    if (b.num_frames !== 1) throw new UserError(`${field}: (${b.height}, ${b.width}, ${b.num_frames}) is a video bucket; only images (frames = 1) are generated — give it probability 0`);
    if (b.height < 1 || b.width < 1 || b.height > MAX_SIDE || b.width > MAX_SIDE) throw new UserError(`${field}: (${b.height}, ${b.width}, 1): sides must be 1–${MAX_SIDE} pixels`);
  }
  return live;
}

export interface MmPlan {
  min: number;
  max: number;
  buckets: MmBucket[];
  imageLimit: number;
}

/** The per-request item range and the image buckets, refused in one line when they cannot be met. */
export function mmPlan(spec: SubWorkloadSpec, field: string): MmPlan {
  const base = spec.random_mm_base_items_per_request ?? DEFAULT_MM_BASE_ITEMS;
  const r = spec.random_mm_num_mm_items_range_ratio ?? 0;
  const limits = spec.random_mm_limit_mm_per_prompt ?? DEFAULT_MM_LIMIT;
  const buckets = checkBuckets(spec.random_mm_bucket_config ?? DEFAULT_MM_BUCKETS, `${field}.random_mm_bucket_config`);
  const imageLimit = limits['image'] ?? 0;
  const total = Object.values(limits).reduce((a, b) => a + b, 0);
  const min = Math.floor(base * (1 - r));
  const max = Math.min(Math.ceil(base * (1 + r)), total);
  if (min > max) throw new UserError(`${field}: at least ${min} multimodal items per request (--random-mm-base-items-per-request ${base}, range ratio ${r}) but --random-mm-limit-mm-per-prompt allows ${total}`);
  // Only images are generated: items past the image limit could only be videos, which are refused.
  if (min > imageLimit) throw new UserError(`${field}: at least ${min} images per request but --random-mm-limit-mm-per-prompt allows ${imageLimit} images (only images are generated)`);
  return { min, max: Math.min(max, imageLimit), buckets, imageLimit };
}

/** One request's image sizes: the count, then each size, from `rng`. */
export function drawImageSizes(plan: MmPlan, rng: Rng): Array<{ width: number; height: number }> {
  const n = rng.int(plan.min, plan.max);
  const total = plan.buckets.reduce((a, b) => a + b.probability, 0);
  const out: Array<{ width: number; height: number }> = [];
  for (let i = 0; i < n; i++) {
    let u = rng.next() * total;
    let pick = plan.buckets[plan.buckets.length - 1]!;
    for (const b of plan.buckets) {
      if (u < b.probability) {
        pick = b;
        break;
      }
      u -= b.probability;
    }
    out.push({ width: pick.width, height: pick.height });
  }
  return out;
}

/** A noise PNG of this size as a data URL; `lengthsOnly`: no pixels, only the size and bytes. */
export function syntheticImage(width: number, height: number, seed: number, lengthsOnly: boolean): MediaItem {
  if (lengthsOnly) return { type: 'image', url: '', bytes: pngBytes(width, height), width, height };
  const png = encodePng(width, height, noisePixels(width, height, seed));
  return { type: 'image', url: `data:image/png;base64,${png.toString('base64')}`, bytes: png.length, width, height };
}

/**
 * The random workload with images: each item gets its draw of images, from a stream of its own
 * (the text and lengths are the random dataset's, draw for draw). The prompt salt changes the
 * pixels as it changes the words, so a repeated run does not hit a server's multimodal cache.
 */
export function randomImagesWorkload(w: Workload, spec: SubWorkloadSpec, seed: number, lengthsOnly: boolean, field: string): Workload {
  const plan = mmPlan(spec, field);
  const rng = createRng(`random-mm:${seed}:${spec.prompt_salt ?? ''}`);
  const attach = (item: WorkItem): WorkItem => {
    const media = drawImageSizes(plan, rng).map((s) => syntheticImage(s.width, s.height, rng.int(0, 0xffffffff), lengthsOnly));
    return media.length === 0 ? item : { ...item, media };
  };
  const meanItems = (plan.min + plan.max) / 2;
  return {
    ...bindAll(w),
    next: () => attach(w.next()),
    get skipped() {
      return w.skipped;
    },
    media: ['image'],
    describe: () => ({
      ...w.describe(),
      dataset: 'random-mm',
      images_per_request: { min: plan.min, max: plan.max, mean: meanItems },
      image_buckets: plan.buckets.map((b) => ({ height: b.height, width: b.width, probability: b.probability })),
    }),
  };
}

/** The optional methods of a workload, bound, for a wrapper that replaces next(). */
function bindAll(w: Workload): Partial<Workload> {
  return {
    ...(w.countTokens ? { countTokens: w.countTokens.bind(w) } : {}),
    ...(w.lengthBounds ? { lengthBounds: w.lengthBounds.bind(w) } : {}),
    ...(w.answerSources ? { answerSources: w.answerSources.bind(w) } : {}),
  };
}
