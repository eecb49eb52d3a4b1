/**
 * Idempotent record ids over a real JetStream (nats-server 2.9 from Debian): a record published
 * again with its id (a retry after a lost acknowledgement) is stored once, and the coordinator's
 * ledger counts a record delivered twice once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunLedger } from '../../src/distributed/ledger.js';
import { NatsLink } from '../../src/distributed/nats-link.js';
import { encodeText, recordKey } from '../../src/distributed/protocol.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { emptyRecord } from '../../src/record/record.js';
import { startNats, type NatsServer } from '../helpers/nats.js';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.close();
});

describe('record stream', () => {
  it('JetStream stores a record published twice with its id once', async () => {
    const link = await NatsLink.open(nats.url, 'dedupe', { name: 'test', flag: '--nats', waitMs: 5_000 });
    try {
      await link.ensureStream();
      const rec = { ...emptyRecord(7, 100), node: 1 };
      const data = encodeText(recordToJsonLine(rec));
      expect(recordKey(1, rec)).toBe('1:0:7:0');
      expect(await link.publish(link.subjects.records(1), data, recordKey(1, rec))).toBe(false);
      expect(await link.publish(link.subjects.records(1), data, recordKey(1, rec))).toBe(true);
      // Another attempt of the same request is another record.
      const retry = { ...rec, attempt: 1 };
      expect(await link.publish(link.subjects.records(1), encodeText(recordToJsonLine(retry)), recordKey(1, retry))).toBe(false);
      expect(await link.lastSeq()).toBe(2);
      const seen: number[] = [];
      const c = await link.consume((m) => seen.push(m.seq), () => {});
      while (seen.length < 2) await new Promise((r) => setTimeout(r, 10));
      await c.stop();
      expect(seen).toEqual([1, 2]);
    } finally {
      await link.deleteStream();
      await link.close();
    }
  });

  it('the ledger counts a record delivered twice once, and names what a lost worker never sent', () => {
    const ledger = new RunLedger(3, 10);
    expect(ledger.accept(1, emptyRecord(1, 0))).toBe(true);
    expect(ledger.accept(1, emptyRecord(1, 0))).toBe(false);
    expect(ledger.accept(1, { ...emptyRecord(1, 0), attempt: 1 })).toBe(true);
    expect(ledger.accept(1, emptyRecord(4, 0))).toBe(true);
    ledger.lose(1, 'stopped sending heartbeats');
    // Worker 1 owns 1, 4, 7 of 10 requests; 7 never came.
    expect(ledger.incomplete()).toEqual([{ node: 1, reason: 'stopped sending heartbeats', missing: 1, missing_ids: [7], received: 3 }]);
    expect(ledger.settled).toBe(false);
  });
});
