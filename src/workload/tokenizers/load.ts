/**
 * Resolves `--tokenizer NAME_OR_PATH` to a Tokenizer. null → the estimate.
 */
import { UserError } from '../../errors/user-error.js';
import type { Tokenizer } from '../tokenizer.js';
import { estimateTokenizer } from '../tokenizer.js';

export async function loadTokenizer(nameOrPath: string | null, field = 'workload.tokenizer'): Promise<Tokenizer> {
  if (nameOrPath === null || nameOrPath === 'estimate') return estimateTokenizer;
  throw new UserError(`${field}: unknown tokenizer ${JSON.stringify(nameOrPath)}`);
}
