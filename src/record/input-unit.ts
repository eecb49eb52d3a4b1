/**
 * What a batched request's inputs are (records `inputs`), by endpoint kind: `documents` for rerank
 * and score (a query and N documents), `inputs` for embeddings and every other kind. The kind
 * declares it (client/endpoints, `EndpointKind.inputUnit`), result.json's `metrics.batch.input_unit`
 * records it, and every label of those figures — summary, report, sweep table — is made here.
 */
export type InputUnit = 'inputs' | 'documents';

/** The unit of a figure set's inputs: its `batch.input_unit`, else (older results, embeddings) `inputs`. */
export function inputUnitOf(m: { batch?: { input_unit?: InputUnit } | null }): InputUnit {
  return m.batch?.input_unit ?? 'inputs';
}

/** `Inputs` / `Documents`: a table row's label. */
export function inputUnitTitle(unit: InputUnit): string {
  return unit === 'documents' ? 'Documents' : 'Inputs';
}

/** What the batch size is called: `batch size` (inputs per request) / `documents per request`. */
export function batchSizeText(unit: InputUnit): string {
  return unit === 'documents' ? 'documents per request' : 'batch size';
}
