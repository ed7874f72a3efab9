/** Options and constants of the ObjectStore (store.ts). */
import { ObjectValidator } from './types';

/** Options of an ObjectStore. */
export interface ObjectStoreOptions {
  /** Schema validation of whole objects (from emulator/kinds); without it every fieldValidation acts as Ignore. */
  validate?: ObjectValidator;
  /** Events kept for watch resume and list continue (default 10000). */
  historySize?: number;
  /** Random source for generateName suffixes (default Math.random); inject for deterministic names. */
  random?: () => number;
  /** Receives errors thrown by watch callbacks and failed garbage-collector writes (default: a process warning). */
  onCallbackError?: (err: unknown) => void;
}

/** Where the counter starts: "0" stays free to mean "any version" in list/watch requests. */
export const START_RV = 1;
export const GENERATE_NAME_ATTEMPTS = 8;

/** Where watch-callback and garbage-collector failures go unless the store is told otherwise. */
export function defaultOnError(err: unknown): void {
  const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.emitWarning(`emulator store: a watch callback or garbage-collector write failed: ${why}`, 'EmulatorStoreWarning');
}
