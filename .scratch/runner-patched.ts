// Experiment: share compiled output-schema validators across MCP clients (cache by schema JSON).
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
if (process.env.PATCH === '1') {
  const cache = new Map<string, unknown>();
  const shared = new AjvJsonSchemaValidator();
  const original = AjvJsonSchemaValidator.prototype.getValidator;
  AjvJsonSchemaValidator.prototype.getValidator = function (schema: never) {
    const key = JSON.stringify(schema);
    let validator = cache.get(key);
    if (!validator) { validator = original.call(shared, schema); cache.set(key, validator); }
    return validator as never;
  } as never;
}
const { main } = await import('../src/cli/main.js');
await main(['node', 'corral', 'bench', 'runner', '--data-dir', '/work/shared/data', '--only', 'wiki', '--rollouts', process.env.ROLLOUTS ?? '512', '--repeats', process.env.REPEATS ?? '2']);
