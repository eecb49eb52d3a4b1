/**
 * The `k8s` commands' flags. Their code (k8s-command.ts: the spec, YAML, the manifests) is
 * imported when one runs, so that every other command starts without the YAML parser and zod.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { DEADLINE_MARGIN_SECONDS, DEFAULT_TTL_SECONDS } from '../distributed/k8s-manifest.js';
import { checkRunId } from '../distributed/protocol.js';
import type { CliIo } from './io.js';

export function registerK8sCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const k8s = program.command('k8s').description('Kubernetes: the manifests of a distributed run, and its results back from NATS (docs/distributed.md)');
  k8s
    .command('manifest')
    .description('write the manifests of a distributed run: the workers as an Indexed Job, the coordinator Job, NATS (Deployment + Service) unless --nats-url, the spec as a ConfigMap and its secrets (sensitive headers, a base URL with credentials) as a Secret, one ServiceAccount without permissions')
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
    .option('--results-pvc <claim>', 'PersistentVolumeClaim for the coordinator\'s run directory (default: an emptyDir; the run directory is stored on NATS either way: infermeter k8s fetch)')
    .option('--api-key-secret <secret[:key]>', 'an existing Secret holding the API key (key default: api-key); the pods get it in the spec\'s target.api_key_env')
    .option('--active-deadline <duration>', `how long the Jobs may run (default: the run's length from the spec plus ${DEADLINE_MARGIN_SECONDS / 60} min)`)
    .option('--ttl <duration>', `how long finished Jobs are kept (ttlSecondsAfterFinished; default ${DEFAULT_TTL_SECONDS / 3600}h)`)
    .option('--sweep <stage-flags>', "a distributed sweep: the coordinator's stage flags, e.g. '--request-rates 10,20,40' or '--search rate --slo \"p95(ttft) < 1s\"' (the workers need none)")
    .option('-o, --out <file>', 'write here instead of stdout')
    .action(async (opts: Record<string, string | undefined>) => {
      const { text, notes } = (await import('./k8s-command.js')).manifestYaml(opts);
      for (const line of notes) io.stderr.write(`${line}\n`);
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
  k8s
    .command('fetch')
    .description('bring a finished run\'s directory back from NATS (the coordinator stores it with --store-results, as the manifests\' coordinator does): analyze, report, compare and history read it as any run directory')
    .argument('<run-id>', 'the run id (the manifests\' --name)')
    .requiredOption('--nats-url <url>', 'the run\'s NATS server, e.g. nats://127.0.0.1:4222 after kubectl port-forward svc/NAME-nats 4222')
    .requiredOption('--out <dir>', 'the run directory to write (new or empty)')
    .option('--wait <duration>', 'how long to try to reach NATS', '5s')
    .action(async (runId: string, opts: Record<string, string | undefined>) => {
      checkRunId(runId, 'run id');
      const { parseDurationFlag } = await import('./k8s-command.js');
      const waitMs = parseDurationFlag('--wait', opts.wait ?? '5s');
      // Loaded here: the NATS client is not needed by every other command.
      const [{ NatsLink }, { fetchRunDir }] = await Promise.all([import('../distributed/nats-link.js'), import('../distributed/results-store.js')]);
      const link = await NatsLink.open(opts.natsUrl!, runId, { name: `infermeter fetch ${runId}`, flag: '--nats-url', waitMs });
      try {
        const note = await fetchRunDir(link, runId, opts.out!);
        io.stderr.write(`fetched run ${runId} (${note.files} files, ${note.bytes} bytes; finished ${note.finished_at}, exit ${note.exit_code}) into ${opts.out}: infermeter analyze ${opts.out}\n`);
      } finally {
        await link.close();
      }
      setExit(EXIT_CODES.OK);
    });
}
