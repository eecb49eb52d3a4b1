/** Eval suite: multiple choice, graded by the chosen letter (choice checks). */
import type { EvalItem } from './item.js';

const LETTERS = 'ABCD';

function item(question: string, choices: string[], expected: string, reference: string, wrong: string): EvalItem {
  const listed = choices.map((c, i) => `${LETTERS[i]}) ${c}`).join('\n');
  return {
    task: 'multiple_choice',
    prompt: `${question}\n${listed}\nAnswer with the letter of the correct option.`,
    check: { kind: 'choice', expected, choices },
    reference,
    wrong,
    max_tokens: 32,
  };
}

export const MULTIPLE_CHOICE: EvalItem[] = [
  item('Which is the largest planet in the Solar System?', ['Mars', 'Jupiter', 'Venus', 'Saturn'], 'B', 'Answer: B', 'Answer: D'),
  item('What is the chemical symbol of gold?', ['Ag', 'Go', 'Au', 'Gd'], 'C', '(C) Au', '(A) Ag'),
  item('At sea level, water boils at how many degrees Celsius?', ['90', '100', '110', '120'], 'B', 'B. 100', 'C. 110'),
  item('Which of these numbers is prime?', ['21', '27', '29', '33'], 'C', 'The answer is C.', 'The answer is A.'),
  item('Who wrote "Pride and Prejudice"?', ['Jane Austen', 'Charlotte Brontë', 'Mary Shelley', 'George Eliot'], 'A', 'A', 'B'),
  item('How many sides does a hexagon have?', ['5', '6', '7', '8'], 'B', 'Answer: B', 'Answer: D'),
  item('Which gas do plants absorb for photosynthesis?', ['Oxygen', 'Nitrogen', 'Carbon dioxide', 'Helium'], 'C', 'Answer: C', 'Answer: A'),
  item('Roughly how fast does light travel in a vacuum?', ['300,000 km/s', '30,000 km/s', '3,000 km/s', '300 km/s'], 'A', '(A)', '(B)'),
  item('Which HTTP status code means "Not Found"?', ['200', '301', '404', '500'], 'C', 'C) 404', 'D) 500'),
  item('Which data structure is last-in, first-out?', ['queue', 'stack', 'heap', 'tree'], 'B', 'Answer: B', 'Answer: A'),
  item('What is the capital of Canada?', ['Toronto', 'Vancouver', 'Montreal', 'Ottawa'], 'D', 'Answer: D', 'Answer: A'),
  item('What is binary 1010 in decimal?', ['8', '10', '12', '5'], 'B', 'B', 'C'),
];
