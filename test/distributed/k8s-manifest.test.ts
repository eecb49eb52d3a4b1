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
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/bench1-spec', 'Deployment/bench1-nats', 'Service/bench1-nats', 'Job/bench1-coordinator', 'Job/bench1-workers']);
    for (const o of objs) expect(o.metadata.namespace).toBe('perf');

    const workers = byKind(objs, 'Job', 'worker')!;
    expect(workers.apiVersion).toBe('batch/v1');
    expect(workers.spec.completionMode).toBe('Indexed');
    expect(workers.spec.completions).toBe(4);
    expect(workers.spec.parallelism).toBe(4);
    expect(workers.spec.backoffLimit).toBe(0);
    const pod = workers.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const c = pod.containers[0];
    expect(c.image).toBe('reg.example/infermeter:1');
    expect(c.args).toEqual(['worker', '--nats', 'nats://bench1-nats:4222', '--run-id', 'bench1', '--config', '/etc/infermeter/spec.yaml']);
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

    const cm = objs[0]!;
    expect(cm.data['spec.yaml']).toContain('base_url: http://vllm:8000');
  });

  it('with --nats-url no NATS is deployed and both sides use the given URL', async () => {
    const objs = await manifests(['--workers', '2', '--image', 'img', '--config', specFile(), '--nats-url', 'nats://nats.infra:4222']);
    expect(objs.map((o) => o.kind)).toEqual(['ConfigMap', 'Job', 'Job']);
    expect(byKind(objs, 'Job', 'worker')!.spec.template.spec.containers[0].args).toContain('nats://nats.infra:4222');
    expect(byKind(objs, 'Job', 'coordinator')!.spec.template.spec.containers[0].args).toContain('nats://nats.infra:4222');
    expect(objs.every((o) => o.metadata.namespace === undefined)).toBe(true);
  });

  it('refuses, in one line, what would fail in the cluster', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--workers', '0', '--image', 'i', '--config', specFile()], /--workers: expected a whole number/],
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

describe('k8s manifest --sweep', () => {
  it('makes the coordinator a sweep with the stage flags (quoted parts kept whole); its args are accepted by the CLI', async () => {
    const config = specFile('target:\n  base_url: http://127.0.0.1:9\n  preflight: false\n  model: m\nload:\n  num_prompts: 10\n');
    const objs = await manifests(['--workers', '3', '--image', 'img', '--config', config, '--nats-url', 'nats://127.0.0.1:1', '--sweep', '--search rate --slo "p95(ttft) < 1s" --search-max 64']);
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
});
