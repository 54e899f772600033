/**
 * Type test (STYLE principle 23): defineEnvironment infers the environment's State from `state()` (or takes it as a
 * type parameter) and its Args from `argsSchema`, and every place an author's code receives them sees them typed:
 * rubric functions, stop predicates, setup and cleanup, and the environment's own tools. No `state as Game` casts.
 * Checked by `npm run typecheck` and `npm run test:fast` (tsconfig.json includes test/): a wrong type fails the build.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  anyOf,
  defineEnvironment,
  defineTool,
  exactMatchRubric,
  stateSays,
  toolCallCountMetric,
  z,
  type Environment,
  type ToolContext,
  type RubricFunction,
  type RubricInput,
  type StopPredicate,
} from 'corral';

interface Game {
  guesses: string[];
  solved: boolean;
}

const argsSchema = z.object({ words: z.number().int().default(3), level: z.enum(['easy', 'hard']).default('easy') }).strict();
type GameArgs = z.output<typeof argsSchema>;

describe('defineEnvironment infers State from state()', () => {
  it('types the rubric, the stop predicates, setup, cleanup and inline tools with it', () => {
    const environment = defineEnvironment({
      name: 'game',
      argsSchema,
      dataset: ({ envArgs }) => {
        expectTypeOf(envArgs).toEqualTypeOf<GameArgs>();
        return [{ id: 'one', prompt: 'play', answer: 'crane' }];
      },
      state: (): Game => ({ guesses: [], solved: false }),
      tools: [
        defineTool({
          name: 'guess',
          description: 'guess a word',
          inputSchema: z.object({ word: z.string() }),
          execute({ word }, { state }) {
            expectTypeOf(word).toEqualTypeOf<string>();
            expectTypeOf(state).toEqualTypeOf<Game>();
            state.guesses.push(word);
            return 'ok';
          },
        }),
      ],
      setup({ state, envArgs }) {
        expectTypeOf(state).toEqualTypeOf<Game>();
        expectTypeOf(envArgs).toEqualTypeOf<GameArgs>();
      },
      cleanup({ state }) {
        expectTypeOf(state).toEqualTypeOf<Game>();
      },
      stopWhen: [
        stateSays((state) => {
          expectTypeOf(state).toEqualTypeOf<Game>();
          return state.solved;
        }),
        ({ state }) => {
          expectTypeOf(state).toEqualTypeOf<Game>();
          return state.guesses.length >= 6;
        },
      ],
      rubric: [
        {
          name: 'solved',
          weight: 1,
          score: ({ state }) => {
            expectTypeOf(state).toEqualTypeOf<Game>();
            return state.solved ? 1 : 0;
          },
        },
        // @ts-expect-error a field the state does not have is a type error, not undefined at run time
        { name: 'typo', weight: 0, score: ({ state }) => (state.solvd ? 1 : 0) },
        // Helpers written for any state fit every environment's rubric.
        exactMatchRubric(0),
        toolCallCountMetric,
      ],
      systemPrompt: 'play',
    });
    expectTypeOf(environment).toEqualTypeOf<Environment<Game, GameArgs>>();
    // The loaders and runners take any environment.
    expectTypeOf(environment).toExtend<Environment>();
  });

  it('takes State as an explicit type parameter', () => {
    const environment = defineEnvironment<Game, GameArgs>({
      name: 'explicit',
      argsSchema,
      dataset: () => [],
      state: () => ({ guesses: [], solved: false }),
      stopWhen: anyOf(
        stateSays((state) => state.solved),
        ({ state }) => state.guesses.length > 5,
      ),
      rubric: [{ name: 'guesses', weight: 0, score: ({ state }) => state.guesses.length }],
      systemPrompt: 'play',
    });
    expectTypeOf(environment.stopWhen).toEqualTypeOf<readonly StopPredicate<Game>[]>();
    expectTypeOf(environment.rubric).items.toEqualTypeOf<RubricFunction<Game>>();
  });

  it('types a rubric function and a tool written outside defineEnvironment by their declared State', () => {
    const solved = ({ state }: RubricInput<Game>) => (state.solved ? 1 : 0);
    const hint = defineTool({
      name: 'hint',
      description: 'how many guesses so far',
      inputSchema: z.object({}),
      execute: (_input, { state, envArgs }: ToolContext<Game, GameArgs>) => `${state.guesses.length} of ${envArgs.words}`,
    });
    defineEnvironment({
      name: 'outside',
      argsSchema,
      dataset: () => [],
      state: (): Game => ({ guesses: [], solved: false }),
      tools: [hint],
      rubric: [{ name: 'solved', weight: 1, score: solved }],
      systemPrompt: 'play',
    });
    defineEnvironment({
      name: 'mismatch',
      dataset: () => [],
      state: () => ({ count: 0 }),
      // @ts-expect-error a rubric function for another environment's state does not fit
      rubric: [{ name: 'solved', weight: 1, score: solved }],
      systemPrompt: 'play',
    });
    defineEnvironment({
      name: 'mismatched-tool',
      dataset: () => [],
      state: () => ({ count: 0 }),
      // @ts-expect-error nor does a tool written for another environment's state
      tools: [hint],
      rubric: [{ name: 'count', weight: 0, score: ({ state }) => state.count }],
      systemPrompt: 'play',
    });
  });
});
