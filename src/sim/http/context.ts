/** State one simulator server shares with its request handlers. */
import type { Backend } from '../backend.js';
import type { FaultInjector } from '../faults.js';
import type { GroundTruth } from '../ground-truth.js';
import type { SpanExporter } from '../span-export.js';
import type { SimMetrics } from '../metrics/sim-metrics.js';
import type { TokenCounter } from './request-parse.js';
import type { StreamListener } from './sim-stream.js';
import type { Dialect } from './wire.js';
import type { ReasoningOptions } from '../reasoning.js';
import type { AnswerKey, AnswerRates } from '../answer-mode.js';

/** Answer mode (answer-mode.ts): the key, the rates and its own seeded draws. */
export interface AnswerModeState {
  key: AnswerKey;
  rates: AnswerRates;
  rand: () => number;
}

export interface ServerContext {
  modelName: string;
  dialect: Dialect;
  usageAlways: boolean;
  defaultMaxTokens: number;
  eosMeanTokens: number;
  rand: () => number;
  backend: Backend;
  blockSize: number;
  maxModelLen: number | null;
  countTokens: TokenCounter;
  nextId: number;
  metrics: SimMetrics;
  faults: FaultInjector | null;
  groundTruth: GroundTruth | null;
  /** OTLP span export (otlpTracesEndpoint; null: off). */
  spans: SpanExporter | null;
  listener: StreamListener;
  /** Reasoning mode (null: off). */
  reasoning: ReasoningOptions | null;
  /** Answer mode (null: off; every response is filler words). */
  answers: AnswerModeState | null;
}
