/**
 * Prefix block ids (Mooncake's `hash_ids` convention): a prompt of T tokens has ⌈T/b⌉ blocks of
 * b tokens; blocks with equal ids have identical text, so equal leading ids = a shared prefix.
 * Items carry ids at the engine's KV block size b (`prefix_block_size`, 16), so a simulator can
 * use them as its own block hashes.
 */

/** Block ids for a prompt of `total` tokens whose first `shared` tokens are `sharedIds` blocks. */
export function blockIds(sharedIds: readonly number[], sharedTokens: number, total: number, blockSize: number, fresh: () => number): number[] {
  const out: number[] = [];
  const fullShared = Math.floor(sharedTokens / blockSize);
  const nBlocks = Math.ceil(total / blockSize);
  for (let k = 0; k < nBlocks; k++) out.push(k < fullShared ? (sharedIds[k] as number) : fresh());
  return out;
}

/**
 * Mooncake ids (blocks of B tokens) → ids of b-token sub-blocks (B a multiple of b): block id k,
 * sub-block j ↦ k·(B/b) + j. A sub-block cut short by the prompt's end gets a fresh id (its text
 * is not a full block anywhere else). With B not a multiple of b, the ids stay at B tokens.
 */
export function subdivideIds(
  ids: readonly number[],
  total: number,
  B: number,
  b: number,
  fresh: () => number,
): { ids: number[]; block_tokens: number } {
  if (B % b !== 0) return { ids: [...ids], block_tokens: B };
  const ratio = B / b;
  const out: number[] = [];
  let left = total;
  for (const id of ids) {
    for (let j = 0; j < ratio && left > 0; j++) {
      out.push(left >= b ? id * ratio + j : fresh());
      left -= b;
    }
  }
  while (left > 0) {
    out.push(fresh());
    left -= b;
  }
  return { ids: out, block_tokens: b };
}
