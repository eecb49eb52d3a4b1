/**
 * OTLP trace payloads ↔ the spans infermeter reads. Protobuf (OTLP/HTTP `application/x-protobuf`)
 * is decoded and encoded by protobufjs from the official OpenTelemetry protocol definitions
 * (proto/, copied unchanged from opentelemetry-proto); OTLP/JSON (`application/json`) is read by
 * its documented mapping: trace and span ids as hex strings, 64-bit integers as decimal strings,
 * attribute values as `{stringValue | intValue | doubleValue | boolValue}`. Ids in base64 (the
 * plain protobuf-JSON mapping some exporters write) and 64-bit integers as JSON numbers are read too.
 *
 * Only what the join needs is kept: ids, name, start and end (Unix ns, as decimal strings, since
 * they exceed 2^53), and the scalar attributes. Anything that does not fit is a PayloadError.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export interface ReceivedSpan {
  /** 32 lower-case hex digits. */
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_unix_ns: string;
  end_unix_ns: string;
  attributes: Record<string, string | number | boolean>;
}

export class PayloadError extends Error {}

/** proto/ at the package root, from src/util/ (tsx) and dist/util/ alike. */
const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'proto');

const types = new Map<string, protobuf.Type>();

/** A message type of the vendored definitions (proto/), loaded once: `file` is the .proto that defines or imports it. */
export function otlpProtoType(file: string, name: string): protobuf.Type {
  let t = types.get(name);
  if (t) return t;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync(file);
  t = root.lookupType(name);
  types.set(name, t);
  return t;
}

const traceRequestType = (): protobuf.Type => otlpProtoType('opentelemetry/proto/collector/trace/v1/trace_service.proto', 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

const hex = (b: unknown): string => (b instanceof Uint8Array ? Buffer.from(b).toString('hex') : '');

function scalar(v: Record<string, unknown> | null | undefined): string | number | boolean | null {
  if (!v) return null;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (typeof v.doubleValue === 'number') return v.doubleValue;
  if (v.intValue !== undefined && v.intValue !== null) {
    const n = Number(v.intValue);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** A 64-bit time as a decimal string: a JSON number (already rounded past 2^53 by the parser) is written out whole. */
const unixNs = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? BigInt(Math.round(v)).toString() : String(v ?? '0'));

interface SpanLike {
  traceId?: unknown;
  spanId?: unknown;
  parentSpanId?: unknown;
  name?: unknown;
  startTimeUnixNano?: unknown;
  endTimeUnixNano?: unknown;
  attributes?: Array<{ key?: unknown; value?: Record<string, unknown> }>;
}

function spansOf(request: unknown, id: (v: unknown) => string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  const rs = (request as { resourceSpans?: unknown }).resourceSpans;
  if (rs !== undefined && !Array.isArray(rs)) throw new PayloadError('resourceSpans is not a list');
  for (const r of (rs ?? []) as Array<{ scopeSpans?: Array<{ spans?: SpanLike[] }> }>) {
    for (const scope of r.scopeSpans ?? []) {
      for (const s of scope.spans ?? []) {
        const trace = id(s.traceId);
        if (!/^[0-9a-f]{32}$/.test(trace)) throw new PayloadError(`a span's trace id "${String(trace).slice(0, 40)}" is not 16 bytes`);
        const attributes: ReceivedSpan['attributes'] = {};
        for (const a of s.attributes ?? []) {
          const v = scalar(a.value);
          if (typeof a.key === 'string' && v !== null) attributes[a.key] = v;
        }
        const parent = id(s.parentSpanId);
        out.push({
          trace_id: trace,
          span_id: id(s.spanId),
          parent_span_id: parent === '' ? null : parent,
          name: typeof s.name === 'string' ? s.name : '',
          start_unix_ns: unixNs(s.startTimeUnixNano),
          end_unix_ns: unixNs(s.endTimeUnixNano),
          attributes,
        });
      }
    }
  }
  return out;
}

/** An ExportTraceServiceRequest in protobuf. @throws PayloadError when it does not decode. */
export function decodeTraceProtobuf(bytes: Uint8Array): ReceivedSpan[] {
  const T = traceRequestType();
  let obj: unknown;
  try {
    // bytes fields stay Uint8Array (no `bytes` option); 64-bit times become decimal strings
    obj = T.toObject(T.decode(bytes), { longs: String });
  } catch (err) {
    throw new PayloadError(`not an OTLP protobuf trace request (${err instanceof Error ? err.message : String(err)})`);
  }
  return spansOf(obj, hex);
}

/** An ExportTraceServiceRequest in OTLP/JSON. @throws PayloadError when it is not one. */
export function decodeTraceJson(text: string): ReceivedSpan[] {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new PayloadError('not valid JSON');
  }
  if (typeof obj !== 'object' || obj === null) throw new PayloadError('not an OTLP/JSON trace request object');
  return spansOf(obj, jsonId);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** An OTLP/JSON id: hex as the OTLP spec says, or base64 (16 bytes for a trace id, 8 for a span id) as plain protobuf-JSON has it. */
function jsonId(v: unknown): string {
  if (typeof v !== 'string') return '';
  if (/^[0-9a-fA-F]*$/.test(v) && (v.length === 32 || v.length === 16 || v.length === 0)) return v.toLowerCase();
  if ((v.length === 24 || v.length === 12) && BASE64.test(v)) return Buffer.from(v, 'base64').toString('hex');
  return v.toLowerCase();
}

const jsonValue = (v: string | number | boolean): Record<string, unknown> =>
  typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };

/**
 * Spans as one ExportTraceServiceRequest in OTLP/JSON (hex ids, 64-bit integers as decimal
 * strings): the object the OpenTelemetry Collector's file exporter writes one of per line.
 */
export function encodeTraceJson(spans: readonly ReceivedSpan[], resource: Record<string, string>): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })) },
        scopeSpans: [
          {
            scope: { name: 'infermeter' },
            spans: spans.map((s) => ({
              traceId: s.trace_id,
              spanId: s.span_id,
              ...(s.parent_span_id ? { parentSpanId: s.parent_span_id } : {}),
              name: s.name,
              kind: 2,
              startTimeUnixNano: s.start_unix_ns,
              endTimeUnixNano: s.end_unix_ns,
              attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: jsonValue(v) })),
            })),
          },
        ],
      },
    ],
  };
}

const attrValue = (v: string | number | boolean): Record<string, unknown> =>
  typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v };

/** Spans as one protobuf ExportTraceServiceRequest (the simulator's exporter, tests). */
export function encodeTraceProtobuf(spans: readonly ReceivedSpan[], serviceName: string): Uint8Array {
  const T = traceRequestType();
  const msg = T.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
        scopeSpans: [
          {
            scope: { name: serviceName },
            spans: spans.map((s) => ({
              traceId: Buffer.from(s.trace_id, 'hex'),
              spanId: Buffer.from(s.span_id, 'hex'),
              ...(s.parent_span_id ? { parentSpanId: Buffer.from(s.parent_span_id, 'hex') } : {}),
              name: s.name,
              kind: 2, // SPAN_KIND_SERVER
              startTimeUnixNano: s.start_unix_ns,
              endTimeUnixNano: s.end_unix_ns,
              attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: attrValue(v) })),
            })),
          },
        ],
      },
    ],
  });
  return T.encode(msg).finish();
}
