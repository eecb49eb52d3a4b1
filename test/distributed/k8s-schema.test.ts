/**
 * `infermeter k8s manifest` against the Kubernetes object schemas: every object it writes is
 * validated with kubernetes-models 5.1.0 (tommy351/kubernetes-models-ts: the OpenAPI schemas of
 * Kubernetes 1.36 as JSON-schema validators, shipped inside the npm package — nothing is fetched
 * at test time), checked for fields the API does not know (test/helpers/k8s-fields.ts: what
 * `kubectl apply --validate=strict` adds), and every pod against the "restricted" Pod Security
 * Standard (test/helpers/pod-security.ts). The structural checks are in k8s-manifest.test.ts;
 * this one asks whether a cluster, and a namespace enforcing "restricted", would take them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { modelFile, unknownFields } from '../helpers/k8s-fields.js';
import { podSpecOf, restrictedViolations } from '../helpers/pod-security.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The validating model of each kind the manifests hold. */
const MODELS: Record<string, (o: Obj) => { validate(): void }> = {
  'v1/ConfigMap': (o) => new ConfigMap(o as ConstructorParameters<typeof ConfigMap>[0]),
  'v1/Service': (o) => new Service(o as ConstructorParameters<typeof Service>[0]),
  'v1/ServiceAccount': (o) => new ServiceAccount(o as ConstructorParameters<typeof ServiceAccount>[0]),
  'v1/Secret': (o) => new Secret(o as ConstructorParameters<typeof Secret>[0]),
  'apps/v1/Deployment': (o) => new Deployment(o as ConstructorParameters<typeof Deployment>[0]),
  'batch/v1/Job': (o) => new Job(o as ConstructorParameters<typeof Job>[0]),
};

function validate(o: Obj): void {
  const model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!model) throw new Error(`no schema model for ${o.apiVersion} ${o.kind}`);
  model(o).validate();
  const unknown = unknownFields(o, modelFile(o.apiVersion, o.kind));
  if (unknown.length > 0) throw new Error(`fields the API does not know: ${unknown.join(', ')}`);
}

const SPEC = 'target:\n  base_url: http://vllm:8000\n  headers:\n    Authorization: Bearer sk-test-1\nload:\n  request_rate: 20\n  num_prompts: 600\n';

async function manifests(args: string[]): Promise<Obj[]> {
  const spec = join(tempDir('k8s-schema'), 'spec.yaml');
  writeFileSync(spec, SPEC);
  const out = await runCli(['k8s', 'manifest', '--config', spec, ...args]);
  expect(out.code, out.stderr).toBe(0);
  return parseAllDocuments(out.stdout).map((d) => d.toJS() as Obj);
}

describe('k8s manifest against the Kubernetes schemas', () => {
  it.each([
    ['NATS deployed, namespace, resources', ['--workers', '4', '--image', 'reg.example/infermeter:1', '--name', 'bench1', '--namespace', 'perf', '--worker-cpu', '3', '--worker-memory', '4Gi']],
    ['a sweep', ['--workers', '3', '--image', 'img', '--sweep', '--request-rates 10,20,40']],
    ['an existing NATS, results on a claim, the API key from a Secret', ['--workers', '2', '--image', 'img', '--nats-url', 'nats://nats.infra:4222', '--results-pvc', 'bench-results', '--api-key-secret', 'vllm-key:token']],
  ])('%s: every object validates, and every pod passes the restricted Pod Security Standard', async (_label, args) => {
    const objs = await manifests(args);
    expect(objs.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceAccount', 'ConfigMap', 'Secret', 'Job']));
    for (const o of objs) expect(() => validate(o), `${o.kind}/${o.metadata?.name}`).not.toThrow();
    const pods = objs.map(podSpecOf).filter((p) => p !== null);
    expect(pods.length).toBe(objs.filter((o) => o.kind === 'Job' || o.kind === 'Deployment').length);
    for (const pod of pods) expect(restrictedViolations(pod), pod.containers[0].name).toEqual([]);
  });

  it('the field check is live: a misspelt field, at any depth, is named', async () => {
    const job = (await manifests(['--workers', '2', '--image', 'img'])).find((o) => o.kind === 'Job' && o.spec.completionMode === 'Indexed')!;
    const { podFailurePolicy: _drop, ...spec } = job.spec;
    expect(() => validate({ ...job, spec: { ...spec, podFailurPolicy: {} } })).toThrow(/fields the API does not know: spec.podFailurPolicy$/);
    const pod = job.spec.template.spec;
    const container = { ...pod.containers[0], securityContext: { ...pod.containers[0].securityContext, readOnlyRootFilesytem: true } };
    expect(() => validate({ ...job, spec: { ...job.spec, template: { ...job.spec.template, spec: { ...pod, containers: [container] } } } })).toThrow(/spec.template.spec.containers\[0\].securityContext.readOnlyRootFilesytem/);
  });

  it('the Pod Security check is live: each restricted control, broken once, is named', async () => {
    const pod = podSpecOf((await manifests(['--workers', '2', '--image', 'img'])).find((o) => o.kind === 'Job')!)!;
    const c = pod.containers[0];
    const withContainer = (sc: Obj) => ({ ...pod, containers: [{ ...c, securityContext: { ...c.securityContext, ...sc } }] });
    const cases: Array<[Obj, RegExp]> = [
      [withContainer({ allowPrivilegeEscalation: true }), /^Privilege escalation/],
      [withContainer({ capabilities: { drop: ['NET_RAW'] } }), /^Capabilities: drop does not include ALL/],
      [withContainer({ capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } }), /^Capabilities: adds one beyond the baseline list/],
      [withContainer({ runAsNonRoot: false }), /^Running as non-root: runAsNonRoot/],
      [withContainer({ runAsUser: 0 }), /^Running as non-root user/],
      [withContainer({ seccompProfile: { type: 'Unconfined' } }), /^Seccomp/],
      [withContainer({ privileged: true }), /^Privileged containers/],
      [{ ...pod, hostNetwork: true }, /^Host namespaces: hostNetwork/],
      [{ ...pod, volumes: [...pod.volumes, { name: 'h', hostPath: { path: '/' } }] }, /^HostPath volumes: h/],
    ];
    expect(restrictedViolations(pod)).toEqual([]);
    for (const [broken, message] of cases) expect(restrictedViolations(broken).join('\n')).toMatch(message);
    // Without the pod's seccomp profile and runAsNonRoot, a container that sets neither is refused.
    const { seccompProfile: _s, runAsNonRoot: _r, ...psc } = pod.securityContext;
    const { seccompProfile: _cs, runAsNonRoot: _cr, ...csc } = c.securityContext;
    expect(restrictedViolations({ ...pod, securityContext: psc, containers: [{ ...c, securityContext: csc }] })).toEqual([
      `Running as non-root: runAsNonRoot (container ${c.name})`,
      `Seccomp: no RuntimeDefault or Localhost profile (container ${c.name})`,
    ]);
  });

  it('the validator is live: a Job the API would refuse does not validate', async () => {
    const job = (await manifests(['--workers', '2', '--image', 'img'])).find((o) => o.kind === 'Job' && o.spec.completionMode === 'Indexed')!;
    expect(() => validate(job)).not.toThrow();
    expect(() => validate({ ...job, spec: { ...job.spec, completions: 'two' } })).toThrow(/completions/);
    const container = job.spec.template.spec.containers[0];
    expect(() => validate({ ...job, spec: { ...job.spec, template: { ...job.spec.template, spec: { ...job.spec.template.spec, containers: [{ ...container, name: undefined }] } } } })).toThrow(/name/);
  });
});
