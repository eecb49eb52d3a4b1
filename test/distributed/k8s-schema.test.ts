/**
 * `infermeter k8s manifest` against the Kubernetes object schemas: every object it writes is
 * validated with kubernetes-models (tommy351/kubernetes-models-ts: the API's OpenAPI schemas as
 * JSON-schema validators, shipped inside the npm package — nothing is fetched at test time). The
 * structural checks are in k8s-manifest.test.ts; this one asks whether a cluster would take them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The validating model of each kind the manifests hold. */
const MODELS: Record<string, (o: Obj) => { validate(): void }> = {
  'v1/ConfigMap': (o) => new ConfigMap(o as ConstructorParameters<typeof ConfigMap>[0]),
  'v1/Service': (o) => new Service(o as ConstructorParameters<typeof Service>[0]),
  'apps/v1/Deployment': (o) => new Deployment(o as ConstructorParameters<typeof Deployment>[0]),
  'batch/v1/Job': (o) => new Job(o as ConstructorParameters<typeof Job>[0]),
};

function validate(o: Obj): void {
  const model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!model) throw new Error(`no schema model for ${o.apiVersion} ${o.kind}`);
  model(o).validate();
}

async function manifests(args: string[]): Promise<Obj[]> {
  const spec = join(tempDir('k8s-schema'), 'spec.yaml');
  writeFileSync(spec, 'target:\n  base_url: http://vllm:8000\nload:\n  request_rate: 20\n  num_prompts: 600\n');
  const out = await runCli(['k8s', 'manifest', '--config', spec, ...args]);
  expect(out.code, out.stderr).toBe(0);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
}

describe('k8s manifest against the Kubernetes schemas', () => {
  it.each([
    ['NATS deployed, namespace, resources', ['--workers', '4', '--image', 'reg.example/infermeter:1', '--name', 'bench1', '--namespace', 'perf', '--worker-cpu', '3', '--worker-memory', '4Gi']],
    ['a sweep', ['--workers', '3', '--image', 'img', '--sweep', '--request-rates 10,20,40']],
    ['an existing NATS, results on a claim', ['--workers', '2', '--image', 'img', '--nats-url', 'nats://nats.infra:4222', '--results-pvc', 'bench-results']],
  ])('%s: every object validates', async (_label, args) => {
    const objs = await manifests(args);
    expect(objs.length).toBeGreaterThanOrEqual(3);
    for (const o of objs) expect(() => validate(o), `${o.kind}/${o.metadata?.name}`).not.toThrow();
  });

  it('the validator is live: a Job the API would refuse does not validate', async () => {
    const job = (await manifests(['--workers', '2', '--image', 'img'])).find((o) => o.kind === 'Job' && o.spec.completionMode === 'Indexed')!;
    expect(() => validate(job)).not.toThrow();
    expect(() => validate({ ...job, spec: { ...job.spec, completions: 'two' } })).toThrow(/completions/);
    const container = job.spec.template.spec.containers[0];
    expect(() => validate({ ...job, spec: { ...job.spec, template: { ...job.spec.template, spec: { ...job.spec.template.spec, containers: [{ ...container, name: undefined }] } } } })).toThrow(/name/);
  });
});
