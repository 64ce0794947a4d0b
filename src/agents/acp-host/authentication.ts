/**
 * ACP authentication as an agent starts. An agent lists its auth methods in
 * its `initialize` reply and may refuse `session/new` until the client
 * calls `authenticate` with one: Codex's adapter does, even with its key in
 * its environment. A method of type `env_var` (an ACP extension the SDK's
 * stable schema does not type yet) names the environment variables it
 * reads; Clarion picks the first whose variables are all set in the
 * environment the agent was started with. Any other kind (a browser
 * sign-in, a terminal login) needs a person at the agent's machine, so
 * Clarion never picks one; an agent that needs one fails its start with its
 * own words, and `authenticationHint` says which variables would do.
 */

interface EnvVarMethod {
  readonly id: string;
  readonly vars: readonly string[];
}

/** The `env_var` methods of an `initialize` reply's `authMethods`, read defensively. */
function envVarMethods(authMethods: unknown): EnvVarMethod[] {
  if (!Array.isArray(authMethods)) return [];
  const methods: EnvVarMethod[] = [];
  for (const method of authMethods as unknown[]) {
    if (typeof method !== 'object' || method === null) continue;
    const { type, id, vars } = method as { type?: unknown; id?: unknown; vars?: unknown };
    if (type !== 'env_var' || typeof id !== 'string' || !Array.isArray(vars)) continue;
    const names = (vars as unknown[]).flatMap((variable) => {
      const name = (variable as { name?: unknown } | null)?.name;
      return typeof name === 'string' && name !== '' ? [name] : [];
    });
    if (names.length > 0) methods.push({ id, vars: names });
  }
  return methods;
}

/** The method to `authenticate` with: the first `env_var` one `env` holds every variable of. */
export function envVarAuthMethod(
  authMethods: unknown,
  env: Readonly<Record<string, string>>,
): string | undefined {
  return envVarMethods(authMethods).find((method) =>
    method.vars.every((name) => (env[name] ?? '') !== ''),
  )?.id;
}

/**
 * What a start refused for authentication could have used, for its failure
 * to say: the variables of each `env_var` method, or nothing.
 */
export function authenticationHint(authMethods: unknown): string | undefined {
  const methods = envVarMethods(authMethods);
  if (methods.length === 0) return undefined;
  const choices = methods.map((method) => method.vars.join(' and '));
  return `the agent reads ${choices.join(' or ')}: set it in the profile's env or pass_env`;
}
