/** Eval suite: arithmetic and unit conversion, graded by the final number (numeric checks). */
import type { EvalItem } from './item.js';

const SUFFIX = ' Give the final answer as a number on the last line.';

function item(task: string, prompt: string, expected: number, reference: string, wrong: string, tolerance = 0): EvalItem {
  return { task, prompt: prompt + SUFFIX, check: { kind: 'numeric', expected, ...(tolerance > 0 ? { tolerance } : {}) }, reference, wrong, max_tokens: 64 };
}

export const ARITHMETIC: EvalItem[] = [
  item('arithmetic', 'What is 17 × 23?', 391, '17 × 23 = 391', '17 × 23 = 381'),
  item('arithmetic', 'What is 1,234 + 5,678?', 6912, 'The sum is 6,912.', 'The sum is 6,812.'),
  item('arithmetic', 'What is 144 divided by 12?', 12, '144 / 12 = 12', '144 / 12 = 14'),
  item('arithmetic', 'What is 2 to the power of 10?', 1024, '2^10 = 1024', '2^10 = 1000'),
  item('arithmetic', 'What is 15% of 240?', 36, '15% of 240 is 36.', '15% of 240 is 34.'),
  item('arithmetic', 'Pens cost $3 each. How many dollars do 14 pens cost?', 42, '14 pens cost $42.', '14 pens cost $45.'),
  item('arithmetic', 'What is 0.1 + 0.25?', 0.35, '0.1 + 0.25 = 0.35', '0.1 + 0.25 = 0.26'),
  item('arithmetic', 'What is the square root of 169?', 13, 'The square root of 169 is 13.', 'The square root of 169 is 14.'),
  item('arithmetic', 'What is 1000 − 387?', 613, '1000 − 387 = 613', '1000 − 387 = 623'),
  item('arithmetic', 'What is 7 factorial (7!)?', 5040, '7! = 5,040', '7! = 5,400'),
  item('arithmetic', 'A train travels 60 km per hour for 2.5 hours. How many kilometres does it travel?', 150, 'Distance = 60 × 2.5 = 150 km.', 'Distance = 60 × 2.5 = 125 km.'),
  item('arithmetic', 'What is -8 multiplied by 7?', -56, '-8 × 7 = -56', '-8 × 7 = 56'),
];

export const UNIT_CONVERSION: EvalItem[] = [
  item('unit_conversion', 'Convert 5 kilometres to metres.', 5000, '5 km = 5,000 m', '5 km = 500 m'),
  item('unit_conversion', 'Convert 3 hours to seconds.', 10800, '3 hours = 10,800 seconds', '3 hours = 1,800 seconds'),
  item('unit_conversion', 'Convert 100 °F to °C, rounded to one decimal.', 37.8, '(100 − 32) × 5/9 = 37.8 °C', '(100 − 32) × 5/9 = 38.9 °C', 0.1),
  item('unit_conversion', 'How many centimetres are in 2.5 metres?', 250, '2.5 m = 250 cm', '2.5 m = 25 cm'),
  item('unit_conversion', 'Convert 10 miles to kilometres (1 mile = 1.609344 km), to two decimals.', 16.09, '10 miles = 16.09 km', '10 miles = 6.21 km', 0.01),
  item('unit_conversion', 'How many megabytes are 3 gigabytes, with 1 GB = 1024 MB?', 3072, '3 GB = 3,072 MB', '3 GB = 3,000 MB'),
  item('unit_conversion', 'Convert 2 pounds to grams (1 lb = 453.59237 g), to the nearest gram.', 907, '2 lb = 907 g', '2 lb = 900 g', 1),
  item('unit_conversion', 'Convert 90 minutes to hours.', 1.5, '90 minutes = 1.5 hours', '90 minutes = 1.3 hours'),
  item('unit_conversion', 'How many millilitres are in 1.75 litres?', 1750, '1.75 L = 1,750 mL', '1.75 L = 175 mL'),
  item('unit_conversion', 'Convert 0 °C to kelvin, to two decimals.', 273.15, '0 °C = 273.15 K', '0 °C = 273 K', 0.01),
];
