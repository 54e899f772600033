/**
 * The dataset: small questions that are easy with a Python interpreter and error-prone without one. Written for
 * this example (answers checked with Python 3.11). `info.solution` is reference code that prints the answer; the
 * model never sees it, and the `reference` agent runs it to prove the tools and the rubric work end to end.
 */
import type { Example } from 'corral';

interface Puzzle {
  id: string;
  question: string;
  answer: string;
  solution: string;
}

const PUZZLES: readonly Puzzle[] = [
  { id: 'digit-sum', question: 'What is the sum of the decimal digits of 2**100?', answer: '115', solution: 'print(sum(int(digit) for digit in str(2**100)))' },
  { id: 'digit-count', question: 'How many decimal digits does 3**200 have?', answer: '96', solution: 'print(len(str(3**200)))' },
  {
    id: 'letter-count',
    question: "How many times does the letter 's' occur in 'mississippi massachusetts'?",
    answer: '8',
    solution: "print('mississippi massachusetts'.count('s'))",
  },
  {
    id: 'fibonacci-30',
    question: 'With F(1) = F(2) = 1 and F(n) = F(n-1) + F(n-2), what is F(30)?',
    answer: '832040',
    solution: 'a, b = 1, 1\nfor _ in range(28):\n    a, b = b, a + b\nprint(b)',
  },
  {
    id: 'primes-below-1000',
    question: 'How many prime numbers are smaller than 1000?',
    answer: '168',
    solution: 'print(sum(1 for n in range(2, 1000) if all(n % d for d in range(2, int(n ** 0.5) + 1))))',
  },
  { id: 'reverse', question: "What is the string 'corral sandbox' written backwards?", answer: 'xobdnas larroc', solution: "print('corral sandbox'[::-1])" },
];

export function puzzleExamples(): Example[] {
  return PUZZLES.map((puzzle) => ({
    id: puzzle.id,
    prompt: `${puzzle.question}\nCompute it with the python tool, then reply with the answer only.`,
    answer: puzzle.answer,
    info: { solution: puzzle.solution },
  }));
}
