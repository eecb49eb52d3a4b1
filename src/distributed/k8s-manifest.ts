/**
 * The Kubernetes objects of a distributed run (`infermeter k8s manifest`): the run spec in a
 * ConfigMap, the workers as an Indexed Job (pod i is worker i through JOB_COMPLETION_INDEX), the
 * coordinator as a Job, and a single-node NATS with JetStream (Deployment + Service) unless the
 * cluster already has one. Plain objects: the command turns them into YAML.
 */

export interface ManifestOptions {
  /** Names every object and is the run id both sides use (--run-id). */
  name: string;
  namespace: string | null;
  workers: number;
  image: string;
  /** An existing NATS server; null: deploy one. */
  natsUrl: string | null;
  natsImage: string;
  /** The run spec file's text, mounted for coordinator and workers alike. */
  specText: string;
  workerCpu: string;
  workerMemory: string;
  coordinatorCpu: string;
  coordinatorMemory: string;
  /** A PersistentVolumeClaim for the coordinator's run directory; null: an emptyDir (read it from the logs). */
  resultsPvc: string | null;
  /** A distributed sweep: the coordinator's stage flags (`--request-rates 10,20,40`, …); null: a run. */
  sweep: string[] | null;
}

export type K8sObject = Record<string, unknown>;

const SPEC_DIR = '/etc/infermeter';
const SPEC_FILE = 'spec.yaml';
export const RESULTS_DIR = '/results';

function meta(o: ManifestOptions, name: string, component: string): K8sObject {
  return {
    name,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    labels: { 'app.kubernetes.io/name': 'infermeter', 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': component },
  };
}

function resources(cpu: string, memory: string): K8sObject {
  return { requests: { cpu, memory }, limits: { cpu, memory } };
}

const specVolume = (o: ManifestOptions) => ({ name: 'spec', configMap: { name: `${o.name}-spec` } });
const specMount = { name: 'spec', mountPath: SPEC_DIR, readOnly: true };

export function natsUrlOf(o: ManifestOptions): string {
  return o.natsUrl ?? `nats://${o.name}-nats:4222`;
}

function natsObjects(o: ManifestOptions): K8sObject[] {
  const labels = { 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': 'nats' };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(o, `${o.name}-nats`, 'nats'),
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels: { ...labels, 'app.kubernetes.io/name': 'infermeter' } },
          spec: {
            containers: [
              {
                name: 'nats',
                image: o.natsImage,
                // JetStream keeps the records while the coordinator is away (a restarted coordinator re-reads them).
                args: ['-js', '-sd', '/data', '-p', '4222'],
                ports: [{ name: 'client', containerPort: 4222 }],
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
                resources: resources('500m', '512Mi'),
              },
            ],
            volumes: [{ name: 'data', emptyDir: {} }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(o, `${o.name}-nats`, 'nats'),
      spec: { selector: labels, ports: [{ name: 'client', port: 4222, targetPort: 4222 }] },
    },
  ];
}

function coordinatorJob(o: ManifestOptions): K8sObject {
  const results = o.resultsPvc ? { name: 'results', persistentVolumeClaim: { claimName: o.resultsPvc } } : { name: 'results', emptyDir: {} };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(o, `${o.name}-coordinator`, 'coordinator'),
    spec: {
      completions: 1,
      parallelism: 1,
      // A restarted coordinator resumes the run from the JetStream stream (same --run-id).
      backoffLimit: 2,
      template: {
        metadata: { labels: { 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': 'coordinator' } },
        spec: {
          restartPolicy: 'OnFailure',
          containers: [
            {
              name: 'coordinator',
              image: o.image,
              args: [o.sweep ? 'sweep' : 'run', '--config', `${SPEC_DIR}/${SPEC_FILE}`, ...(o.sweep ?? []), '--distributed', natsUrlOf(o), '--workers-expected', String(o.workers), '--run-id', o.name, '--result-dir', RESULTS_DIR, '--progress', 'lines'],
              volumeMounts: [specMount, { name: 'results', mountPath: RESULTS_DIR }],
              resources: resources(o.coordinatorCpu, o.coordinatorMemory),
            },
          ],
          volumes: [specVolume(o), results],
        },
      },
    },
  };
}

function workerJob(o: ManifestOptions): K8sObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(o, `${o.name}-workers`, 'worker'),
    spec: {
      completionMode: 'Indexed',
      completions: o.workers,
      parallelism: o.workers,
      // Never retried: a second attempt would send its requests twice (the coordinator refuses it anyway).
      backoffLimit: 0,
      template: {
        metadata: { labels: { 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': 'worker' } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'worker',
              image: o.image,
              args: ['worker', '--nats', natsUrlOf(o), '--run-id', o.name, '--config', `${SPEC_DIR}/${SPEC_FILE}`],
              env: [
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
                },
              ],
              volumeMounts: [specMount],
              resources: resources(o.workerCpu, o.workerMemory),
            },
          ],
          volumes: [specVolume(o)],
        },
      },
    },
  };
}

/** Every object, in the order `kubectl apply -f` should create them. */
export function buildManifests(o: ManifestOptions): K8sObject[] {
  const configMap: K8sObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(o, `${o.name}-spec`, 'spec'), data: { [SPEC_FILE]: o.specText } };
  return [configMap, ...(o.natsUrl ? [] : natsObjects(o)), coordinatorJob(o), workerJob(o)];
}
