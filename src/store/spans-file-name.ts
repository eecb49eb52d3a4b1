/** The spans file's name in a run directory, apart from its reader (store/spans-file.ts loads protobufjs). */
export const SPANS_FILE = 'spans.jsonl';
