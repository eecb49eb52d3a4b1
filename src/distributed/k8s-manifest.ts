/**
 * The Kubernetes objects of a distributed run (`infermeter k8s manifest`): the run spec in a
 * ConfigMap (its secrets in a Secret), one ServiceAccount with no permissions, the workers as an
 * Indexed Job (pod i is worker i through JOB_COMPLETION_INDEX), the coordinator as a Job, and a
 * single-node NATS with JetStream (Deployment + Service) unless the cluster already has one.
 * Every pod passes the "restricted" Pod Security Standard. Plain objects: the command turns them
 * into YAML. docs/distributed.md §Kubernetes says why each field is what it is.
 */
import { EXIT_CODES } from '../errors/exit-codes.js';

export interface ManifestOptions {
  /** Names every object and is the run id both sides use (--run-id). */
  name: string;
  namespace: string | null;
  workers: number;
  image: string;
  /** infermeter's version: the app.kubernetes.io/version label. */
  version: string;
  /** An existing NATS server; null: deploy one. */
  natsUrl: string | null;
  natsImage: string;
  /** The run spec file's text without its secrets, mounted for coordinator and workers alike. */
  specText: string;
  /** Secret values taken out of the spec, handed to both sides as flags through env (secretKeyRef). */
  secrets: SecretFlag[];
  /** The API key: an existing Secret's key, put in the env variable the spec reads it from (target.api_key_env). */
  apiKey: { env: string; secret: string; key: string } | null;
  workerCpu: string;
  workerMemory: string;
  coordinatorCpu: string;
  coordinatorMemory: string;
  /** A PersistentVolumeClaim for the coordinator's run directory; null: an emptyDir (the results go to NATS). */
  resultsPvc: string | null;
  /** A distributed sweep: the coordinator's stage flags (`--request-rates 10,20,40`, …); null: a run. */
  sweep: string[] | null;
  /** Both Jobs' activeDeadlineSeconds (runDeadlineSeconds). */
  activeDeadlineSeconds: number;
  /** Both Jobs' ttlSecondsAfterFinished. */
  ttlSecondsAfterFinished: number;
}

/** A secret of the spec, passed as `flag`, `prefix + $(ENV)`: Kubernetes puts the Secret's value in for $(ENV). */
export interface SecretFlag {
  /** The key in the generated Secret, and where its value is taken from. */
  key: string;
  value: string;
  /** The CLI flag that carries it: --header or --base-url. */
  flag: string;
  /** What goes before the value in the flag's argument ("Authorization: " for a header). */
  prefix: string;
  /** Where the spec had it (target.headers.Authorization): for the note the command prints. */
  source: string;
}

export type K8sObject = Record<string, unknown>;

const SPEC_DIR = '/etc/infermeter';
const SPEC_FILE = 'spec.yaml';
export const RESULTS_DIR = '/results';
/** The image's user (node:20's `node`): the pods run as it, and fsGroup makes a claim writable by it. */
export const POD_USER = 1000;
/** How long a finished Job (and its pods' logs) is kept: a day to read them; the results are on NATS or the claim. */
export const DEFAULT_TTL_SECONDS = 86_400;
/**
 * Added to the run's own length for activeDeadlineSeconds: the coordinator's default --worker-wait
 * (10 min, the pods being scheduled and pulling the image), then the start delay, the draining,
 * the report and the upload to NATS (5 min).
 */
export const DEADLINE_MARGIN_SECONDS = 15 * 60;

/**
 * Where the coordinator and every worker serve their client metrics (`--metrics-port`, the
 * OpenTelemetry Prometheus exporter's conventional port; names in docs/observe.md): a named
 * containerPort `metrics`, and the `prometheus.io/*` pod annotations that annotation-based scrape
 * configs read. A PodMonitor (Prometheus Operator) is the operator's choice: it selects the pods
 * by the app.kubernetes.io/* labels and the port name (docs/distributed.md §Kubernetes).
 */
export const METRICS_PORT = 9464;
const metricsArgs = ['--metrics-port', String(METRICS_PORT)];
const metricsPort = { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' };
const scrapeAnnotations = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(METRICS_PORT), 'prometheus.io/path': '/metrics' };

