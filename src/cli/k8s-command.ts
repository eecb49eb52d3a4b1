/**
 * `infermeter k8s manifest`: the Kubernetes objects of a distributed run (docs/distributed.md)
 * as one multi-document YAML, to stdout or --out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { buildManifests, natsUrlOf, type ManifestOptions } from '../distributed/k8s-manifest.js';
import { resolveRunSpec } from './resolve-spec.js';
import type { CliIo } from './io.js';

/** DNS-1123 label, short enough that "-coordinator" and Kubernetes' pod suffixes still fit in 63. */
const NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;
/** A Kubernetes quantity: 500m, 2, 1.5, 512Mi, 2Gi … */
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/;

export function registerK8sCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const k8s = program.command('k8s').description('Kubernetes: manifests for a distributed run (docs/distributed.md)');
  k8s
    .command('manifest')
    .description('write the manifests of a distributed run: the workers as an Indexed Job, the coordinator Job, NATS (Deployment + Service) unless --nats-url, the spec as a ConfigMap')
    .requiredOption('--workers <n>', 'worker pods (the Indexed Job\'s completions and parallelism)')
    .requiredOption('--image <image>', 'the infermeter image (see the Dockerfile)')
    .requiredOption('--config <file>', 'the run spec (YAML or JSON) coordinator and workers load; it must set target.base_url')
    .option('--nats-url <url>', 'an existing NATS server with JetStream (default: deploy one)')
    .option('--nats-image <image>', 'image of the deployed NATS server', 'nats:2.10-alpine')
    .option('--name <name>', 'prefix of every object, and the run id', 'infermeter')
    .option('--namespace <ns>', 'namespace of every object (default: kubectl\'s)')
    .option('--worker-cpu <q>', 'CPU request and limit of a worker pod', '2')
    .option('--worker-memory <q>', 'memory request and limit of a worker pod', '2Gi')
    .option('--coordinator-cpu <q>', 'CPU request and limit of the coordinator', '1')
    .option('--coordinator-memory <q>', 'memory request and limit of the coordinator', '1Gi')
    .option('--results-pvc <claim>', 'PersistentVolumeClaim for the coordinator\'s run directory (default: an emptyDir; the summary is in its log)')
    .option('--sweep <stage-flags>', "a distributed sweep: the coordinator's stage flags, e.g. '--request-rates 10,20,40' or '--search rate --slo \"p95(ttft) < 1s\"' (the workers need none)")
    .option('-o, --out <file>', 'write here instead of stdout')
    .action((opts: Record<string, string | undefined>) => {
      const text = manifestYaml(opts);
      if (opts.out) {
        try {
          writeFileSync(opts.out, text);
        } catch (err) {
          throw new UserError(`--out ${opts.out}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
        }
        io.stderr.write(`wrote ${opts.out}: kubectl apply -f ${opts.out}\n`);
      } else io.stdout.write(text);
      setExit(EXIT_CODES.OK);
    });
}

export function manifestOptions(opts: Record<string, string | undefined>): ManifestOptions {
  const workers = Number(opts.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 10_000) throw new UserError(`--workers: expected a whole number from 1 to 10000, got "${opts.workers}"`);
  const name = opts.name ?? 'infermeter';
  if (!NAME.test(name)) throw new UserError(`--name: "${name}" is not a Kubernetes name (lowercase letters, digits and "-", at most 40 characters)`);
  if (!opts.image?.trim()) throw new UserError('--image: required (the infermeter image)');
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
  if (opts.natsUrl !== undefined && !/^(nats|tls):\/\/[^\s]+$/.test(opts.natsUrl)) throw new UserError(`--nats-url: expected nats://HOST:PORT, got "${opts.natsUrl}"`);
  return {
    name,
    namespace: opts.namespace ?? null,
    workers,
    image: opts.image.trim(),
    natsUrl: opts.natsUrl ?? null,
    natsImage: opts.natsImage ?? 'nats:2.10-alpine',
    specText: readFileSync(configPath, 'utf8'),
    workerCpu: opts.workerCpu ?? '2',
    workerMemory: opts.workerMemory ?? '2Gi',
    coordinatorCpu: opts.coordinatorCpu ?? '1',
    coordinatorMemory: opts.coordinatorMemory ?? '1Gi',
    resultsPvc: opts.resultsPvc ?? null,
    sweep: opts.sweep === undefined ? null : sweepFlags(opts.sweep),
  };
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

export function manifestYaml(opts: Record<string, string | undefined>): string {
  const o = manifestOptions(opts);
  const head = `# infermeter distributed ${o.sweep ? 'sweep' : 'run'} "${o.name}": ${o.workers} workers, NATS at ${natsUrlOf(o)} (docs/distributed.md)\n`;
  return head + buildManifests(o).map((obj) => stringify(obj, { lineWidth: 0 })).join('---\n');
}
