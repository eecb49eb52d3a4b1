/**
 * createWorkload: spec → Workload. Loads the tokenizer and dataset up front, so every user error
 * (bad file, malformed dataset, unknown tokenizer) surfaces before the run starts.
 */
import { UserError } from '../errors/user-error.js';
import { entriesWorkload } from './datasets/dataset-workload.js';
import type { Entry } from './datasets/entries.js';
import { Issues, defaultWarn } from './datasets/entries.js';
import { EVAL_SOURCE, evalEntries } from './datasets/eval-dataset.js';
import { readHf } from './datasets/hf.js';
import { readJsonl } from './datasets/jsonl.js';
import { prefixWorkload } from './datasets/prefix.js';
import { randomWorkload } from './datasets/random.js';
import { readShareGpt } from './datasets/sharegpt.js';
import { traceWorkload } from './datasets/trace.js';
import { resolveEmpirical } from './lengths.js';
import { mixWorkload } from './mix.js';
import { batchWorkload } from './batch.js';
import type { SubWorkloadSpec, WorkloadSpec } from './spec.js';
import type { TextMaker } from './synthetic.js';
import { createTextMaker, lengthsOnlyMaker } from './synthetic.js';
import { loadTokenizer } from './tokenizers/load.js';
import { imageFolderWorkload, loadImageRefs, readImageFolder, resolveImageRef, type ImageStore } from './media/files.js';
import { randomImagesWorkload } from './media/random-mm.js';
import { AudioStore, audioFolderWorkload, randomAudioWorkload } from './media/audio.js';
import { scaledEstimate } from './tokenizer.js';
import type { Workload, WorkloadOptions } from './types.js';

export async function createWorkload(spec: WorkloadSpec, opts: WorkloadOptions): Promise<Workload> {
  const w = spec.tasks ? await mixWorkload(spec, opts, createSubWorkload) : await createSubWorkload(spec, opts, 'workload');
  return batchWorkload(w, opts.batchSize ?? 1);
}