/**
 * Exit codes that are verdicts (src/errors/exit-codes.ts): running the pod again cannot change
 * them, so they end the Job at once.
 */
export const VERDICT_EXIT_CODES = [EXIT_CODES.USAGE, EXIT_CODES.SLO_FAILED, EXIT_CODES.REGRESSION, EXIT_CODES.INVALID_RUN] as const;
/** Exit codes a new pod may cure: an internal error (a crash) and SIGKILL (137: OOM or the node going away). */
export const RETRIED_EXIT_CODES = [EXIT_CODES.INTERNAL, 137] as const;
/** Coordinator pods tried at most this many more times, after an exit in RETRIED_EXIT_CODES. */
export const COORDINATOR_RETRIES = 2;

function labels(o: ManifestOptions, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'infermeter',
    'app.kubernetes.io/instance': o.name,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/part-of': 'infermeter',
    'app.kubernetes.io/version': o.version.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 63),
    'app.kubernetes.io/managed-by': 'infermeter-k8s-manifest',
  };
}

/** What selects a component's pods: instance and component (the name and version labels may change). */
function selector(o: ManifestOptions, component: string): Record<string, string> {
  return { 'app.kubernetes.io/instance': o.name, 'app.kubernetes.io/component': component };
}

function meta(o: ManifestOptions, name: string, component: string): K8sObject {
  return { name, ...(o.namespace ? { namespace: o.namespace } : {}), labels: labels(o, component) };
}

function resources(cpu: string, memory: string): K8sObject {
  return { requests: { cpu, memory }, limits: { cpu, memory } };
}

/** The restricted Pod Security Standard, pod level. */
const podSecurity = {
  runAsNonRoot: true,
  runAsUser: POD_USER,
  runAsGroup: POD_USER,
  fsGroup: POD_USER,
  seccompProfile: { type: 'RuntimeDefault' },
};

/** The restricted Pod Security Standard, container level; the root filesystem read-only (scratch is an emptyDir at /tmp). */
const containerSecurity = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
};

const specVolume = (o: ManifestOptions) => ({ name: 'spec', configMap: { name: `${o.name}-spec` } });
const specMount = { name: 'spec', mountPath: SPEC_DIR, readOnly: true };
const scratchVolume = { name: 'tmp', emptyDir: {} };
const scratchMount = { name: 'tmp', mountPath: '/tmp' };

export function natsUrlOf(o: ManifestOptions): string {
  return o.natsUrl ?? `nats://${o.name}-nats:4222`;
}

const secretName = (o: ManifestOptions) => `${o.name}-secrets`;
const secretEnvName = (i: number) => `INFERMETER_SECRET_${i}`;

/** The env of both sides: each secret from the Secret (and the API key from the user's own). */
function secretEnv(o: ManifestOptions): K8sObject[] {
  const env: K8sObject[] = o.secrets.map((s, i) => ({ name: secretEnvName(i), valueFrom: { secretKeyRef: { name: secretName(o), key: s.key } } }));
  if (o.apiKey) env.push({ name: o.apiKey.env, valueFrom: { secretKeyRef: { name: o.apiKey.secret, key: o.apiKey.key } } });
  return env;
}

/** The secrets as flags: Kubernetes expands $(VAR) in args from the container's env, so no value is in the Job. */
function secretArgs(o: ManifestOptions): string[] {
  return o.secrets.flatMap((s, i) => [s.flag, `${s.prefix}$(${secretEnvName(i)})`]);
}

/** The pod spec both Jobs and NATS share: the restricted security context, no API token, scratch at /tmp. */
function podSpec(o: ManifestOptions, container: K8sObject, volumes: K8sObject[], extra: K8sObject = {}): K8sObject {
  return {
    serviceAccountName: o.name,
    automountServiceAccountToken: false,
    securityContext: podSecurity,
    containers: [{ ...container, securityContext: containerSecurity, volumeMounts: [...((container.volumeMounts as K8sObject[] | undefined) ?? []), scratchMount] }],
    volumes: [...volumes, scratchVolume],
    ...extra,
  };
}

