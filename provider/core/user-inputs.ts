/** The user's inputs as the handlers see them: the host's and the SDK's hidden keys (`__provider`, `__inProgram`) dropped. */

type Raw = Record<string, unknown>;

/** The user's inputs: keys starting with "__" (such as `__provider`) dropped. */
export function userInputs(raw: Raw | undefined): Raw {
  return Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
}
