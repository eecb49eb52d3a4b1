/**
 * `infermeter k8s manifest`: the objects a cluster needs, checked field by field (the Indexed Job's
 * completion mode, completions, parallelism, the index env, resources; the coordinator's flags;
 * NATS deployed or not), through the CLI and the YAML it prints.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function specFile(text = 'target:\n  base_url: http://vllm:8000\nload:\n  request_rate: 20\n  num_prompts: 600\n'): string {
  const path = join(tempDir('k8s'), 'spec.yaml');
  writeFileSync(path, text);
  return path;
}

async function manifests(args: string[]): Promise<Obj[]> {
  const out = await runCli(['k8s', 'manifest', ...args]);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
}

const byKind = (objs: Obj[], kind: string, component: string) => objs.find((o) => o.kind === kind && o.metadata.labels['app.kubernetes.io/component'] === component);

describe('k8s manifest', () => {
  it('workers as an Indexed Job, the coordinator Job, NATS Deployment + Service, the spec as a ConfigMap', async () => {
    const config = specFile();
    const objs = await manifests(['--workers', '4', '--image', 'reg.example/infermeter:1', '--config', config, '--name', 'bench1', '--namespace', 'perf', '--worker-cpu', '3', '--worker-memory', '4Gi']);
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ServiceAccount/bench1', 'ConfigMap/bench1-spec', 'Deployment/bench1-nats', 'Service/bench1-nats', 'Job/bench1-coordinator', 'Job/bench1-workers']);
    for (const o of objs) expect(o.metadata.namespace).toBe('perf');

    const workers = byKind(objs, 'Job', 'worker')!;
    expect(workers.apiVersion).toBe('batch/v1');
    expect(workers.spec.completionMode).toBe('Indexed');
    expect(workers.spec.completions).toBe(4);
    expect(workers.spec.parallelism).toBe(4);
    // Never retried, and one failed worker does not end the others: each index fails alone.
    expect(workers.spec.backoffLimitPerIndex).toBe(0);
    expect(workers.spec.maxFailedIndexes).toBe(4);
    const pod = workers.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const c = pod.containers[0];
    expect(c.image).toBe('reg.example/infermeter:1');
    expect(c.args).toEqual(['worker', '--nats', 'nats://bench1-nats:4222', '--run-id', 'bench1', '--config', '/etc/infermeter/spec.yaml', '--metrics-port', '9464']);
    expect(c.env).toContainEqual({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } });
    expect(c.resources).toEqual({ requests: { cpu: '3', memory: '4Gi' }, limits: { cpu: '3', memory: '4Gi' } });
    expect(pod.volumes).toContainEqual({ name: 'spec', configMap: { name: 'bench1-spec' } });

    const coord = byKind(objs, 'Job', 'coordinator')!;
    expect(coord.spec.completions).toBe(1);
    const cc = coord.spec.template.spec.containers[0];
    expect(cc.args.slice(0, 9)).toEqual(['run', '--config', '/etc/infermeter/spec.yaml', '--distributed', 'nats://bench1-nats:4222', '--workers-expected', '4', '--run-id', 'bench1']);
    expect(cc.resources.requests).toEqual({ cpu: '1', memory: '1Gi' });

    const svc = byKind(objs, 'Service', 'nats')!;
    const dep = byKind(objs, 'Deployment', 'nats')!;
    expect(svc.spec.ports[0].port).toBe(4222);
    // The Service selects the Deployment's pods.
    for (const [k, v] of Object.entries(svc.spec.selector as Record<string, string>)) expect(dep.spec.template.metadata.labels[k]).toBe(v);
    expect(dep.spec.selector.matchLabels).toEqual(svc.spec.selector);
    expect(dep.spec.template.spec.containers[0].args).toContain('-js');

    const cm = byKind(objs, 'ConfigMap', 'spec')!;
    expect(cm.data['spec.yaml']).toContain('base_url: http://vllm:8000');
  });

  it('with --nats-url no NATS is deployed and both sides use the given URL', async () => {
    const objs = await manifests(['--workers', '2', '--image', 'img', '--config', specFile(), '--nats-url', 'nats://nats.infra:4222']);
    expect(objs.map((o) => o.kind)).toEqual(['ServiceAccount', 'ConfigMap', 'Job', 'Job']);
    expect(byKind(objs, 'Job', 'worker')!.spec.template.spec.containers[0].args).toContain('nats://nats.infra:4222');
    expect(byKind(objs, 'Job', 'coordinator')!.spec.template.spec.containers[0].args).toContain('nats://nats.infra:4222');
    expect(objs.every((o) => o.metadata.namespace === undefined)).toBe(true);
  });

  it('refuses, in one line, what would fail in the cluster', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--workers', '0', '--image', 'i', '--config', specFile()], /--workers: expected a whole number from 1 to 10000/],
      [['--workers', '10001', '--image', 'i', '--config', specFile()], /--workers: expected a whole number from 1 to 10000/],
      [['--workers', '8', '--image', 'i', '--config', specFile('target:\n  base_url: http://vllm:8000\nload:\n  concurrency: 4\n  duration_ms: 60s\n')], /--workers 8: more than the spec's 4 closed-loop users/],
      [['--workers', '2', '--image', 'Reg.Example/Infermeter', '--config', specFile()], /--image: "Reg.Example\/Infermeter" is not an image reference/],
      [['--workers', '2', '--image', 'reg.example/infermeter:1 --privileged', '--config', specFile()], /--image: .* is not an image reference/],
      [['--workers', '2', '--image', 'i', '--nats-image', 'nats::2', '--config', specFile()], /--nats-image: "nats::2" is not an image reference/],
      [['--workers', '2', '--image', 'i', '--config', specFile('target:\n  base_url: http://vllm:8000\nload:\n  concurrency: 4\n  num_prompts: 100\n')], /--active-deadline: required here: the run's length does not follow from the spec/],
      [['--workers', '2', '--image', 'i', '--config', specFile(), '--active-deadline', 'soon'], /--active-deadline: /],
      [['--workers', '2', '--image', 'i', '--config', specFile(), '--api-key-secret', 'Bad Name'], /--api-key-secret: expected SECRET\[:KEY\]/],
      [['--workers', '2', '--image', 'i', '--config', specFile('load:\n  num_prompts: 5\n')], /target.base_url is not set/],
      [['--workers', '2', '--image', 'i', '--config', specFile(), '--name', 'Bad_Name'], /--name: "Bad_Name" is not a Kubernetes name/],
      [['--workers', '2', '--image', 'i', '--config', specFile(), '--worker-cpu', 'lots'], /--worker-cpu: "lots" is not a Kubernetes quantity/],
      [['--workers', '2', '--image', 'i', '--config', '/nonexistent/spec.yaml'], /--config \/nonexistent\/spec.yaml: cannot read file/],
    ];
    for (const [args, message] of cases) {
      const out = await runCli(['k8s', 'manifest', ...args]);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(message);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('the manifests\' commands', () => {
  it('coordinator and worker args are accepted by the CLI (they fail only at connecting to NATS)', async () => {
    const config = specFile('target:\n  base_url: http://127.0.0.1:9\n  preflight: false\n  model: m\nload:\n  request_rate: 5\n  num_prompts: 10\n');
    const objs = await manifests(['--workers', '2', '--image', 'img', '--config', config, '--nats-url', 'nats://127.0.0.1:1']);
    for (const component of ['coordinator', 'worker']) {
      const c = byKind(objs, 'Job', component)!.spec.template.spec.containers[0];
      // In the pod the spec is mounted at /etc/infermeter; here it is the file the manifests were made from.
      const args = (c.args as string[]).map((a) => (a === '/etc/infermeter/spec.yaml' ? config : a === '/results' ? tempDir('k8s-results') : a));
      const wait = component === 'worker' ? ['--wait', '1s', '--index', '0'] : ['--worker-wait', '1s'];
      const out = await runCli([...args, ...wait]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim()).toMatch(/^error: --(nats|distributed) nats:\/\/127.0.0.1:1: cannot connect to NATS/);
    }
  });
});

describe('k8s manifest: what a cluster operator asks of the objects', () => {
  const objsOf = (extra: string[] = [], spec?: string) => manifests(['--workers', '3', '--image', 'img', '--config', specFile(spec), '--name', 'b1', ...extra]);

  it('the coordinator: restartPolicy Never; a verdict (2, 3, 4, 5) ends the Job, an eviction is retried free, exit 1 and 137 count, anything else ends it', async () => {
    const coord = byKind(await objsOf(), 'Job', 'coordinator')!;
    expect(coord.spec.template.spec.restartPolicy).toBe('Never');
    expect(coord.spec.backoffLimit).toBe(2);
    const c = 'coordinator';
    expect(coord.spec.podFailurePolicy.rules).toEqual([
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: c, operator: 'In', values: [2, 3, 4, 5] } },
      { action: 'Count', onExitCodes: { containerName: c, operator: 'In', values: [1, 137] } },
      { action: 'FailJob', onExitCodes: { containerName: c, operator: 'NotIn', values: [1, 137] } },
    ]);
    // The codes are the table's: a verdict exit of the CLI is never retried.
    const { EXIT_CODES } = await import('../../src/errors/exit-codes.js');
    expect(coord.spec.podFailurePolicy.rules[1].onExitCodes.values).toEqual([EXIT_CODES.USAGE, EXIT_CODES.SLO_FAILED, EXIT_CODES.REGRESSION, EXIT_CODES.INVALID_RUN]);
    // Its run directory goes to NATS when it ends (k8s fetch), and a retried pod finds it there.
    expect(coord.spec.template.spec.containers[0].args).toContain('--store-results');
  });

  it('a sweep coordinator is never retried (a sweep is not resumed); its sweep directory goes to NATS like a run\'s', async () => {
    const coord = byKind(await objsOf(['--sweep', '--request-rates 10,20']), 'Job', 'coordinator')!;
    expect(coord.spec.backoffLimit).toBe(0);
    expect(coord.spec.template.spec.containers[0].args).toContain('--store-results');
  });

  it('every pod: restricted security context, read-only root with /tmp scratch, resources, no API token, the one ServiceAccount', async () => {
    const objs = await objsOf();
    const account = byKind(objs, 'ServiceAccount', 'account')!;
    expect(account.automountServiceAccountToken).toBe(false);
    expect(objs.some((o) => /Role/.test(o.kind))).toBe(false);
    const pods = objs.filter((o) => o.spec?.template).map((o) => o.spec.template.spec);
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.serviceAccountName).toBe('b1');
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true, runAsNonRoot: true });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(c.resources.requests).toEqual(c.resources.limits);
        expect(Object.keys(c.resources.limits).sort()).toEqual(['cpu', 'memory']);
      }
      expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: {} });
    }
  });

  it('labels, probes, spread, deadlines', async () => {
    const objs = await objsOf();
    for (const o of objs) {
      expect(o.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'infermeter', 'app.kubernetes.io/instance': 'b1', 'app.kubernetes.io/part-of': 'infermeter', 'app.kubernetes.io/managed-by': 'infermeter-k8s-manifest' });
      expect(o.metadata.labels['app.kubernetes.io/version']).toMatch(/^\d+\.\d+\.\d+/);
      if (o.spec?.template) expect(o.spec.template.metadata.labels).toEqual(o.metadata.labels);
    }
    const nats = byKind(objs, 'Deployment', 'nats')!.spec.template.spec.containers[0];
    expect(nats.args).toEqual(['-js', '-sd', '/data', '-p', '4222', '-m', '8222']);
    expect(nats.readinessProbe.httpGet).toEqual({ path: '/healthz?js-enabled-only=true', port: 'monitor' });
    expect(nats.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'monitor' });
    expect(nats.ports).toContainEqual({ name: 'monitor', containerPort: 8222 });
    const workers = byKind(objs, 'Job', 'worker')!;
    expect(workers.spec.template.spec.topologySpreadConstraints).toEqual([
      { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'b1', 'app.kubernetes.io/component': 'worker' } } },
    ]);
    // 600 requests at 20/s: 30 s of sending, the 600 s request timeout for the last ones, 900 s margin.
    for (const job of [workers, byKind(objs, 'Job', 'coordinator')!]) {
      expect(job.spec.activeDeadlineSeconds).toBe(30 + 600 + 900);
      expect(job.spec.ttlSecondsAfterFinished).toBe(86_400);
    }
    const given = byKind(await objsOf(['--active-deadline', '2h', '--ttl', '10m']), 'Job', 'worker')!;
    expect(given.spec.activeDeadlineSeconds).toBe(7200);
    expect(given.spec.ttlSecondsAfterFinished).toBe(600);
  });

  it('coordinator and workers serve their client metrics on a named port, with the prometheus.io scrape annotations on their pods', async () => {
    const objs = await objsOf();
    for (const component of ['coordinator', 'worker']) {
      const template = byKind(objs, 'Job', component)!.spec.template;
      const c = template.spec.containers[0];
      expect(c.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
      // The port the flag serves is the port the annotation names.
      expect((c.args as string[]).slice(-2)).toEqual(['--metrics-port', '9464']);
      expect(template.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
    }
    // NATS is not ours to scrape: no annotations there.
    expect(byKind(objs, 'Deployment', 'nats')!.spec.template.metadata.annotations).toBeUndefined();
  });

  it('secrets of the spec go into a Secret, referenced through secretKeyRef; the ConfigMap and the Jobs never hold them', async () => {
    const spec = 'target:\n  base_url: http://user:pw-9@vllm:8000/v1?api_key=qk-7\n  headers:\n    Authorization: Bearer sk-live-42\n    X-Api-Key: xk-3\n    X-Trace: on\nload:\n  request_rate: 20\n  num_prompts: 600\n';
    const out = await runCli(['k8s', 'manifest', '--workers', '2', '--image', 'img', '--config', specFile(spec), '--name', 'b1', '--api-key-secret', 'vllm-key']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr.trim().split('\n')).toEqual([
      'target.headers.Authorization: moved from the spec into Secret b1-secrets (key header-authorization); the pods get it through secretKeyRef',
      'target.headers.X-Api-Key: moved from the spec into Secret b1-secrets (key header-x-api-key); the pods get it through secretKeyRef',
      'target.base_url: moved from the spec into Secret b1-secrets (key base-url); the pods get it through secretKeyRef',
    ]);
    const objs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
    const secret = objs.find((o) => o.kind === 'Secret')!;
    expect(secret.stringData).toEqual({ 'header-authorization': 'Bearer sk-live-42', 'header-x-api-key': 'xk-3', 'base-url': 'http://user:pw-9@vllm:8000/v1?api_key=qk-7' });
    // Nothing but the Secret holds a secret value.
    const others = JSON.stringify(objs.filter((o) => o.kind !== 'Secret'));
    for (const v of ['sk-live-42', 'xk-3', 'pw-9', 'qk-7']) expect(others).not.toContain(v);
    const cm = byKind(objs, 'ConfigMap', 'spec')!;
    expect(cm.data['spec.yaml']).toContain('X-Trace: on');
    for (const component of ['coordinator', 'worker']) {
      const c = byKind(objs, 'Job', component)!.spec.template.spec.containers[0];
      expect(c.env).toEqual(expect.arrayContaining([
        { name: 'INFERMETER_SECRET_0', valueFrom: { secretKeyRef: { name: 'b1-secrets', key: 'header-authorization' } } },
        { name: 'INFERMETER_SECRET_1', valueFrom: { secretKeyRef: { name: 'b1-secrets', key: 'header-x-api-key' } } },
        { name: 'INFERMETER_SECRET_2', valueFrom: { secretKeyRef: { name: 'b1-secrets', key: 'base-url' } } },
        { name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'vllm-key', key: 'api-key' } } },
      ]));
      // Kubernetes puts each value in for $(VAR) when it starts the container.
      const args = (c.args as string[]).join(' ');
      expect(args).toContain('--header Authorization: $(INFERMETER_SECRET_0) --header X-Api-Key: $(INFERMETER_SECRET_1) --base-url $(INFERMETER_SECRET_2)');
    }
  });

  it('the secrets reach the run: the args with $(VAR) expanded as the kubelet does give the original spec', async () => {
    const spec = 'target:\n  base_url: http://127.0.0.1:9\n  preflight: false\n  model: m\n  headers:\n    Authorization: Bearer sk-live-42\nload:\n  request_rate: 5\n  num_prompts: 10\n';
    const config = specFile(spec);
    const out = await runCli(['k8s', 'manifest', '--workers', '2', '--image', 'img', '--config', config, '--nats-url', 'nats://127.0.0.1:1']);
    const objs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
    const mounted = join(tempDir('k8s-mounted'), 'spec.yaml');
    writeFileSync(mounted, byKind(objs, 'ConfigMap', 'spec')!.data['spec.yaml']);
    const secret = objs.find((o) => o.kind === 'Secret')!.stringData;
    const c = byKind(objs, 'Job', 'worker')!.spec.template.spec.containers[0];
    const env = Object.fromEntries((c.env as Obj[]).filter((e) => e.valueFrom.secretKeyRef).map((e) => [e.name, secret[e.valueFrom.secretKeyRef.key]]));
    const args = (c.args as string[]).map((a) => a.replace(/\$\(([A-Z0-9_]+)\)/g, (_m, v: string) => env[v]).replace('/etc/infermeter/spec.yaml', mounted));
    const { resolveRunSpec } = await import('../../src/cli/resolve-spec.js');
    const header = args[args.indexOf('--header') + 1]!;
    expect(header).toBe('Authorization: Bearer sk-live-42');
    expect(resolveRunSpec({ config: mounted, header: [header] }).target.headers).toEqual(resolveRunSpec({ config }).target.headers);
  });
});

describe('k8s manifest --sweep', () => {
  it('makes the coordinator a sweep with the stage flags (quoted parts kept whole); its args are accepted by the CLI', async () => {
    const config = specFile('target:\n  base_url: http://127.0.0.1:9\n  preflight: false\n  model: m\nload:\n  num_prompts: 10\n');
    const objs = await manifests(['--workers', '3', '--image', 'img', '--config', config, '--nats-url', 'nats://127.0.0.1:1', '--sweep', '--search rate --slo "p95(ttft) < 1s" --search-max 64', '--active-deadline', '2h']);
    const c = byKind(objs, 'Job', 'coordinator')!.spec.template.spec.containers[0];
    expect(c.args.slice(0, 9)).toEqual(['sweep', '--config', '/etc/infermeter/spec.yaml', '--search', 'rate', '--slo', 'p95(ttft) < 1s', '--search-max', '64']);
    expect(c.args).toContain('--distributed');
    // The workers are the run's: the stage loads come from the coordinator.
    expect(byKind(objs, 'Job', 'worker')!.spec.template.spec.containers[0].args[0]).toBe('worker');
    const args = (c.args as string[]).map((a) => (a === '/etc/infermeter/spec.yaml' ? config : a === '/results' ? tempDir('k8s-results') : a));
    const out = await runCli([...args, '--worker-wait', '1s']);
    expect(out.code).toBe(2);
    // A sweep opens its target first (here: no pre-flight, a line about the prompts), then NATS.
    expect(out.stderr.trim().split('\n').at(-1)).toMatch(/^error: --distributed nats:\/\/127.0.0.1:1: cannot connect to NATS/);
  });

  it.each([
    ['--request-rate 5', /--sweep: --request-rate is not a stage flag/],
    ['--slo "p95(ttft) < 1s"', /--sweep: say which stages to run/],
  ])('refuses %j in one line', async (sweep, message) => {
    const out = await runCli(['k8s', 'manifest', '--workers', '2', '--image', 'img', '--config', specFile(), '--sweep', sweep]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('Dockerfile', () => {
  it('copies only what the repository has and starts the CLI the manifests call', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const root = new URL('../../', import.meta.url).pathname;
    const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const fromContext = [...text.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(fromContext.length).toBeGreaterThan(3);
    for (const path of fromContext) expect(existsSync(join(root, path)), path).toBe(true);
    expect(text).toMatch(/^ENTRYPOINT \["node", "\/app\/bin\/infermeter.js"\]$/m);
    expect(readFileSync(join(root, 'bin/infermeter.js'), 'utf8')).toContain('../dist/cli/entry.js');
  });

  it('multi-stage; the runtime stage has production dependencies only, no Chromium, and runs as the manifests\' non-root uid', async () => {
    const { readFileSync } = await import('node:fs');
    const root = new URL('../../', import.meta.url).pathname;
    const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const stages = text.split(/^(?=FROM )/m).filter((s) => s.startsWith('FROM '));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages.at(-1)!;
    // Its node_modules come from a stage that installed production dependencies alone.
    const from = /^COPY --from=(\S+) \/app\/node_modules \.\/node_modules$/m.exec(runtime)?.[1];
    const deps = stages.find((s) => new RegExp(`^FROM \\S+ AS ${from}$`, 'm').test(s))!;
    expect(deps).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(runtime).not.toMatch(/npm (ci|install)|playwright|chromium/i);
    // The last USER is numeric and the manifests' runAsUser.
    const { POD_USER } = await import('../../src/distributed/k8s-manifest.js');
    expect([...runtime.matchAll(/^USER (\S+)$/gm)].at(-1)?.[1]).toBe(`${POD_USER}:${POD_USER}`);
    // playwright-core stays a devDependency: the production install has no browser.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies).filter((d) => /playwright|puppeteer|chrom/i.test(d))).toEqual([]);
  });
});
