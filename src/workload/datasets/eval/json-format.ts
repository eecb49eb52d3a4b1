/** Eval suite: JSON output with a schema, graded by parsing and JSON-Schema validation (json checks). */
import type { EvalItem } from './item.js';

function item(prompt: string, schema: Record<string, unknown>, reference: string, wrong: string): EvalItem {
  return { task: 'json_format', prompt: `${prompt} Reply with JSON only.`, check: { kind: 'json', schema }, reference, wrong, max_tokens: 128 };
}

const obj = (properties: Record<string, unknown>, required = Object.keys(properties)): Record<string, unknown> => ({ type: 'object', properties, required, additionalProperties: false });

export const JSON_FORMAT: EvalItem[] = [
  item(
    'Describe a person named Ada who is 36 as an object with "name" (string) and "age" (integer).',
    obj({ name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }),
    '{"name": "Ada", "age": 36}',
    '{"name": "Ada", "age": "36"}',
  ),
  item(
    'List the three primary colours of paint as {"colors": [...]}.',
    obj({ colors: { type: 'array', items: { type: 'string' }, minItems: 3, maxItems: 3 } }),
    '```json\n{"colors": ["red", "yellow", "blue"]}\n```',
    '{"colors": ["red", "blue"]}',
  ),
  item('Give the point (3, -4) as an object with numeric "x" and "y".', obj({ x: { type: 'number' }, y: { type: 'number' } }), '{"x": 3, "y": -4}', '{"x": 3}'),
  item(
    'Is 17 even? Answer as {"valid": boolean, "reason": string}.',
    obj({ valid: { type: 'boolean' }, reason: { type: 'string' } }),
    '{"valid": false, "reason": "17 is odd"}',
    '{"valid": "no", "reason": "17 is odd"}',
  ),
  item(
    'Describe the novel "1984" by George Orwell, published in 1949, with "title", "year" (integer) and "authors" (list of strings).',
    obj({ title: { type: 'string' }, year: { type: 'integer' }, authors: { type: 'array', items: { type: 'string' }, minItems: 1 } }),
    '{"title": "1984", "year": 1949, "authors": ["George Orwell"]}',
    '{"title": "1984", "year": 1949, "authors": "George Orwell"}',
  ),
  item(
    'Classify the sentiment of "I love this phone." as {"sentiment": "positive" | "negative" | "neutral"}.',
    obj({ sentiment: { enum: ['positive', 'negative', 'neutral'] } }),
    '{"sentiment": "positive"}',
    '{"sentiment": "happy"}',
  ),
  item(
    'Extract the date from "The meeting is on 14 March 2025." as integers "year", "month" (1-12) and "day" (1-31).',
    obj({ year: { type: 'integer' }, month: { type: 'integer', minimum: 1, maximum: 12 }, day: { type: 'integer', minimum: 1, maximum: 31 } }),
    '```json\n{"year": 2025, "month": 3, "day": 14}\n```',
    '{"year": 2025, "month": "March", "day": 14}',
  ),
  item(
    'Write the settings "localhost on port 8080" as {"host": string, "port": integer}.',
    obj({ host: { type: 'string', minLength: 1 }, port: { type: 'integer', minimum: 1, maximum: 65535 } }),
    '{"host": "localhost", "port": 8080}',
    '{"host": "localhost", "port": 80800}',
  ),
  item(
    'List the first three positive even numbers as {"evens": [...]}.',
    obj({ evens: { type: 'array', items: { type: 'integer', multipleOf: 2 }, minItems: 3, maxItems: 3 } }),
    '{"evens": [2, 4, 6]}',
    '{"evens": [2, 4, 5]}',
  ),
  item(
    'Describe user 7 with e-mail a@example.com as {"user": {"id": integer, "email": string}}.',
    obj({ user: obj({ id: { type: 'integer' }, email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' } }) }),
    '{"user": {"id": 7, "email": "a@example.com"}}',
    '{"user": {"id": 7}}',
  ),
  item(
    'Give the RGB value of pure red as {"r": 0-255, "g": 0-255, "b": 0-255}, integers.',
    obj({ r: { type: 'integer', minimum: 0, maximum: 255 }, g: { type: 'integer', minimum: 0, maximum: 255 }, b: { type: 'integer', minimum: 0, maximum: 255 } }),
    '{"r": 255, "g": 0, "b": 0}',
    '{"r": 256, "g": 0, "b": 0}',
  ),
  item(
    'Return an empty shopping list as {"items": []}.',
    obj({ items: { type: 'array', maxItems: 0 } }),
    '{"items": []}',
    '{"items": null}',
  ),
];