function natsObjects(o: ManifestOptions): K8sObject[] {
  const probe = (path: string, seconds: number) => ({ httpGet: { path, port: 'monitor' }, periodSeconds: seconds, timeoutSeconds: 2, failureThreshold: 3 });
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(o, `${o.name}-nats`, 'nats'),
      spec: {
        replicas: 1,
        selector: { matchLabels: selector(o, 'nats') },
        template: {
          metadata: { labels: labels(o, 'nats') },
          spec: podSpec(
            o,
            {
              name: 'nats',
              image: o.natsImage,
              // JetStream keeps the records while the coordinator is away (a restarted coordinator re-reads them) and the results after it.
              args: ['-js', '-sd', '/data', '-p', '4222', '-m', '8222'],
              ports: [
                { name: 'client', containerPort: 4222 },
                { name: 'monitor', containerPort: 8222 },
              ],
              // Ready once JetStream answers (the coordinator's stream and the results bucket need it); alive while the server does.
              readinessProbe: probe('/healthz?js-enabled-only=true', 5),
              livenessProbe: { ...probe('/healthz', 10), initialDelaySeconds: 10 },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
              resources: resources('500m', '512Mi'),
            },
            [{ name: 'data', emptyDir: {} }],
          ),
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(o, `${o.name}-nats`, 'nats'),
      spec: { selector: selector(o, 'nats'), ports: [{ name: 'client', port: 4222, targetPort: 'client' }] },
    },
  ];
}

/**
 * The coordinator's failure policy: a verdict (2, 3, 4, 5) ends the Job at once; a pod evicted
 * or lost with its node (DisruptionTarget) is started again without counting; an internal error
 * or a SIGKILL (1, 137) is retried up to COORDINATOR_RETRIES times (the new pod resumes the run,
 * or, if the run had finished, reports it and exits with its verdict); any other exit (a stop
 * signal) ends the Job.
 */
export function coordinatorFailurePolicy(): K8sObject {
  return {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'coordinator', operator: 'In', values: [...VERDICT_EXIT_CODES] } },
      { action: 'Count', onExitCodes: { containerName: 'coordinator', operator: 'In', values: [...RETRIED_EXIT_CODES] } },
      { action: 'FailJob', onExitCodes: { containerName: 'coordinator', operator: 'NotIn', values: [...RETRIED_EXIT_CODES] } },
    ],
  };
}

function coordinatorJob(o: ManifestOptions): K8sObject {
  const results = o.resultsPvc ? { name: 'results', persistentVolumeClaim: { claimName: o.resultsPvc } } : { name: 'results', emptyDir: {} };
  const args = [o.sweep ? 'sweep' : 'run', '--config', `${SPEC_DIR}/${SPEC_FILE}`, ...secretArgs(o), ...(o.sweep ?? []), '--distributed', natsUrlOf(o), '--workers-expected', String(o.workers), '--run-id', o.name, '--result-dir', RESULTS_DIR, '--progress', 'lines', '--store-results', ...metricsArgs];
  const env = secretEnv(o);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(o, `${o.name}-coordinator`, 'coordinator'),
    spec: {
      completions: 1,
      parallelism: 1,
      // A sweep is not resumed (a restarted sweep coordinator starts afresh and its workers leave): never retried.
      backoffLimit: o.sweep ? 0 : COORDINATOR_RETRIES,
      podFailurePolicy: coordinatorFailurePolicy(),
      activeDeadlineSeconds: o.activeDeadlineSeconds,
      ttlSecondsAfterFinished: o.ttlSecondsAfterFinished,
      template: {
        metadata: { labels: labels(o, 'coordinator'), annotations: scrapeAnnotations },
        spec: podSpec(
          o,
          {
            name: 'coordinator',
            image: o.image,
            args,
            ports: [metricsPort],
            ...(env.length > 0 ? { env } : {}),
            volumeMounts: [specMount, { name: 'results', mountPath: RESULTS_DIR }],
            resources: resources(o.coordinatorCpu, o.coordinatorMemory),
          },
          [specVolume(o), results],
          // podFailurePolicy needs Never: every retry is a new pod the policy sees.
          { restartPolicy: 'Never' },
        ),
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
      // A worker is never retried (a second attempt would send its share twice; the coordinator
      // refuses it anyway), and one failed worker does not stop the others: the coordinator's
      // verdict names it (partial_result) and keeps what the rest measured.
      backoffLimitPerIndex: 0,
      maxFailedIndexes: o.workers,
      activeDeadlineSeconds: o.activeDeadlineSeconds,
      ttlSecondsAfterFinished: o.ttlSecondsAfterFinished,
      template: {
        metadata: { labels: labels(o, 'worker'), annotations: scrapeAnnotations },
        spec: podSpec(
          o,
          {
            name: 'worker',
            image: o.image,
            args: ['worker', '--nats', natsUrlOf(o), '--run-id', o.name, '--config', `${SPEC_DIR}/${SPEC_FILE}`, ...secretArgs(o), ...metricsArgs],
            ports: [metricsPort],
            env: [
              {
                name: 'JOB_COMPLETION_INDEX',
                valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
              },
              ...secretEnv(o),
            ],
            volumeMounts: [specMount],
            resources: resources(o.workerCpu, o.workerMemory),
          },
          [specVolume(o)],
          {
            restartPolicy: 'Never',
            // One worker per node where the cluster has the nodes: two workers on one node share its cores and its network.
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector(o, 'worker') } },
            ],
          },
        ),
      },
    },
  };
}

