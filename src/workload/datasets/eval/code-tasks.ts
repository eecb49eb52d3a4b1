/** Eval suite: short JavaScript functions run against tests in an isolated process (code checks). */
import type { EvalItem } from './item.js';

function item(entry: string, spec: string, tests: string, reference: string, wrong: string): EvalItem {
  return {
    task: 'code',
    prompt: `Write a JavaScript function \`${entry}\` that ${spec}. Reply with the code in one \`\`\`javascript block.`,
    check: { kind: 'code', language: 'javascript', entry, tests },
    reference: '```javascript\n' + reference + '\n```',
    wrong: '```javascript\n' + wrong + '\n```',
    max_tokens: 256,
  };
}

export const CODE_TASKS: EvalItem[] = [
  item('add', 'returns the sum of two numbers', 'assert.equal(add(2, 3), 5);\nassert.equal(add(-4, 4), 0);', 'function add(a, b) {\n  return a + b;\n}', 'function add(a, b) {\n  return a - b;\n}'),
  item(
    'isPalindrome',
    'tells whether a string reads the same backwards, ignoring case and non-alphanumeric characters',
    "assert.equal(isPalindrome('A man, a plan, a canal: Panama'), true);\nassert.equal(isPalindrome('hello'), false);\nassert.equal(isPalindrome(''), true);",
    "function isPalindrome(s) {\n  const t = s.toLowerCase().replace(/[^a-z0-9]/g, '');\n  return t === [...t].reverse().join('');\n}",
    "function isPalindrome(s) {\n  return s === [...s].reverse().join('');\n}",
  ),
  item(
    'fizzbuzz',
    'returns "Fizz" for multiples of 3, "Buzz" for multiples of 5, "FizzBuzz" for both, else the number as a string',
    "assert.equal(fizzbuzz(3), 'Fizz');\nassert.equal(fizzbuzz(10), 'Buzz');\nassert.equal(fizzbuzz(30), 'FizzBuzz');\nassert.equal(fizzbuzz(7), '7');",
    "function fizzbuzz(n) {\n  if (n % 15 === 0) return 'FizzBuzz';\n  if (n % 3 === 0) return 'Fizz';\n  if (n % 5 === 0) return 'Buzz';\n  return String(n);\n}",
    "function fizzbuzz(n) {\n  if (n % 3 === 0) return 'Fizz';\n  if (n % 5 === 0) return 'Buzz';\n  if (n % 15 === 0) return 'FizzBuzz';\n  return String(n);\n}",
  ),
  item('factorial', 'returns n! for a non-negative integer n', 'assert.equal(factorial(0), 1);\nassert.equal(factorial(5), 120);', 'function factorial(n) {\n  return n <= 1 ? 1 : n * factorial(n - 1);\n}', 'function factorial(n) {\n  return n <= 1 ? n : n * factorial(n - 1);\n}'),
  item(
    'reverseWords',
    'reverses the order of the space-separated words of a string',
    "assert.equal(reverseWords('hello world'), 'world hello');\nassert.equal(reverseWords('a b c'), 'c b a');",
    "function reverseWords(s) {\n  return s.split(' ').reverse().join(' ');\n}",
    "function reverseWords(s) {\n  return [...s].reverse().join('');\n}",
  ),
  item('sumArray', 'returns the sum of an array of numbers (0 for an empty array)', 'assert.equal(sumArray([1, 2, 3]), 6);\nassert.equal(sumArray([]), 0);', 'function sumArray(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}', 'function sumArray(xs) {\n  return xs.reduce((a, b) => a + b);\n}'),
  item('maxOf', 'returns the largest number of a non-empty array', 'assert.equal(maxOf([3, 9, 2]), 9);\nassert.equal(maxOf([-3, -1, -2]), -1);', 'function maxOf(xs) {\n  return Math.max(...xs);\n}', 'function maxOf(xs) {\n  let m = 0;\n  for (const x of xs) if (x > m) m = x;\n  return m;\n}'),
  item(
    'countVowels',
    'counts the vowels (a, e, i, o, u, either case) in a string',
    "assert.equal(countVowels('Hello World'), 3);\nassert.equal(countVowels('xyz'), 0);\nassert.equal(countVowels('AEIOU'), 5);",
    "function countVowels(s) {\n  return (s.match(/[aeiou]/gi) ?? []).length;\n}",
    "function countVowels(s) {\n  return (s.match(/[aeiou]/g) ?? []).length;\n}",
  ),
  item(
    'uniqueSorted',
    'returns the distinct numbers of an array in ascending numeric order',
    'assert.deepEqual(uniqueSorted([3, 1, 3, 10, 2]), [1, 2, 3, 10]);\nassert.deepEqual(uniqueSorted([]), []);',
    'function uniqueSorted(xs) {\n  return [...new Set(xs)].sort((a, b) => a - b);\n}',
    'function uniqueSorted(xs) {\n  return [...new Set(xs)].sort();\n}',
  ),
  item('capitalize', 'upper-cases the first letter of a string', "assert.equal(capitalize('hello'), 'Hello');\nassert.equal(capitalize(''), '');", "function capitalize(s) {\n  return s.charAt(0).toUpperCase() + s.slice(1);\n}", 'function capitalize(s) {\n  return s.toUpperCase();\n}'),
  item('fib', 'returns the n-th Fibonacci number with fib(0) = 0 and fib(1) = 1', 'assert.equal(fib(0), 0);\nassert.equal(fib(1), 1);\nassert.equal(fib(10), 55);', 'function fib(n) {\n  let a = 0, b = 1;\n  for (let i = 0; i < n; i++) [a, b] = [b, a + b];\n  return a;\n}', 'function fib(n) {\n  let a = 1, b = 1;\n  for (let i = 0; i < n; i++) [a, b] = [b, a + b];\n  return a;\n}'),
  item(
    'chunk',
    'splits an array into consecutive chunks of the given size (the last may be shorter)',
    'assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);\nassert.deepEqual(chunk([], 3), []);',
    'function chunk(xs, size) {\n  const out = [];\n  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));\n  return out;\n}',
    'function chunk(xs, size) {\n  const out = [];\n  for (let i = 0; i + size <= xs.length; i += size) out.push(xs.slice(i, i + size));\n  return out;\n}',
  ),
];
