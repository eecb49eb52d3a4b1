/** A connection closed before any response (issue 24): EMFILE/ENFILE is the client's own limit (client_limit), never the server's (connect, an outage). */
import { describe, expect, it } from 'vitest';
import { connectFailure } from '../../src/client/connect-failure.js';
import { findOutages } from '../../src/metrics/defs/availability.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';

const errno = (code: string, message = `connect ${code}`): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

describe('connectFailure', () => {
  it('EMFILE: client_limit, naming the soft and hard limit and the fix', () => {
    expect(connectFailure(errno('EMFILE'), () => ({ soft: 256, hard: 4096 }))).toEqual({
      errorClass: 'client_limit',
      message: "EMFILE: no open file left in this process: the client's open-file limit (soft 256, hard 4096; raise it with `ulimit -n N` before the run)",
    });
  });
  it('ENFILE: client_limit, the system table', () => {
    expect(connectFailure(errno('ENFILE'), () => null)).toEqual({ errorClass: 'client_limit', message: "ENFILE: the system's open-file table is full" });
  });
  it('a refused or reset connection stays connect', () => {
    expect(connectFailure(errno('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'))).toEqual({ errorClass: 'connect', message: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' });
    expect(connectFailure(null)).toEqual({ errorClass: 'connect', message: 'closed: connection closed before any response' });
  });
});

describe('outages', () => {
  const failed = (id: number, cls: 'connect' | 'client_limit'): RequestRecord => ({ ...emptyRecord(id, id * 10), sent_ms: id * 10, end_ms: id * 10 + 1, status: 'error', error_class: cls });
  it('a run of client_limit failures is no outage; the same run of connect failures is one', () => {
    const classes = (cls: 'connect' | 'client_limit') => Array.from({ length: 5 }, (_, i) => failed(i, connectFailure(errno(cls === 'connect' ? 'ECONNRESET' : 'EMFILE'), () => null).errorClass));
    expect(findOutages(classes('client_limit'), 100)).toEqual([]);
    expect(findOutages(classes('connect'), 100)).toHaveLength(1);
  });
});
