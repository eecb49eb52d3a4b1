/**
 * Prefix block ids (Mooncake's `hash_ids` convention): a prompt of T tokens has ⌈T/B⌉ blocks of
 * B tokens; blocks with equal ids have identical text, so equal leading ids = a shared prefix.
 */

/** Block ids for a prompt of `total` tokens whose first `shared` tokens are `sharedIds` blocks. */
export function blockIds(sharedIds: readonly number[], sharedTokens: number, total: number, blockSize: number, fresh: () => number): number[] {
  const out: number[] = [];
  const fullShared = Math.floor(sharedTokens / blockSize);
  const nBlocks = Math.ceil(total / blockSize);
  for (let k = 0; k < nBlocks; k++) out.push(k < fullShared ? (sharedIds[k] as number) : fresh());
  return out;
}
