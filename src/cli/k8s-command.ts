/**
 * `infermeter k8s manifest`: the Kubernetes objects of a distributed run (docs/distributed.md)
 * as one multi-document YAML; the flags are registered by k8s-cli.ts, which imports this when it runs.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, parseDocument, stringify } from 'yaml';
import { UserError } from '../errors/user-error.js';
import { parseDurationMs } from '../config/units.js';
import { buildManifests, DEFAULT_TTL_SECONDS, natsUrlOf, runDeadlineSeconds, type ManifestOptions, type SecretFlag } from '../distributed/k8s-manifest.js';
import { isSensitiveName, redactUrl } from '../util/redact.js';
import { resolveRunSpec } from './resolve-spec.js';
import type { RunSpec } from '../session/run-spec.js';
import { infermeterVersion } from '../session/version.js';

/** DNS-1123 label, short enough that "-coordinator" and Kubernetes' pod suffixes still fit in 63. */
const NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;
/** A Kubernetes quantity: 500m, 2, 1.5, 512Mi, 2Gi … */
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/;


export interface ManifestNotes {
  /** One line per secret taken out of the spec (stderr). */
  notes: string[];
}

/** An image reference (distribution/reference's grammar): [registry[:port]/]path[:tag][@digest]. */
const DOMAIN = String.raw`(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?`;
const PATH_PART = String.raw`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`;
const IMAGE_REF = new RegExp(String.raw`^(?:${DOMAIN}/)?${PATH_PART}(?:/${PATH_PART})*(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`);

export function isImageReference(image: string): boolean {
  return image.length <= 255 && IMAGE_REF.test(image);
}

/**
 * The spec's secrets (sensitive header values, a base URL with credentials) out of its text:
 * they go into the Secret and reach the pods as flags through env, never in the ConfigMap.
 */
export function splitSecrets(specText: string, configPath: string): { text: string; secrets: SecretFlag[] } {
  const doc = parseDocument(specText);
  const secrets: SecretFlag[] = [];
  const headers: unknown = doc.getIn(['target', 'headers']);
  if (isMap(headers)) {
    for (const pair of [...headers.items]) {
      const name = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (!isSensitiveName(name)) continue;
      const value = isScalar(pair.value) ? String(pair.value.value) : String(pair.value);
      secrets.push({ key: `header-${name.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}`, value, flag: '--header', prefix: `${name}: `, source: `target.headers.${name}` });
      doc.deleteIn(['target', 'headers', name]);
    }
  }
  const baseUrl: unknown = doc.getIn(['target', 'base_url']);
  if (typeof baseUrl === 'string' && redactUrl(baseUrl) !== baseUrl) {
    secrets.push({ key: 'base-url', value: baseUrl, flag: '--base-url', prefix: '', source: 'target.base_url' });
    doc.deleteIn(['target', 'base_url']);
  }
  if (secrets.length === 0) return { text: specText, secrets };
  if (doc.errors.length > 0) throw new UserError(`--config ${configPath}: not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  return { text: doc.toString({ lineWidth: 0 }), secrets };
}

/** A sweep's stage loads when its flags list them (rates; null for a closed-loop stage); 'unknown' for --search and --auto. */
function sweepStages(words: string[] | null): Array<number | null> | null | 'unknown' {
  if (words === null) return null;
  const list = (flag: string) => {
    const i = words.indexOf(flag);
    return i < 0 ? null : (words[i + 1] ?? '').split(',').filter((w) => w.trim() !== '');
  };
  const rates = list('--request-rates');
  if (rates) return rates.map((r) => (/^inf/i.test(r.trim()) ? Infinity : Number(r)));
  const concurrencies = list('--concurrencies');
  return concurrencies ? concurrencies.map(() => null) : 'unknown';
}

export function manifestOptions(opts: Record<string, string | undefined>, version = 'unknown'): ManifestOptions & ManifestNotes {
  const workers = Number(opts.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) throw new UserError(`--workers: expected a whole number from 1 to ${MAX_WORKERS} (worker pods of one Indexed Job), got "${opts.workers}"`);
  const name = opts.name ?? 'infermeter';
  if (!NAME.test(name)) throw new UserError(`--name: "${name}" is not a Kubernetes name (lowercase letters, digits and "-", at most 40 characters)`);
  const image = opts.image?.trim() ?? '';
  if (!image) throw new UserError('--image: required (the infermeter image)');
  if (!isImageReference(image)) throw new UserError(`--image: "${image}" is not an image reference (e.g. registry.example/infermeter:0.1.0)`);
  for (const flag of ['worker-cpu', 'worker-memory', 'coordinator-cpu', 'coordinator-memory'] as const) {
    const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const v = opts[key];
    if (v !== undefined && !QUANTITY.test(v)) throw new UserError(`--${flag}: "${v}" is not a Kubernetes quantity (e.g. 500m, 2, 512Mi, 2Gi)`);
  }
  const configPath = opts.config!;
  // The same checks a run makes, now rather than in the cluster.
  const spec = resolveRunSpec({ config: configPath });
  if (spec.target.base_url === null) {
    throw new UserError(`--config ${configPath}: target.base_url is not set; in a cluster the workers need a server they can reach (the built-in simulator lives inside one process)`);
  }
  if (spec.load.concurrency !== null && spec.load.concurrency < workers) {
    throw new UserError(`--workers ${workers}: more than the spec's ${spec.load.concurrency} closed-loop users (load.concurrency); a worker without a user would never send its share`);
  }
  if (opts.natsUrl !== undefined && !/^(nats|tls):\/\/[^\s]+$/.test(opts.natsUrl)) throw new UserError(`--nats-url: expected nats://HOST:PORT, got "${opts.natsUrl}"`);
  if (opts.natsImage !== undefined && !isImageReference(opts.natsImage)) throw new UserError(`--nats-image: "${opts.natsImage}" is not an image reference (e.g. nats:2.10-alpine)`);
  const sweep = opts.sweep === undefined ? null : sweepFlags(opts.sweep);
  const deadline = activeDeadline(opts, spec, sweep);
  const ttl = opts.ttl === undefined ? DEFAULT_TTL_SECONDS : Math.round(parseDurationFlag('--ttl', opts.ttl) / 1000);
  const { text, secrets } = splitSecrets(readFileSync(configPath, 'utf8'), configPath);
  return {
    name,
    namespace: opts.namespace ?? null,
    workers,
    image,
    version,
    natsUrl: opts.natsUrl ?? null,
    natsImage: opts.natsImage ?? 'nats:2.10-alpine',
    specText: text,
    secrets,
    apiKey: apiKeySecret(opts.apiKeySecret, spec.target.api_key_env),
    workerCpu: opts.workerCpu ?? '2',
    workerMemory: opts.workerMemory ?? '2Gi',
    coordinatorCpu: opts.coordinatorCpu ?? '1',
    coordinatorMemory: opts.coordinatorMemory ?? '1Gi',
    resultsPvc: opts.resultsPvc ?? null,
    sweep,
    activeDeadlineSeconds: deadline,
    ttlSecondsAfterFinished: ttl,
    notes: secrets.map((s) => `${s.source}: moved from the spec into Secret ${name}-secrets (key ${s.key}); the pods get it through secretKeyRef`),
  };
}