/** Every object, in the order `kubectl apply -f` should create them. */
export function buildManifests(o: ManifestOptions): K8sObject[] {
  const configMap: K8sObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(o, `${o.name}-spec`, 'spec'), data: { [SPEC_FILE]: o.specText } };
  // No Role or RoleBinding: the pods talk to NATS and the server, never to the Kubernetes API.
  const account: K8sObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(o, o.name, 'account'), automountServiceAccountToken: false };
  const secret: K8sObject[] =
    o.secrets.length === 0 ? [] : [{ apiVersion: 'v1', kind: 'Secret', metadata: meta(o, secretName(o), 'secrets'), type: 'Opaque', stringData: Object.fromEntries(o.secrets.map((s) => [s.key, s.value])) }];
  return [account, configMap, ...secret, ...(o.natsUrl ? [] : natsObjects(o)), coordinatorJob(o), workerJob(o)];
}

/** What the length of a run is made of, from its spec (durations in ms). */
export interface RunLength {
  duration_ms: number | null;
  num_prompts: number | null;
  /** Open loop: requests/s (Infinity: all at once); null: a closed loop. */
  request_rate: number | null;
  ramp_up_ms: number;
  grace_ms: number;
  timeout_ms: number;
}

/**
 * How long the load of one run (or stage) can last, in seconds; null when the spec does not
 * bound it in time (a closed loop of a request count: its length is the server's). A run of a
 * duration ends its in-flight requests within grace_ms; one of a count may wait for its last
 * request as long as the request timeout.
 */
export function runLengthSeconds(l: RunLength): number | null {
  if (l.duration_ms !== null) return (l.duration_ms + l.grace_ms) / 1000;
  if (l.request_rate === null || l.num_prompts === null) return null;
  const sending = l.request_rate === Infinity ? 0 : l.num_prompts / l.request_rate;
  return l.ramp_up_ms / 1000 + sending + l.timeout_ms / 1000;
}

/**
 * activeDeadlineSeconds: the load's length (each stage's, in a sweep: its rate, null for a closed-loop stage)
 * plus DEADLINE_MARGIN_SECONDS, rounded up; null when the length is not known from the spec.
 */
export function runDeadlineSeconds(l: RunLength, stageRates: Array<number | null> | null): number | null {
  const stages = stageRates === null ? [l] : stageRates.map((r) => ({ ...l, request_rate: r }));
  let total = 0;
  for (const s of stages) {
    const t = runLengthSeconds(s);
    if (t === null) return null;
    total += t;
  }
  return Math.ceil(total + DEADLINE_MARGIN_SECONDS);
}
