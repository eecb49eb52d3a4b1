/**
 * The run ledger of a sweep stage that goes on after a worker was lost: the workers taking part
 * are [0, 2] (worker 1 gone), so share k of the stage goes to the k-th of them — worker 2 owns
 * slot 1's requests, not "index 2" — and what a second lost worker never sent is named by slot.
 */
import { describe, expect, it } from 'vitest';
import { RunLedger } from '../../src/distributed/ledger.js';
import { emptyRecord } from '../../src/record/record.js';

describe('RunLedger over workers [0, 2]', () => {
  it('maps worker 2 to the second share and names its missing requests when it is lost too', () => {
    const ledger = new RunLedger([0, 2], 10);
    expect(ledger.workers).toBe(2);
    // slot 0 (worker 0) owns 0, 2, 4, 6, 8; slot 1 (worker 2) owns 1, 3, 5, 7, 9
    for (const id of [0, 2, 4, 6, 8]) expect(ledger.accept(0, emptyRecord(id, 0))).toBe(true);
    expect(ledger.accept(2, emptyRecord(1, 0))).toBe(true);
    expect(ledger.accept(2, emptyRecord(3, 0))).toBe(true);
    // worker 1 takes no part in this stage: its records are not counted
    expect(ledger.accept(1, emptyRecord(5, 0))).toBe(false);
    expect(ledger.account(1)).toBeUndefined();
    ledger.finish({ node: 0, records: 5 } as Parameters<RunLedger['finish']>[0]);
    ledger.lose(2, 'stopped sending heartbeats');
    expect(ledger.settled).toBe(true);
    expect(ledger.incomplete()).toEqual([{ node: 2, reason: 'stopped sending heartbeats', missing: 3, missing_ids: [5, 7, 9], received: 2 }]);
  });
});
