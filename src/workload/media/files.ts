/**
 * Images from local files: a folder (`--dataset-name images --dataset-path DIR`) or the `image`
 * / `images` fields of a JSONL dataset (paths relative to the file, http(s) URLs sent as they
 * are, or data URLs). Every file is read and checked by its magic bytes before the run (PNG,
 * JPEG, GIF, WebP): anything else is one line naming the file and the reason, exit 2. The bytes
 * are held once; each request's data URL is built when the request is.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import { imageMime, imageSize, sniffImage, type ImageFormat, type MediaItem } from '../../util/media.js';
import { createRng, shuffle } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { WorkItem, Workload } from '../types.js';
import { DEFAULT_MM_BASE_ITEMS } from './random-mm.js';

/** Image bytes a run may hold in memory (the files are read before the run). */
export const MAX_IMAGE_BYTES = 1024 * 1024 * 1024;
/** One image at most: its data URL must stay a string V8 can hold. */
const MAX_ONE_IMAGE = 256 * 1024 * 1024;

interface HeldImage {
  bytes: Buffer;
  format: ImageFormat;
  width: number | null;
  height: number | null;
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** Images read and checked, by the reference the dataset gives (a path, resolved) or a URL. */
export class ImageStore {
  private readonly held = new Map<string, HeldImage>();
  private total = 0;

  /** Reads and checks one file; `where` names the dataset line that refers to it, if any. */
  async addFile(path: string, where: string | null): Promise<void> {
    if (this.held.has(path)) return;
    const at = where === null ? path : `${where}: ${path}`;
    let bytes: Buffer;
    try {
      const st = await stat(path);
      if (!st.isFile()) throw new UserError(`${at}: not a file`);
      if (st.size > MAX_ONE_IMAGE) throw new UserError(`${at}: ${mib(st.size)} is larger than one image may be (${mib(MAX_ONE_IMAGE)})`);
      if (this.total + st.size > MAX_IMAGE_BYTES) throw new UserError(`${at}: the images add up to more than ${mib(MAX_IMAGE_BYTES)}, held in memory for the run; use fewer or smaller images`);
      bytes = await readFile(path);
    } catch (e) {
      if (e instanceof UserError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UserError(`${at}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `cannot read (${code ?? String(e)})`}`);
    }
    const format = sniffImage(bytes);
    if (format === null) throw new UserError(`${at}: not an image (its first bytes are not PNG, JPEG, GIF or WebP)`);
    const size = imageSize(bytes);
    this.total += bytes.length;
    this.held.set(path, { bytes, format, width: size?.width ?? null, height: size?.height ?? null });
  }

  /** The request's part for a reference: held bytes as a data URL, or a URL as it is. */
  item(ref: string): MediaItem {
    const h = this.held.get(ref);
    if (h) return { type: 'image', url: `data:${imageMime(h.format)};base64,${h.bytes.toString('base64')}`, bytes: h.bytes.length, width: h.width, height: h.height };
    return urlImage(ref);
  }

  /** What a lengths-only workload (virtual time) needs: the size and bytes, no data URL. */
  sizeOnly(ref: string): MediaItem {
    const h = this.held.get(ref);
    if (h) return { type: 'image', url: '', bytes: h.bytes.length, width: h.width, height: h.height };
    return urlImage(ref);
  }

  get count(): number {
    return this.held.size;
  }
  get bytes(): number {
    return this.total;
  }
}

/** An http(s) or data URL as a part; a data URL's image is decoded for its size. */
function urlImage(url: string): MediaItem {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const b = Buffer.from(url.slice(comma + 1), 'base64');
    const size = imageSize(b);
    return { type: 'image', url, bytes: b.length, width: size?.width ?? null, height: size?.height ?? null };
  }
  return { type: 'image', url, bytes: 0, width: null, height: null };
}

const isUrl = (ref: string): boolean => /^(https?|data):/i.test(ref);

/** A reference of a dataset line: a URL as it is, a path resolved against the dataset file's folder. */
export function resolveImageRef(ref: string, datasetPath: string): string {
  return isUrl(ref) || isAbsolute(ref) ? ref : resolve(dirname(datasetPath), ref);
}

/** A dataset line's `image` (one) or `images` (a list), as written; a reason string when malformed, null when absent. */
export function imageRefs(o: Record<string, unknown>): string[] | string | null {
  const one = o['image'];
  const many = o['images'];
  if (one === undefined && many === undefined) return null;
  const list = many !== undefined ? many : [one];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || x === '')) return `${many !== undefined ? 'images must be a list of' : 'image must be a'} non-empty path or URL string${many !== undefined ? 's' : ''}`;
  return list as string[];
}