/** Indexed Jobs allow more; one NATS server and one coordinator reading every record do not. */
const MAX_WORKERS = 10_000;

export function parseDurationFlag(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseDurationMs(text, 's');
  } catch (err) {
    throw new UserError(`${flag}: ${(err as Error).message}`);
  }
  if (!(ms >= 1000)) throw new UserError(`${flag}: expected at least 1s, got "${text}"`);
  return ms;
}

function activeDeadline(opts: Record<string, string | undefined>, spec: RunSpec, sweep: string[] | null): number {
  if (opts.activeDeadline !== undefined) return Math.ceil(parseDurationFlag('--active-deadline', opts.activeDeadline) / 1000);
  const l = spec.load;
  const length = { duration_ms: l.duration_ms, num_prompts: l.num_prompts, request_rate: l.concurrency === null ? l.request_rate : null, ramp_up_ms: l.ramp_up_ms, grace_ms: l.grace_ms, timeout_ms: spec.target.timeout_ms };
  const stages = sweepStages(sweep);
  const seconds = stages === 'unknown' ? null : runDeadlineSeconds(length, stages);
  if (seconds === null) {
    const why = sweep ? 'a sweep whose stages are decided as it runs, or of a request count per closed-loop stage' : 'a closed loop of a request count ends when the server has answered them';
    throw new UserError(`--active-deadline: required here: the run's length does not follow from the spec (${why}); give the longest the Jobs may run, e.g. --active-deadline 2h`);
  }
  return seconds;
}

/** `--api-key-secret SECRET[:KEY]`: the API key from an existing Secret (key: api-key). */
function apiKeySecret(text: string | undefined, env: string): ManifestOptions['apiKey'] {
  if (text === undefined) return null;
  const [secret = '', key = 'api-key'] = text.split(':');
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(secret) || !/^[-._a-zA-Z0-9]+$/.test(key)) throw new UserError(`--api-key-secret: expected SECRET[:KEY] (a Secret's name and the key holding the API key), got "${text}"`);
  return { env, secret, key };
}

const STAGE_CHOICE = ['--request-rates', '--concurrencies', '--auto', '--search'];
const STAGE_FLAGS = [...STAGE_CHOICE, '--precision', '--search-start', '--search-max', '--stage-warmup', '--slo'];

/** `--sweep`'s text as container args: words, with double-quoted parts kept whole; only stage flags. */
function sweepFlags(text: string): string[] {
  const words = [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  const flags = words.filter((w) => w.startsWith('--'));
  const other = flags.filter((f) => !STAGE_FLAGS.includes(f));
  if (other.length > 0) throw new UserError(`--sweep: ${other.join(', ')} is not a stage flag (${STAGE_FLAGS.join(', ')}); put the rest in the spec`);
  if (!flags.some((f) => STAGE_CHOICE.includes(f))) throw new UserError(`--sweep: say which stages to run (${STAGE_CHOICE.join(', ')}), e.g. --sweep '--request-rates 10,20,40'`);
  return words;
}

export function manifestYaml(opts: Record<string, string | undefined>): { text: string; notes: string[] } {
  const o = manifestOptions(opts, infermeterVersion());
  const head =
    `# infermeter distributed ${o.sweep ? 'sweep' : 'run'} "${o.name}": ${o.workers} workers, NATS at ${natsUrlOf(o)} (docs/distributed.md)\n` +
    `# Jobs end after ${o.activeDeadlineSeconds} s (activeDeadlineSeconds) and are deleted ${o.ttlSecondsAfterFinished} s after they finish; results: infermeter k8s fetch ${o.name} --nats-url … --out DIR\n`;
  return { text: head + buildManifests(o).map((obj) => stringify(obj, { lineWidth: 0 })).join('---\n'), notes: o.notes };
}
