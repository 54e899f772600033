/**
 * One JSON Schema validator for every MCP client the runner opens. Each rollout has its own client, and by default
 * each client compiles the tools' output schemas again (measured: ~25% of the runner's CPU per rollout); the
 * compiled validators depend only on the schema, so they are cached by its JSON text.
 */
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

class CachingSchemaValidator implements jsonSchemaValidator {
  private readonly base = new AjvJsonSchemaValidator();
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.compiled.get(key);
    if (!validator) {
      validator = this.base.getValidator<unknown>(schema);
      this.compiled.set(key, validator);
    }
    return validator as JsonSchemaValidator<T>;
  }
}

export const sharedSchemaValidator: jsonSchemaValidator = new CachingSchemaValidator();
