import type { FieldProblem } from '../../../errors/app-errors.js';
import type { ProviderRegistry } from '../../../providers/registry.js';
import { capabilities } from '../../../schemas/provider-catalog.js';

/**
 * The problems of a preset body's model files of the operator's own (local-llama: a .gguf path
 * under MODELS_DIR): the file must be there and be a GGUF model, else `body.<section>.model` names
 * what is wrong (what is missing and the .gguf files there are, or "not a GGUF file"). Read from
 * the body as sent, beside the schema's problems, so one 400 lists them all.
 */
export async function ownModelFileProblems(
  registry: Pick<ProviderRegistry, 'ownModelProblem'>,
  sent: unknown,
): Promise<FieldProblem[]> {
  if (typeof sent !== 'object' || sent === null) return [];
  const problems: FieldProblem[] = [];
  for (const capability of capabilities) {
    const section: unknown = (sent as Record<string, unknown>)[capability];
    if (typeof section !== 'object' || section === null) continue;
    const { provider, model } = section as Record<string, unknown>;
    if (typeof provider !== 'string' || typeof model !== 'string') continue;
    const problem = await registry.ownModelProblem(capability, provider, model);
    if (problem !== null) problems.push({ path: `body.${capability}.model`, message: problem });
  }
  return problems;
}