/** Checks every image a dataset refers to (data URLs too), in order, before the run. */
export async function loadImageRefs(refs: ReadonlyArray<{ ref: string; where: string }>): Promise<ImageStore> {
  const store = new ImageStore();
  for (const { ref, where } of refs) {
    if (/^https?:/i.test(ref)) continue;
    if (ref.startsWith('data:')) {
      const m = /^data:([^;,]*)(;base64)?,/.exec(ref);
      if (!m || !m[2]) throw new UserError(`${where}: a data URL image must be base64 (data:image/png;base64,…)`);
      if (sniffImage(Buffer.from(ref.slice(m[0].length, m[0].length + 64), 'base64')) === null) throw new UserError(`${where}: the data URL is not an image (its first bytes are not PNG, JPEG, GIF or WebP)`);
      continue;
    }
    await store.addFile(ref, where);
  }
  return store;
}

/** Every regular file of a folder but hidden ones, sorted by name; each checked as an image. */
export async function readImageFolder(dir: string, field: string): Promise<{ store: ImageStore; files: string[] }> {
  let names: string[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw new UserError(`${field}: ${dir} is not a folder (--dataset-name images reads a folder of images; a JSONL with image paths is --dataset-name jsonl)`);
    names = (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${field}: ${dir}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`}`);
  }
  const store = new ImageStore();
  const files = names.map((n) => join(dir, n));
  for (const f of files) await store.addFile(f, null);
  if (files.length === 0) throw new UserError(`${field}: ${dir} holds no image`);
  return { store, files };
}

/**
 * The random workload's text with images from a folder: each request takes the next
 * --random-mm-base-items-per-request images (default 1) of the folder, in an order shuffled by
 * the seed (file order with --sampling sequential), starting again when all were sent.
 */
export function imageFolderWorkload(w: Workload, spec: SubWorkloadSpec, seed: number, folder: { store: ImageStore; files: string[] }, lengthsOnly: boolean): Workload {
  const per = spec.random_mm_base_items_per_request ?? DEFAULT_MM_BASE_ITEMS;
  const rng = createRng(`images:${seed}`);
  let order: string[] = [];
  let at = 0;
  const take = (): string => {
    if (at >= order.length) {
      order = spec.sampling === 'sequential' ? [...folder.files] : shuffle(rng, [...folder.files]);
      at = 0;
    }
    return order[at++]!;
  };
  const attach = (item: WorkItem): WorkItem => {
    if (per === 0) return item;
    const media: MediaItem[] = [];
    for (let i = 0; i < per; i++) {
      const f = take();
      media.push(lengthsOnly ? folder.store.sizeOnly(f) : folder.store.item(f));
    }
    return { ...item, media };
  };
  return {
    ...(w.countTokens ? { countTokens: w.countTokens.bind(w) } : {}),
    ...(w.lengthBounds ? { lengthBounds: w.lengthBounds.bind(w) } : {}),
    next: () => attach(w.next()),
    get skipped() {
      return w.skipped;
    },
    media: ['image'],
    describe: () => ({ ...w.describe(), dataset: 'images', path: spec.dataset_path, images: folder.files.length, image_bytes: folder.store.bytes, images_per_request: per }),
  };
}