export async function createSubWorkload(spec: SubWorkloadSpec, opts: WorkloadOptions, field: string): Promise<Workload> {
  const resolved: SubWorkloadSpec = { ...spec };
  if (spec.input_len) resolved.input_len = await resolveEmpirical(spec.input_len, `${field}.input_len`);
  if (spec.output_len) resolved.output_len = await resolveEmpirical(spec.output_len, `${field}.output_len`);
  const scale = opts.tokenScale ?? 1;
  const tokenizer = spec.tokenizer === null && scale !== 1 ? scaledEstimate(scale) : await loadTokenizer(spec.tokenizer, `${field}.tokenizer`);
  const synthetic = spec.dataset_name === 'random' || spec.dataset_name === 'prefix' || spec.dataset_name === 'trace' || spec.dataset_name === 'random-mm' || spec.dataset_name === 'images' || spec.dataset_name === 'random-audio' || spec.dataset_name === 'audio';
  const maker = opts.lengthsOnly && synthetic ? lengthsOnlyMaker(tokenizer) : createTextMaker(tokenizer, spec.prompt_salt);
  switch (spec.dataset_name) {
    case 'random':
      return randomWorkload(resolved, opts.seed, maker, opts.endpointKind);
    case 'random-mm':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: random-mm has no sessions`);
      return randomImagesWorkload(randomWorkload(resolved, opts.seed, maker, opts.endpointKind), resolved, opts.seed, opts.lengthsOnly === true, field);
    case 'images': {
      if (spec.session_turns) throw new UserError(`${field}.session_turns: the images dataset has no sessions`);
      if (spec.dataset_path === null) throw new UserError(`${field}.dataset_path: required for --dataset-name images (a folder of images)`);
      const folder = await readImageFolder(spec.dataset_path, `${field}.dataset_path`);
      return imageFolderWorkload(randomWorkload(resolved, opts.seed, maker, opts.endpointKind), resolved, opts.seed, folder, opts.lengthsOnly === true);
    }
    case 'random-audio':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: random-audio has no sessions`);
      return randomAudioWorkload(randomWorkload(resolved, opts.seed, maker, opts.endpointKind), resolved, opts.seed, opts.lengthsOnly === true);
    case 'audio':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: the audio dataset has no sessions`);
      if (spec.dataset_path === null) throw new UserError(`${field}.dataset_path: required for --dataset-name audio (a folder of audio files)`);
      return audioFolderWorkload(randomWorkload(resolved, opts.seed, maker, opts.endpointKind), resolved, opts.seed, spec.dataset_path, `${field}.dataset_path`, opts.lengthsOnly === true);
    case 'prefix':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: the prefix dataset has no sessions (use random with system_prompt_len)`);
      return prefixWorkload(resolved, opts.seed, maker, opts.numPrompts);
    case 'trace':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: trace replay has no sessions`);
      return traceWorkload(resolved, opts.seed, maker, opts.warn ?? defaultWarn, field);
    case 'sharegpt':
    case 'jsonl':
    case 'hf':
      return fileDataset(resolved, opts, maker, field);
    case 'eval':
      if (spec.session_turns) throw new UserError(`${field}.session_turns: the eval suite has no sessions`);
      return entriesWorkload(evalEntries(), resolved, opts.seed, { dataset: 'eval', path: EVAL_SOURCE, maker, issues: new Issues(EVAL_SOURCE, opts.warn ?? defaultWarn), kind: opts.endpointKind });
  }
}

async function fileDataset(spec: SubWorkloadSpec, opts: WorkloadOptions, maker: TextMaker, field: string): Promise<Workload> {
  const path = spec.dataset_path;
  if (path === null) throw new UserError(`${field}.dataset_path: required for --dataset-name ${spec.dataset_name}`);
  const warn = opts.warn ?? defaultWarn;
  let entries: Entry[];
  let issues: Issues;
  let source = path;
  if (spec.dataset_name === 'hf') {
    const r = await readHf(spec, warn);
    entries = r.entries;
    issues = r.issues;
    source = r.source;
  } else {
    issues = new Issues(path, warn);
    entries =
      spec.dataset_name === 'sharegpt'
        ? await readShareGpt(path, issues, { keepConversation: spec.session_turns !== null })
        : await readJsonl(path, issues);
  }
  const refs = entries.flatMap((e) => (e.images ?? []).map((r, k) => ({ entry: e, k, ref: resolveImageRef(r, path) })));
  let images: { store: ImageStore; sizeOnly: boolean } | undefined;
  if (refs.length > 0) {
    if (spec.session_turns) throw new UserError(`${field}.session_turns: ${path} has images, which sessions do not send`);
    const store = await loadImageRefs(refs.map((r) => ({ ref: r.ref, where: `${path}:${r.entry.line}` })));
    for (const r of refs) r.entry.images![r.k] = r.ref;
    images = { store, sizeOnly: opts.lengthsOnly === true };
  }
  // JSONL `audio`: each clip read and checked by its magic bytes before the run, as a folder's.
  let audio: { store: AudioStore; sizeOnly: boolean } | undefined;
  const clips = entries.filter((e) => e.audio !== undefined);
  if (clips.length > 0) {
    if (spec.session_turns) throw new UserError(`${field}.session_turns: ${path} has audio, which sessions do not send`);
    const store = new AudioStore();
    for (const e of clips) {
      e.audio = resolveImageRef(e.audio!, path);
      await store.addFile(e.audio, `${path}:${e.line}`);
    }
    audio = { store, sizeOnly: opts.lengthsOnly === true };
  }
  return entriesWorkload(entries, spec, opts.seed, { dataset: spec.dataset_name, path: source, maker, issues, kind: opts.endpointKind, ...(images ? { images } : {}), ...(audio ? { audio } : {}) });
}
