/**
 * Figures of requests that carried images or audio (records schema 5: `images`, `image_bytes`,
 * `audio_clips`, `audio_bytes`): how many were sent, how many bytes, and the prompt length the
 * server reported for them (`usage.prompt_tokens`, image and audio tokens included — the client
 * cannot count those; docs/endpoints.md §Images in).
 */
import type { RequestRecord } from '../record/record.js';

export interface MediaFigures {
  /** ok requests that carried media. */
  requests: number;
  images_total: number;
  image_bytes_total: number;
  audio_clips_total: number;
  audio_bytes_total: number;
  /** Per request that carried media: means of images, bytes (images + audio) and served prompt tokens. */
  images_per_request: number;
  bytes_per_request: number;
  /** Mean `prompt_tokens` as served (null when no such request had a server count). */
  prompt_tokens_mean: number | null;
  /** Images and media bytes sent per second of the measured window (null for a window of no length). */
  images_per_s: number | null;
  bytes_per_s: number | null;
}

/** Over the ok requests of a window of `durationS`; null when none of them carried media. */
export function mediaFigures(ok: readonly RequestRecord[], durationS: number): MediaFigures | null {
  let requests = 0;
  let images = 0;
  let imageBytes = 0;
  let clips = 0;
  let audioBytes = 0;
  let served = 0;
  let servedN = 0;
  for (const r of ok) {
    if (r.images === undefined && r.audio_clips === undefined) continue;
    requests++;
    images += r.images ?? 0;
    imageBytes += r.image_bytes ?? 0;
    clips += r.audio_clips ?? 0;
    audioBytes += r.audio_bytes ?? 0;
    if (r.token_source === 'usage' && r.prompt_tokens !== null) {
      served += r.prompt_tokens;
      servedN++;
    }
  }
  if (requests === 0) return null;
  const per = (x: number): number | null => (durationS > 0 ? x / durationS : null);
  const bytes = imageBytes + audioBytes;
  return {
    requests,
    images_total: images,
    image_bytes_total: imageBytes,
    audio_clips_total: clips,
    audio_bytes_total: audioBytes,
    images_per_request: images / requests,
    bytes_per_request: bytes / requests,
    prompt_tokens_mean: servedN > 0 ? served / servedN : null,
    images_per_s: per(images),
    bytes_per_s: per(bytes),
  };
}
