/**
 * Multi-turn sessions (data side). Turn k of a session carries every earlier turn in `messages`
 * (user, assistant, user, …, then the new user message); the runner's virtual user sends turn
 * k+1 `think_time_ms` after turn k completed. History replies are the dataset's recorded replies,
 * or for synthetic sessions random text of the length the earlier turn requested (a runner that
 * keeps output text may substitute the server's real reply; the lengths then differ slightly).
 *
 * prompt_tokens counts what the turn sends: Σ message contents for chat (chat-template tokens not
 * included), the joined text for /v1/completions (`messages` joined by blank lines as `prompt`).
 *
 * prefix_hash_ids model the conversation as one growing token stream cut into blocks of b tokens:
 * a block that was full in an earlier turn's prompt keeps its id (turn k+1 starts with turn k's
 * prompt), the others get fresh ids; the system prompt's full blocks share ids across sessions.
 */
import { lengthSampler, nominalMean } from './lengths.js';
import type { Rng } from '../util/rng.js';
import type { SubWorkloadSpec } from './spec.js';
import type { TextMaker } from './synthetic.js';
import type { ChatMessage, Session, WorkItem, Workload } from './types.js';
import type { Entry } from './datasets/entries.js';
import type { Counted } from './datasets/pool.js';

type Kind = 'completions' | 'chat';

export function sessionWorkload(
  make: (id: string) => Session,
  base: { skipped: number; describe(): Record<string, unknown>; countTokens(text: string): number },
): Workload {
  let n = 0;
  let cur: Session | null = null;
  let pos = 0;
  const nextSession = (): Session => make(`s${n++}`);
  return {
    skipped: base.skipped,
    next(): WorkItem {
      if (!cur || pos >= cur.turns.length) {
        cur = nextSession();
        pos = 0;
      }
      return cur.turns[pos++] as WorkItem;
    },
    nextSession,
    describe: base.describe,
    countTokens: base.countTokens,
  };
}

/** Block ids of one session's token stream; `turn(T)` gives the ids of a T-token prompt. */
export class StreamBlocks {
  private readonly ids: number[];
  private fixed: number;
  constructor(
    readonly blockTokens: number,
    private readonly fresh: () => number,
    shared: readonly number[] = [],
  ) {
    this.ids = [...shared];
    this.fixed = shared.length;
  }
  turn(tokens: number): number[] {
    const n = Math.ceil(tokens / this.blockTokens);
    this.ids.length = Math.min(this.ids.length, this.fixed);
    while (this.ids.length < n) this.ids.push(this.fresh());
    this.fixed = Math.min(n, Math.floor(tokens / this.blockTokens));
    return this.ids.slice(0, n);
  }
}

/** A turn's WorkItem from its messages (history + new user message). */
function turnItem(
  messages: ChatMessage[],
  chatTokens: number,
  kind: Kind,
  maker: TextMaker,
  blocks: StreamBlocks,
  fields: { max_tokens: number; session: string; turn: number; think_time_ms: number; expected?: string | null; task?: string | null },
): WorkItem {
  const user = messages[messages.length - 1] as ChatMessage;
  const prompt = kind === 'chat' ? user.content : messages.map((m) => m.content).join('\n\n');
  const prompt_tokens = kind === 'chat' ? chatTokens : maker.tokenizer.count(prompt);
  return {
    prompt,
    messages: kind === 'chat' ? messages : null,
    prompt_tokens,
    max_tokens: fields.max_tokens,
    task: fields.task ?? null,
    expected: fields.expected ?? null,
    session: fields.session,
    turn: fields.turn,
    think_time_ms: fields.think_time_ms,
    prefix_hash_ids: blocks.turn(prompt_tokens),
    prefix_block_tokens: blocks.blockTokens,
  };
}

export interface SessionSamplers {
  turns: () => number;
  think: () => number;
}

