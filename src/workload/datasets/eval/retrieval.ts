/**
 * Eval suite: retrieval answers over numbered documents (citation checks). The reference cites the
 * document that holds the fact with a sentence sharing at least 3 consecutive words with it; the
 * wrong answer makes the same claim but cites a document that does not contain it.
 */
import type { EvalItem } from './item.js';

function item(question: string, documents: string[], answer: string, right: number, wrongDoc: number): EvalItem {
  const listed = documents.map((d, i) => `[${i + 1}] ${d}`).join('\n');
  return {
    task: 'retrieval',
    prompt: `Documents:\n${listed}\n\nQuestion: ${question}\nAnswer in one sentence and cite the supporting document as [n].`,
    check: { kind: 'citation', documents, required: [right] },
    reference: `${answer} [${right}].`,
    wrong: `${answer} [${wrongDoc}].`,
    max_tokens: 96,
  };
}

export const RETRIEVAL: EvalItem[] = [
  item(
    'When was the Eiffel Tower completed?',
    ['The Eiffel Tower was completed in 1889 for the World Fair in Paris.', 'The Statue of Liberty was dedicated in 1886 in New York Harbor.', 'The clock tower of Big Ben was finished in 1859 in London.'],
    'The Eiffel Tower was completed in 1889',
    1,
    2,
  ),
  item(
    'What does the mitochondrion produce?',
    ['The nucleus stores the genetic material of the cell.', 'The mitochondrion produces most of the chemical energy of the cell as ATP.', 'Ribosomes assemble proteins from amino acids.'],
    'The mitochondrion produces most of the chemical energy of the cell',
    2,
    1,
  ),
  item(
    'Which river flows through Cairo?',
    ['The Danube flows through Vienna and Budapest.', 'The Thames flows through London.', 'The Nile flows through Cairo before reaching the Mediterranean.'],
    'The Nile flows through Cairo',
    3,
    1,
  ),
  item(
    'What is the default port of HTTPS?',
    ['HTTPS uses port 443 by default.', 'SSH listens on port 22 by default.', 'Plain HTTP uses port 80 by default.'],
    'HTTPS uses port 443 by default',
    1,
    3,
  ),
  item(
    'Who proposed the theory of general relativity?',
    ['Isaac Newton formulated the laws of motion in 1687.', 'Albert Einstein published the theory of general relativity in 1915.', 'Niels Bohr proposed a model of the atom in 1913.'],
    'Albert Einstein published the theory of general relativity in 1915',
    2,
    3,
  ),
  item(
    'How long is a marathon?',
    ['A marathon is 42.195 kilometres long.', 'A half marathon is 21.0975 kilometres long.', 'An ultramarathon is any race longer than a marathon.'],
    'A marathon is 42.195 kilometres long',
    1,
    2,
  ),
  item(
    'What is the boiling point of ethanol?',
    ['Water boils at 100 degrees Celsius at sea level.', 'Mercury boils at 357 degrees Celsius.', 'Ethanol boils at about 78 degrees Celsius at sea level.'],
    'Ethanol boils at about 78 degrees Celsius',
    3,
    1,
  ),
  item(
    'Which language was created by Guido van Rossum?',
    ['Guido van Rossum created the Python language in 1991.', 'Brendan Eich created JavaScript in 1995.', 'Dennis Ritchie created C at Bell Labs.'],
    'Guido van Rossum created the Python language',
    1,
    2,
  ),
  item(
    'What is the largest desert in Asia?',
    ['The Sahara is the largest hot desert in the world.', 'The Gobi is the largest desert in Asia.', 'The Atacama is one of the driest places on Earth.'],
    'The Gobi is the largest desert in Asia',
    2,
    1,
  ),
  item(
    'How many players does a football (soccer) team field?',
    ['A basketball team has five players on the court.', 'A volleyball team has six players on the court.', 'A football team fields eleven players including the goalkeeper.'],
    'A football team fields eleven players',
    3,
    2,
  ),
];
