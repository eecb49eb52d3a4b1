/**
 * Task mixes: a weighted mix of named sub-workloads (e.g. chat 70, rag 20, code 10). Each
 * request picks a task with probability weight / Σ weights (seeded), takes that task's next item
 * and carries `task: name`. A task inherits every field it does not set from the enclosing
 * workload, and draws from its own seed stream (seed + name), so adding a task does not change
 * another task's prompts.
 */
import { UserError } from '../errors/user-error.js';
import { createRng, fnv1a } from '../util/rng.js';
import type { SubWorkloadSpec, TaskSpec, WorkloadSpec } from './spec.js';
import type { Session, TimedItem, WorkItem, Workload, WorkloadOptions } from './types.js';

export type SubFactory = (spec: SubWorkloadSpec, opts: WorkloadOptions, field: string) => Promise<Workload>;

/** The task's effective spec: its own fields over the enclosing workload's. */
export function taskSpec(parent: WorkloadSpec, task: TaskSpec): SubWorkloadSpec {
  const { tasks: _tasks, ...base } = parent;
  const { name: _name, weight: _weight, ...own } = task;
  const defined = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined));
  return { ...base, ...defined } as SubWorkloadSpec;
}

export async function mixWorkload(spec: WorkloadSpec, opts: WorkloadOptions, create: SubFactory): Promise<Workload> {
  const tasks = spec.tasks as TaskSpec[];
  const subs: Workload[] = [];
  for (const [i, t] of tasks.entries()) {
    subs.push(await create(taskSpec(spec, t), { ...opts, seed: fnv1a(`${opts.seed}:task:${t.name}`) }, `workload.tasks[${i}]`));
  }
  const total = tasks.reduce((s, t) => s + t.weight, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const t of tasks) cumulative.push((acc += t.weight / total));
  const rng = createRng(`${opts.seed}:mix`);
  const pick = (): number => {
    const u = rng.next();
    const i = cumulative.findIndex((c) => u < c);
    return i < 0 ? tasks.length - 1 : i;
  };
  // Block ids are per task; interleave them (id·T + task index) so two tasks never share one.
  const T = tasks.length;
  const label = (item: WorkItem, i: number): WorkItem => {
    const name = (tasks[i] as TaskSpec).name;
    const out: WorkItem = { ...item, task: name, session: item.session === null ? null : `${name}/${item.session}` };
    if (item.prefix_hash_ids) out.prefix_hash_ids = item.prefix_hash_ids.map((id) => id * T + i);
    return out;
  };
  const timedCount = subs.filter((w) => w.timed).length;
  if (timedCount > 0 && timedCount < subs.length) {
    throw new UserError('workload.tasks: trace tasks cannot be mixed with untimed tasks (all tasks must be traces, or none)');
  }
  let timed: TimedItem[] | undefined;
  if (timedCount > 0) {
    // Traces in a mix are merged on one timeline; weights do not apply.
    timed = subs.flatMap((w, i) => (w.timed as TimedItem[]).map((t) => ({ at_ms: t.at_ms, item: label(t.item, i) }))).sort((a, b) => a.at_ms - b.at_ms);
  }
  const counter = subs.find((w) => w.countTokens)?.countTokens;
  let k = 0;
  const mix: Workload = {
    skipped: subs.reduce((s, w) => s + w.skipped, 0),
    // A timed mix hands out its merged timeline in order (the Workload contract); otherwise by weight.
    next: timed
      ? () => (timed[k++ % timed.length] as TimedItem).item
      : () => {
          const i = pick();
          return label((subs[i] as Workload).next(), i);
        },
    describe: () => ({
      dataset: 'mix',
      tasks: tasks.map((t, i) => ({ name: t.name, weight: t.weight, share: t.weight / total, ...(subs[i] as Workload).describe() })),
    }),
  };
  if (timed) Object.assign(mix, { timed });
  if (subs.some((w) => w.nextSession)) {
    let single = 0;
    mix.nextSession = (): Session => {
      const i = pick();
      const w = subs[i] as Workload;
      const s = w.nextSession ? w.nextSession() : { id: `single${single++}`, turns: [w.next()] };
      return { id: `${(tasks[i] as TaskSpec).name}/${s.id}`, turns: s.turns.map((t) => label(t, i)) };
    };
  }
  if (counter) mix.countTokens = counter;
  // Every task's checked entries, under the task's name (the label its work items carry).
  if (subs.some((w) => w.answerSources)) mix.answerSources = () => subs.flatMap((w, i) => (w.answerSources?.() ?? []).map((src) => ({ ...src, task: (tasks[i] as TaskSpec).name })));
  mix.lengthBounds = () => {
    const all = subs.map((w) => w.lengthBounds?.() ?? { prompt: null, output: null });
    const top = (xs: Array<number | null>): number | null => (xs.some((x) => x === null) ? null : Math.max(...(xs as number[])));
    return { prompt: top(all.map((b) => b.prompt)), output: top(all.map((b) => b.output)) };
  };
  return mix;
}