export function sessionSamplers(spec: SubWorkloadSpec, rng: Rng): SessionSamplers {
  const turns = spec.session_turns ? lengthSampler(spec.session_turns, rng.fork()) : () => 1;
  const think = spec.think_time_ms ? lengthSampler(spec.think_time_ms, rng.fork()) : () => 0;
  return { turns: () => Math.max(1, turns()), think };
}

/** Synthetic sessions: each user message ~ input distribution, each reply ~ output distribution. */
export function syntheticSessions(
  spec: SubWorkloadSpec,
  rng: Rng,
  maker: TextMaker,
  kind: Kind,
  lens: { input: () => number; output: () => number },
  system: string,
): (id: string) => Session {
  const s = sessionSamplers(spec, rng);
  const textRng = rng.fork();
  const sysTokens = system === '' ? 0 : spec.system_prompt_len;
  const b = spec.prefix_block_size;
  const sysBlocks = Array.from({ length: Math.floor(sysTokens / b) }, (_, k) => k);
  let nextId = sysBlocks.length;
  const fresh = (): number => nextId++;
  return (id) => {
    const blocks = new StreamBlocks(b, fresh, sysBlocks);
    const T = s.turns();
    const history: ChatMessage[] = system === '' ? [] : [{ role: 'system', content: system }];
    let tokens = sysTokens;
    const turns: WorkItem[] = [];
    for (let k = 0; k < T; k++) {
      const u = lens.input();
      const out = lens.output();
      const user: ChatMessage = { role: 'user', content: maker.text(textRng, u) };
      const messages = [...history, user];
      tokens += u;
      turns.push(turnItem(messages, tokens, kind, maker, blocks, { max_tokens: out, session: id, turn: k, think_time_ms: k === 0 ? 0 : s.think() }));
      history.push(user, { role: 'assistant', content: maker.text(textRng, out) });
      tokens += out;
    }
    return { id, turns };
  };
}

/**
 * Sessions replaying dataset conversations: one turn per user message (at most the sampled
 * session_turns), history with the recorded assistant replies; a turn's max_tokens is the
 * recorded reply's length unless output_len overrides it.
 */
export function conversationSessions(
  draw: () => { entry: Entry; counts: Counted },
  spec: SubWorkloadSpec,
  rng: Rng,
  maker: TextMaker,
  kind: Kind,
  output: (() => number) | null,
): (id: string) => Session {
  const s = sessionSamplers(spec, rng);
  const tok = maker.tokenizer;
  let nextId = 0;
  const fresh = (): number => nextId++;
  return (id) => {
    const blocks = new StreamBlocks(spec.prefix_block_size, fresh);
    const { entry: e, counts } = draw();
    const conv = e.conversation ?? [...(e.messages ?? [{ role: 'user', content: e.prompt }])];
    const maxTurns = s.turns();
    const turns: WorkItem[] = [];
    const history: ChatMessage[] = [];
    let tokens = 0;
    for (let i = 0; i < conv.length && turns.length < maxTurns; i++) {
      const m = conv[i] as ChatMessage;
      if (m.role !== 'user') {
        history.push(m);
        tokens += tok.count(m.content);
        continue;
      }
      const reply = conv[i + 1]?.role === 'assistant' ? (conv[i + 1] as ChatMessage) : null;
      const recorded = reply ? tok.count(reply.content) : counts.output_tokens;
      const max = Math.max(1, output ? output() : (recorded ?? spec.random_output_len));
      tokens += tok.count(m.content);
      const k = turns.length;
      turns.push(
        turnItem([...history, m], tokens, kind, maker, blocks, {
          max_tokens: max,
          session: id,
          turn: k,
          think_time_ms: k === 0 ? 0 : s.think(),
          expected: reply === null ? e.expected : null,
          task: e.task,
        }),
      );
      history.push(m);
    }
    return { id, turns };
  };
}

export function describeSessions(spec: SubWorkloadSpec): Record<string, unknown> {
  return {
    sessions: true,
    session_turns: spec.session_turns,
    mean_turns: spec.session_turns ? nominalMean(spec.session_turns) : 1,
    think_time_ms: spec.think_time_ms,
  };
}
