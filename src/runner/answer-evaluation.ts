/**
 * Fills `record.quality` for requests that carried an answer check (issue 15, docs/quality.md),
 * between the load and the records writer. The load threads only keep the answer's text; the
 * check is evaluated here, on the coordinating thread, a bounded number at a time (a code check
 * runs a process), and each record goes on to the sink once its outcome is in. Records without a
 * check pass straight through. No record is ever dropped: a check that throws becomes a failed
 * outcome naming the error.
 */
import type { RecordQuality, RequestRecord } from '../record/record.js';
import type { AnswerCheck, RecordSink } from './loop-context.js';

/** What evaluating one answer yields (src/quality/check-types.ts `CheckOutcome`). */
export interface AnswerOutcome {
  pass: boolean;
  outcome: string;
  reason: string;
}

/** Evaluates one answer (null: no answer text) against one check. */
export type EvaluateAnswer = (check: AnswerCheck, answer: string | null) => Promise<AnswerOutcome>;

export interface AnswerEvaluationOptions {
  evaluate: EvaluateAnswer;
  /** Receives every record, checked ones once their outcome is set. */
  sink: (rec: RequestRecord) => void;
  /** Evaluations running at once. */
  concurrency: number;
  /**
   * Hold every evaluation until `drain()`: with `--workers 0` the load runs on this thread, so
   * evaluating during the load would take the dispatch loop's time.
   */
  deferUntilDrain?: boolean;
}

/** The quality of a request that got no answer (failed, timed out, cancelled): nothing to evaluate. */
export function unansweredQuality(rec: RequestRecord, check: AnswerCheck): RecordQuality {
  return { kind: check.kind, pass: false, outcome: 'empty', reason: `no answer: request ${rec.status}${rec.error_class ? ` (${rec.error_class})` : ''}` };
}

export class AnswerEvaluation {
  private readonly queue: Array<{ rec: RequestRecord; check: AnswerCheck }> = [];
  private running = 0;
  private held: boolean;
  private idleWaiters: Array<() => void> = [];
  /** Checks that threw (a defect in a check, not a wrong answer); counted for the run's log. */
  failures = 0;

  constructor(private readonly opts: AnswerEvaluationOptions) {
    this.held = opts.deferUntilDrain === true;
  }

  /** The sink the load hands its records to. */
  readonly accept: RecordSink = (rec, check) => {
    if (check === undefined) {
      this.opts.sink(rec);
      return;
    }
    if (rec.status !== 'ok') {
      rec.quality = unansweredQuality(rec, check);
      this.opts.sink(rec);
      return;
    }
    this.queue.push({ rec, check });
    this.pump();
  };

  /** Records waiting for or in evaluation. */
  get pending(): number {
    return this.queue.length + this.running;
  }

  /** Evaluates everything held or queued; resolves when every record has gone to the sink. */
  drain(): Promise<void> {
    this.held = false;
    this.pump();
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    if (this.held) return;
    while (this.running < this.opts.concurrency && this.queue.length > 0) {
      const { rec, check } = this.queue.shift()!;
      this.running++;
      void this.evaluateOne(rec, check).finally(() => {
        this.running--;
        this.opts.sink(rec);
        this.pump();
        if (this.pending === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const wake of waiters) wake();
        }
      });
    }
  }

  private async evaluateOne(rec: RequestRecord, check: AnswerCheck): Promise<void> {
    try {
      const out = await this.opts.evaluate(check, rec.output_text);
      rec.quality = { kind: check.kind, pass: out.pass, outcome: out.outcome, reason: out.reason };
    } catch (err) {
      this.failures++;
      const message = err instanceof Error ? err.message : String(err);
      rec.quality = { kind: check.kind, pass: false, outcome: 'wrong', reason: `check could not be evaluated: ${message.split('\n')[0]!.slice(0, 200)}` };
    }
  }
}
