/**
 * The simulator's answer mode (docs/quality.md §Simulator answer mode): for a prompt it finds in
 * its answer key, the simulated model streams a real answer instead of filler words — the correct
 * one with probability `accuracy`, otherwise a wrong one; malformed JSON, hallucinations and
 * refusals at their own rates. Seeded, so a run is reproducible.
 *
 * The key is built by the caller (the CLI, from a dataset's checks); the simulator knows nothing
 * about checks, only answer texts.
 */
import { estimateCount } from '../util/token-estimate.js';

/** What the simulator knows about one prompt it can answer. */
export interface KnownAnswer {
  /** A correct answer. For a should-refuse prompt, a refusal; for an unknowable, an abstention. */
  reference: string;
  /** A wrong answer; for an unknowable, a confident fabrication (the hallucination). */
  wrong: string;
  /** JSON tasks: the reference made unparseable, sent at `jsonErrorRate`. */
  malformed?: string;
  /** Closed-book unknowable: `hallucinationRate` (not `accuracy`) decides between reference and wrong. */
  unknowable?: boolean;
}

/** Prompt text (completions: the prompt; chat: the last user message) → its known answers. A Map satisfies it. */
export interface AnswerKey {
  get(prompt: string): KnownAnswer | undefined;
  readonly size: number;
}

export interface AnswerRates {
  /** Share of answerable prompts answered with the reference (default 1). */
  accuracy: number;
  /** Share of JSON prompts answered with malformed JSON (default 0). */
  jsonErrorRate: number;
  /** Share of unknowable closed-book prompts answered with a confident fabrication (default 0). */
  hallucinationRate: number;
  /** Share of all known prompts answered with a refusal (default 0). */
  refusalRate: number;
}

export const DEFAULT_ANSWER_RATES: AnswerRates = { accuracy: 1, jsonErrorRate: 0, hallucinationRate: 0, refusalRate: 0 };

export interface AnswerModeOptions {
  key: AnswerKey;
  rates?: Partial<AnswerRates>;
}

/** The refusal the simulator sends at `refusalRate`. */
export const SIM_REFUSAL = "I'm sorry, but I can't help with that request.";

export type AnswerChoice = 'reference' | 'wrong' | 'malformed' | 'hallucinated' | 'refused';

/**
 * Pick the answer. Three draws per request, always all three, so changing one rate does not
 * reshuffle the others' requests: u1 < refusalRate → refusal; else (JSON prompt) u2 <
 * jsonErrorRate → malformed; else (unknowable) u3 < hallucinationRate → fabrication, or
 * (answerable) u3 < accuracy → reference, else wrong.
 */
export function chooseAnswer(known: KnownAnswer, rates: AnswerRates, rand: () => number): { text: string; choice: AnswerChoice } {
  const u1 = rand();
  const u2 = rand();
  const u3 = rand();
  if (u1 < rates.refusalRate) return { text: SIM_REFUSAL, choice: 'refused' };
  if (known.malformed !== undefined && u2 < rates.jsonErrorRate) return { text: known.malformed, choice: 'malformed' };
  if (known.unknowable === true) return u3 < rates.hallucinationRate ? { text: known.wrong, choice: 'hallucinated' } : { text: known.reference, choice: 'reference' };
  return u3 < rates.accuracy ? { text: known.reference, choice: 'reference' } : { text: known.wrong, choice: 'wrong' };
}

const PIECE = / ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu;

/**
 * The answer cut into the tokens the simulator streams, so that the token count it reports (usage)
 * is the project's token estimate of the text (src/util/token-estimate.ts): each pre-token piece
 * the estimate counts as k tokens is cut into k near-equal parts. Joined, the parts are the text.
 */
export function answerTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PIECE)) {
    const piece = m[0];
    const k = Math.max(1, estimateCount(piece));
    if (k === 1) {
      out.push(piece);
      continue;
    }
    const chars = [...piece];
    for (let i = 0; i < k; i++) out.push(chars.slice(Math.floor((i * chars.length) / k), Math.floor(((i + 1) * chars.length) / k)).join(''));
  }
  return out;
}
