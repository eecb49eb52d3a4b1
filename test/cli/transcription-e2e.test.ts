/**
 * The transcription kind end to end through the CLI: `run --endpoint-type transcription` with
 * random-audio against the built-in simulator over HTTP (streamed and not), `sim run` in virtual
 * time, and bad input in one line (exit 2). Ground truth is the simulator's audio rule (25 prompt
 * tokens a second): a 2 s clip is a 50-token prompt, whatever text the dataset drew.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runSaved } from '../helpers/cli.js';
import { synthWav } from '../../src/workload/media/audio.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const audio = ['--dataset-name', 'random-audio', '--audio-duration-ms', '2000'];
const http = ['run', '--endpoint-type', 'transcription', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '8', '--random-input-len', '32', '--random-output-len', '5', '--workers', '1', '--no-capacity-check', ...audio];

describe('transcription', () => {
  it('over HTTP, streamed: its path, one chunk per token, the audio alone as the prompt (50 tokens), TTFT in the summary and result.json', async () => {
    const { recs, stdout, analyzed } = await runSaved(http, dirs);
    expect(stdout).toContain('(/v1/audio/transcriptions)');
    expect(stdout).toMatch(/^TTFT \(ms\) +8 /m);
    expect(stdout).toMatch(/^Media: 8 requests carried 8 audio clips/m);
    // vLLM's transcription API has no ignore_eos: shorter answers are the model's, not a server ignoring it.
    expect(stdout).not.toContain('despite ignore_eos');
    expect(recs.some((r) => r.output_tokens < 5)).toBe(true);
    expect(recs).toHaveLength(8);
    for (const r of recs) {
      expect([r.status, r.token_source, r.prompt_tokens, r.client_prompt_tokens, r.audio_clips]).toEqual(['ok', 'usage', 50, null, 1]);
      expect(r.output_tokens).toBeLessThanOrEqual(5);
      expect(r.chunk_ms.length).toBe(r.output_tokens);
    }
    const json = JSON.parse(analyzed.stdout) as { metrics: { latency: { ttft_ms: { count: number } }; media: { audio_clips_total: number } } };
    expect([json.metrics.latency.ttft_ms.count, json.metrics.media.audio_clips_total]).toEqual([8, 8]);
  });

  it('over HTTP, --no-stream: whole answers, output tokens by the estimate of their text', async () => {
    const { recs } = await runSaved([...http, '--no-stream'], dirs);
    expect(recs).toHaveLength(8);
    for (const r of recs) expect([r.status, r.token_source, r.chunk_ms.length, r.first_token_ms]).toEqual(['ok', 'tokenizer', 1, r.end_ms]);
  });

  it('in virtual time: the same prompts (the audio alone) and one chunk per token', async () => {
    const { recs } = await runSaved(['sim', 'run', '--endpoint-type', 'transcription', '--request-rate', '20', '--num-prompts', '6', '--random-input-len', '64', '--random-output-len', '4', ...audio], dirs);
    expect(recs).toHaveLength(6);
    for (const r of recs) expect([r.status, r.prompt_tokens, r.client_prompt_tokens, r.audio_clips, r.chunk_ms.length]).toEqual(['ok', 50, null, 1, r.output_tokens]);
  });

  it('a JSONL whose lines name audio files: each line its clip (served prompt 25 tokens a second); a line naming a file that is not audio stops the run in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-jsonl-audio-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'two.wav'), synthWav(2000, 1));
    writeFileSync(join(dir, 'four.wav'), synthWav(4000, 2));
    writeFileSync(join(dir, 'set.jsonl'), [JSON.stringify({ prompt: 'not sent', audio: 'two.wav' }), JSON.stringify({ prompt: 'not sent either', audio: join(dir, 'four.wav') })].join('\n'));
    const { recs } = await runSaved(['run', '--endpoint-type', 'transcription', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '6', '--random-output-len', '3', '--workers', '1', '--no-capacity-check', '--dataset-name', 'jsonl', '--dataset-path', join(dir, 'set.jsonl'), '--sampling', 'sequential'], dirs);
    expect(recs.map((r) => [r.status, r.audio_clips, r.prompt_tokens])).toEqual([0, 1, 2, 3, 4, 5].map((i) => ['ok', 1, i % 2 === 0 ? 50 : 100]));
    writeFileSync(join(dir, 'bad.jsonl'), [JSON.stringify({ prompt: 'a', audio: 'two.wav' }), JSON.stringify({ prompt: 'b', audio: 'set.jsonl' })].join('\n'));
    const bad = await runCli(['run', '--endpoint-type', 'transcription', '--dataset-name', 'jsonl', '--dataset-path', join(dir, 'bad.jsonl'), '--num-prompts', '2', '--no-save']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(`error: ${join(dir, 'bad.jsonl')}:2: ${join(dir, 'set.jsonl')}: not audio (its first bytes are not RIFF/WAVE, MP3, FLAC or Ogg)`);
  });

  it('a workload without audio, or a folder with a file that is not audio: one line, exit 2', async () => {
    const text = await runCli(['run', '--endpoint-type', 'transcription', '--num-prompts', '2', '--no-save']);
    expect([text.code, text.stderr.trim()]).toEqual([2, 'error: workload: the transcription endpoint sends an audio clip per request, and --dataset-name random has none; use --dataset-name random-audio, or audio --dataset-path DIR']);
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-sounds-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'clip.wav'), 'not a wav at all');
    const bad = await runCli(['run', '--endpoint-type', 'transcription', '--dataset-name', 'audio', '--dataset-path', dir, '--num-prompts', '2', '--no-save']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^error: .*clip\.wav: not audio \(its first bytes are not RIFF\/WAVE, MP3, FLAC or Ogg\)$/);
    const images = await runCli(['run', '--endpoint-type', 'transcription', '--dataset-name', 'random-mm', '--num-prompts', '2', '--no-save']);
    expect([images.code, images.stderr.trim()]).toEqual([2, 'error: workload: random-mm sends images, which the transcription endpoint does not take; use --endpoint-type chat (/v1/chat/completions)']);
  });
});
