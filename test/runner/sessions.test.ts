/**
 * Multi-turn sessions over real HTTP: turns of a conversation go one after another with the
 * think time between them, each carrying the history with the server's actual replies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withReply } from '../../src/runner/executors/sessions.js';
import type { RunResult } from '../../src/report/result-json.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';

interface ChatBody {
  messages: Array<{ role: string; content: string }>;
}

describe('multi-turn sessions', () => {
  let server: TestServer;
  const bodies: ChatBody[] = [];
  let n = 0;
  beforeAll(async () => {
    // A chat server whose every reply is unique, so the next turn's history can be traced to it.
    server = await startTestServer((req, res, body) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        // e.g. the client's probe for a /tokenize endpoint: this server has none
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      const parsed = JSON.parse(body) as ChatBody;
      bodies.push(parsed);
      const reply = [`reply-${n++}`, ' and', ' more'];
      sseHeaders(res);
      const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
      let out = ev({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      for (const piece of reply) out += ev({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      out += ev({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      out += ev({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } });
      res.end(`${out}data: [DONE]\n\n`);
    });
  });
  afterAll(() => server.close());

  it('sends turns in order after the think time, with the real replies in the history', async () => {
    const dir = tempDir('sessions');
    const out = await runCli([
      'run', '--base-url', server.url, '--endpoint', '/v1/chat/completions', '--no-preflight', '--model', 'm',
      '--session-turns', '3', '--think-time', '40', '--concurrency', '2', '--num-prompts', '12',
      '--random-input-len', '20', '--random-output-len', '3', '--workers', '0', '--result-dir', dir, '--progress', 'none', '--json',
    ]);
    expectCompleted(out);
    const result = JSON.parse(out.stdout) as RunResult;
    expect(result.metrics.requests.total).toBe(12);
    expect(result.metrics.requests.ok).toBe(12);

    const { records } = readRecordsFile(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'records.jsonl'));
    const bySession = new Map<string, typeof records>();
    for (const r of records) bySession.set(r.session!, [...(bySession.get(r.session!) ?? []), r]);
    // 12 requests over conversations of 3 turns: 4 whole ones, or a 5th cut short by the count
    // when a user starts a conversation just before the other reserves the last requests.
    expect(bySession.size).toBeGreaterThanOrEqual(4);
    expect(result.by_turn!.first_turn.requests.total).toBe(bySession.size);
    expect(result.by_turn!.later_turns.requests.total).toBe(12 - bySession.size);
    for (const turns of bySession.values()) {
      turns.sort((a, b) => a.turn! - b.turn!);
      expect(turns.map((t) => t.turn)).toEqual([0, 1, 2].slice(0, turns.length));
      for (let k = 1; k < turns.length; k++) expect(turns[k]!.sent_ms - turns[k - 1]!.end_ms).toBeGreaterThanOrEqual(39);
      // Reply text is used for the history but not kept in the records without --keep-text.
      for (const t of turns) expect(t.output_text).toBeNull();
    }
    // Every later turn resends the reply the server actually gave to the previous turn.
    const laterTurns = bodies.filter((b) => b.messages.length > 1);
    expect(laterTurns).toHaveLength(12 - bySession.size);
    for (const b of laterTurns) {
      const assistant = b.messages[b.messages.length - 2]!;
      expect(assistant.role).toBe('assistant');
      expect(assistant.content).toMatch(/^reply-\d+ and more$/);
    }
  });

  it('withReply replaces only the last assistant message', () => {
    const item = {
      prompt: 'q2', prompt_tokens: 5, max_tokens: 3, task: null, expected: null, session: 's', turn: 1,
      messages: [
        { role: 'user' as const, content: 'q1' },
        { role: 'assistant' as const, content: 'stand-in' },
        { role: 'user' as const, content: 'q2' },
      ],
    };
    expect(withReply(item, 'real').messages!.map((m) => m.content)).toEqual(['q1', 'real', 'q2']);
    expect(item.messages[1]!.content).toBe('stand-in');
  });

  it('with no rate, a run by count plays whole conversations (not one first turn per request) and warns of no listener leak', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const out = await runCli([
        'run', '--base-url', server.url, '--endpoint', '/v1/chat/completions', '--no-preflight', '--model', 'm',
        '--session-turns', '4', '--think-time', '30', '--num-prompts', '60',
        '--random-input-len', '8', '--random-output-len', '3', '--workers', '0', '--no-save', '--progress', 'none', '--json',
      ]);
      expectCompleted(out);
      const r = JSON.parse(out.stdout) as RunResult;
      // 60 requests = 15 conversations of 4 turns, all started at t = 0 (rate inf): 15 first and 45 later turns.
      expect(r.metrics.requests.ok).toBe(60);
      expect(r.by_turn?.first_turn.requests.total).toBe(15);
      expect(r.by_turn?.later_turns.requests.total).toBe(45);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('--session-turns 0 is rejected', async () => {
    const out = await runCli(['run', '--base-url', server.url, '--endpoint', '/v1/chat/completions', '--no-preflight', '--model', 'm', '--session-turns', '0', '--num-prompts', '2', '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/session-turns|session_turns/);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });
});
